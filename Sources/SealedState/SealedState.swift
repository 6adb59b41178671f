public import Foundation
internal import COSECrypto
public import PasskeyErrors

// Ceremony state that travels inside the challenge itself (issue 29): the relying party seals what the finish needs
// with AES-256-GCM under a ceremony key shared by every instance, hands the box out as the challenge, and opens it at
// finish. A begin then writes nothing; single use is the finish's job (it records the box's ``ConsumedFingerprint``
// in the same statement as its change).
//
// Layout (all lengths in bytes):
//
//     version (1) = 0x01 ‖ key id (4, big-endian) ‖ nonce (12) ‖ ciphertext ‖ tag (16)
//     plaintext     = random (16) ‖ expiry (4, big-endian seconds since 1970) ‖ payload
//     associated    = "passkeyd.sealed.v1" ‖ 0x00 ‖ kind ‖ 0x00 ‖ relying party id ‖ 0x00 ‖ key id (4)
//
// The expiry field holds 1970-01-01 to 2106-02-07T06:28:15Z; seal refuses an expiry outside it rather than move it.
//
// The kind and the relying party are bound as associated data, so a registration challenge never opens as a sign-in,
// an ID-token session or an App Attest challenge, and a challenge of one relying party never opens at another. The
// 128 random bits make every box unique even for equal payloads (and a fresh nonce is drawn for each box). The
// overhead is 53 bytes plus the payload.

/// What a sealed state is for: bound into the box as associated data, so a box of one kind never opens as another.
/// An open set (new kinds need no change here); the raw value is part of the format and must never change.
public struct SealedStateKind: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A passkey registration (sign-up or another passkey for a known user).
    public static let registration = SealedStateKind(rawValue: "webauthn.create")
    /// An automatic passkey upgrade (conditional create).
    public static let conditionalCreate = SealedStateKind(rawValue: "webauthn.create.conditional")
    /// A passkey added by the signed-in user themselves (self-service), only finishable by that user.
    public static let selfServiceAddition = SealedStateKind(rawValue: "webauthn.create.self")
    /// A passkey sign-in.
    public static let authentication = SealedStateKind(rawValue: "webauthn.get")
    /// A native ID-token sign-in session (its provider nonce is derived from the box).
    public static let idTokenSession = SealedStateKind(rawValue: "idtoken.session")
    /// An App Attest challenge.
    public static let appAttest = SealedStateKind(rawValue: "appattest.challenge")
}

/// A symmetric ceremony key: 32 secret bytes, a 32-bit id carried in every box, and the time it may seal from.
public struct CeremonyKey: Sendable, Hashable {
    public let id: UInt32
    /// The AES-256 key (32 bytes).
    public let secret: [UInt8]
    /// Boxes are sealed under the newest key whose ``activatesAt`` has passed; until then it only opens (so every
    /// instance holds a key before any instance seals with it).
    public let activatesAt: Date
    /// After this the key neither seals nor opens. It seals only boxes that expire before it retires, so each box
    /// it sealed opens until its expiry (retire it at least the clock skew after the longest box's lifetime).
    public let retiresAt: Date

    /// - Throws: ``SealedStateError/Code/keyInvalid`` when the secret is not 32 bytes.
    public init(id: UInt32, secret: [UInt8], activatesAt: Date, retiresAt: Date) throws(SealedStateError) {
        guard secret.count == AEAD.keyLength else {
            throw SealedStateError(.keyInvalid, "a ceremony key is \(AEAD.keyLength) bytes, got \(secret.count)")
        }
        self.id = id
        self.secret = secret
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
    }

    /// The key id as four big-endian bytes (what a box carries).
    var idBytes: [UInt8] { [UInt8(id >> 24), UInt8(id >> 16 & 0xff), UInt8(id >> 8 & 0xff), UInt8(id & 0xff)] }

    public static func == (lhs: CeremonyKey, rhs: CeremonyKey) -> Bool {
        lhs.id == rhs.id && lhs.activatesAt == rhs.activatesAt && lhs.retiresAt == rhs.retiresAt
            && constantTimeEquals(lhs.secret, rhs.secret)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The secret never appears in a description, a debug description or a mirror (`dump`), so a key or a ring that
/// reaches a log line or an error's reason shows its id and times only.
extension CeremonyKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "CeremonyKey(id: \(id), activatesAt: \(activatesAt), retiresAt: \(retiresAt), secret: redacted)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "activatesAt": activatesAt, "retiresAt": retiresAt], displayStyle: .struct)
    }
}

/// The keys an instance holds: the one that seals now and every one that may still open a box in flight.
public struct CeremonyKeyRing: Sendable, Hashable {
    /// By activation, oldest first.
    public let keys: [CeremonyKey]

    public init(keys: [CeremonyKey]) {
        self.keys = keys.sorted { ($0.activatesAt, $0.id) < ($1.activatesAt, $1.id) }
    }

    /// The key that seals at `now`: the newest one already active and not retired and, given a box's `expiresAt`,
    /// not retired at that expiry either (else the box would stop opening before it expires); nil when there is none.
    public func sealingKey(at now: Date, until expiresAt: Date? = nil) -> CeremonyKey? {
        keys.last { key in
            key.activatesAt <= now && now < key.retiresAt && (expiresAt.map { $0 < key.retiresAt } ?? true)
        }
    }

    /// The key with this id that may open at `now` (not retired; a key not active yet opens, see ``CeremonyKey``):
    /// the oldest of ``openingKeys(id:at:)``, the only one when ids are unique.
    public func openingKey(id: UInt32, at now: Date) -> CeremonyKey? {
        openingKeys(id: id, at: now).first
    }

    /// The keys with this id that may open at `now` (not retired; a key not active yet opens, see ``CeremonyKey``).
    /// Ids should be unique in a ring; when two keys share one (an id reused with a new secret), a box is tried
    /// under each, so the one the newer key sealed opens as well as the older key's.
    public func openingKeys(id: UInt32, at now: Date) -> [CeremonyKey] {
        keys.filter { $0.id == id && now < $0.retiresAt }
    }
}

/// Why a sealed state was refused; the codes are the finish's ones (HTTP maps them as for a stored ceremony).
public struct SealedStateError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The bytes are not a box passkeyd sealed for this kind and relying party under a key it holds: wrong
        /// length or version, unknown or retired key, failed authentication (tampered, another kind, another
        /// relying party). Indistinguishable on purpose.
        public static let unknown = Code(rawValue: "challenge_unknown_or_expired")
        /// An authentic box whose expiry (plus the allowed clock skew) has passed.
        public static let expired = Code(rawValue: "challenge_expired")
        /// No key may seal now (the ring is empty, every key retired, or none stays unretired until the box's
        /// expiry): a server-side fault.
        public static let noSealingKey = Code(rawValue: "ceremony_key_unavailable")
        /// A key that is not 32 bytes.
        public static let keyInvalid = Code(rawValue: "ceremony_key_invalid")
        /// The payload is too large to seal (over ``SealedState/maximumPayload``).
        public static let payloadTooLarge = Code(rawValue: "sealed_payload_too_large")
        /// An expiry the box cannot carry: before 1970, after 2106-02-07T06:28:15Z, or not a number (a caller's fault;
        /// moving it into range would make the box open longer, or never).
        public static let expiryOutOfRange = Code(rawValue: "sealed_expiry_out_of_range")
    }

    public let code: Code
    public let reason: String
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The record a finish keeps of a box it used: 16 bytes of SHA-256 over the whole box (the 128 random bits inside
/// make it unique), kept until ``expiresAt``, after which the box cannot open anyway.
public struct ConsumedFingerprint: Sendable, Hashable {
    public let bytes: [UInt8]
    /// The box's expiry plus the clock skew: when the record may be dropped.
    public let expiresAt: Date

    public init(bytes: [UInt8], expiresAt: Date) {
        self.bytes = bytes
        self.expiresAt = expiresAt
    }
}

/// A box that opened: its payload, its expiry and the fingerprint single use records.
public struct OpenedState: Sendable, Hashable {
    public let payload: [UInt8]
    public let expiresAt: Date
    public let fingerprint: ConsumedFingerprint
}

/// Seals and opens ceremony state (see the layout at the top of this file). Pure: the key ring, the clock and the
/// randomness are passed in.
public enum SealedState {
    static let version: UInt8 = 0x01
    static let randomLength = 16
    static let headerLength = 1 + 4 + 12
    /// Bytes a box adds to its payload: header, random, expiry, tag.
    public static let overhead = headerLength + randomLength + 4 + 16
    /// The largest payload sealed: a registration for a name and display name of 256 four-byte characters each
    /// (the longest passkeyd accepts) fits, with room to spare.
    public static let maximumPayload = 4096
    private static let context = Array("passkeyd.sealed.v1".utf8)

    /// Seals `payload` for `kind` at relying party `rpID` under the ring's sealing key.
    /// - Parameters:
    ///   - expiresAt: when the box stops opening (whole seconds; a fraction is rounded up).
    ///   - random: randomness, `random(n)` returns n unpredictable bytes (injected; production uses OpenSSL). Any
    ///     other count is a programming error and stops the process.
    /// - Throws: ``SealedStateError/Code/noSealingKey``, ``SealedStateError/Code/payloadTooLarge`` or
    ///   ``SealedStateError/Code/expiryOutOfRange``.
    public static func seal(
        _ payload: [UInt8], kind: SealedStateKind, rpID: String, expiresAt: Date, ring: CeremonyKeyRing, now: Date,
        random: (Int) -> [UInt8]
    ) throws(SealedStateError) -> [UInt8] {
        guard payload.count <= maximumPayload else {
            throw SealedStateError(.payloadTooLarge, "\(payload.count) bytes over \(maximumPayload)")
        }
        // Compared as a Double first: converting an infinite, NaN or huge value to an integer traps. NaN fails both.
        let seconds = expiresAt.timeIntervalSince1970.rounded(.up)
        guard seconds >= 0, seconds <= Double(UInt32.max) else {
            throw SealedStateError(.expiryOutOfRange, "expiry \(seconds) is outside 0...\(UInt32.max) seconds since 1970")
        }
        let expiry = UInt32(seconds)
        // The expiry asked for, not the second it is rounded up to: with no clock skew a slot key retires exactly
        // when its longest box, sealed just before the next slot, would expire rounded up.
        guard let key = ring.sealingKey(at: now, until: expiresAt) else {
            throw SealedStateError(.noSealingKey, "no ceremony key is active until the box's expiry")
        }
        var plaintext = random(randomLength)
        precondition(plaintext.count == randomLength, "random(\(randomLength)) returned \(plaintext.count) bytes")
        let nonce = random(AEAD.nonceLength)
        precondition(nonce.count == AEAD.nonceLength, "random(\(AEAD.nonceLength)) returned \(nonce.count) bytes")
        plaintext.reserveCapacity(randomLength + 4 + payload.count)
        plaintext += [UInt8(expiry >> 24), UInt8(expiry >> 16 & 0xff), UInt8(expiry >> 8 & 0xff), UInt8(expiry & 0xff)]
        plaintext += payload
        let keyID = key.idBytes
        let box: [UInt8]
        do {
            box = try AEAD.seal(
                plaintext, key: key.secret, nonce: nonce,
                associatedData: associatedData(kind: kind, rpID: rpID, keyID: keyID))
        } catch {
            throw SealedStateError(.keyInvalid, "sealing failed: \(error)")
        }
        var sealed = [version]
        sealed.reserveCapacity(1 + 4 + box.count)
        sealed += keyID
        sealed += box
        return sealed
    }

    /// Opens a box sealed by ``seal(_:kind:rpID:expiresAt:ring:now:random:)`` for the same kind and relying party.
    /// Bytes longer than the longest box seal makes (``overhead`` + ``maximumPayload``) are refused before any
    /// decryption.
    /// - Parameter skew: how far another instance's clock may be behind (`PASSKEYD_CLOCK_SKEW`): a box is refused as
    ///   expired only once `now` is past its expiry plus `skew`.
    /// - Throws: ``SealedStateError/Code/unknown`` (does not open) or ``SealedStateError/Code/expired``.
    public static func open(
        _ sealed: [UInt8], kind: SealedStateKind, rpID: String, ring: CeremonyKeyRing, now: Date, skew: TimeInterval
    ) throws(SealedStateError) -> OpenedState {
        guard sealed.count >= overhead, sealed.count <= overhead + maximumPayload, sealed[0] == version else {
            throw SealedStateError(.unknown, "not a sealed state (\(sealed.count) bytes)")
        }
        let keyID = Array(sealed[1..<5])
        let id = UInt32(keyID[0]) << 24 | UInt32(keyID[1]) << 16 | UInt32(keyID[2]) << 8 | UInt32(keyID[3])
        let keys = ring.openingKeys(id: id, at: now)
        guard !keys.isEmpty else { throw SealedStateError(.unknown, "no usable key \(id)") }
        let box = Array(sealed[5...])
        let associated = associatedData(kind: kind, rpID: rpID, keyID: keyID)
        var opened: [UInt8]?
        for key in keys where opened == nil {
            opened = try? AEAD.open(box, key: key.secret, associatedData: associated)
        }
        guard let plaintext = opened else {
            throw SealedStateError(.unknown, "the box does not open for \(kind.rawValue)")
        }
        let at = randomLength
        let expiry = UInt32(plaintext[at]) << 24 | UInt32(plaintext[at + 1]) << 16 | UInt32(plaintext[at + 2]) << 8
            | UInt32(plaintext[at + 3])
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(expiry))
        guard now <= expiresAt.addingTimeInterval(skew) else {
            throw SealedStateError(.expired, "expired at \(expiresAt)")
        }
        return OpenedState(
            payload: Array(plaintext[(at + 4)...]), expiresAt: expiresAt,
            fingerprint: ConsumedFingerprint(
                bytes: Array(Digest.sha256(sealed).prefix(16)), expiresAt: expiresAt.addingTimeInterval(skew)))
    }

    static func associatedData(kind: SealedStateKind, rpID: String, keyID: [UInt8]) -> [UInt8] {
        var data = context
        data.append(0)
        data += Array(kind.rawValue.utf8)
        data.append(0)
        data += Array(rpID.utf8)
        data.append(0)
        data += keyID
        return data
    }
}
