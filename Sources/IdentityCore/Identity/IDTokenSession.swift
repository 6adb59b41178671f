public import Foundation
public import COSECrypto
public import JOSE
import WebAuthnModel

/// A pending ID-token sign-in: what begin stores (in PostgreSQL, consumed once) and finish checks the token against.
public struct PendingIDTokenSession: Sendable, Hashable {
    /// The opaque session id the client echoes at finish (16 random bytes).
    public let id: [UInt8]
    /// The provider the session was begun for.
    public let provider: String
    /// The nonce passkeyd issued (base64url of 32 random bytes: 256 bits).
    public let nonce: String
    /// When the session stops being usable.
    public let expiresAt: Date

    public init(id: [UInt8], provider: String, nonce: String, expiresAt: Date) {
        self.id = id
        self.provider = provider
        self.nonce = nonce
        self.expiresAt = expiresAt
    }

    /// What the store keeps as the session's state: `provider NUL nonce` (both printable ASCII).
    public var encodedState: [UInt8] { Array(provider.utf8) + [0] + Array(nonce.utf8) }

    /// The session from its stored state; `nil` if the state is not one ``encodedState`` wrote.
    public init?(id: [UInt8], encodedState state: [UInt8], expiresAt: Date) {
        let parts = state.split(separator: 0, omittingEmptySubsequences: false)
        guard parts.count == 2, let provider = String(validating: parts[0], as: UTF8.self),
              let nonce = String(validating: parts[1], as: UTF8.self), !provider.isEmpty, !nonce.isEmpty
        else { return nil }
        self.init(id: id, provider: provider, nonce: nonce, expiresAt: expiresAt)
    }
}

/// What begin answers: the session id, the nonce, what the app hands the provider SDK, and the expiry.
public struct IDTokenBeginResult: Sendable, Hashable {
    public let session: PendingIDTokenSession
    /// The value the app passes to the provider SDK (under the provider's ``NonceRule``).
    public let providerNonce: String

    public init(session: PendingIDTokenSession, providerNonce: String) {
        self.session = session
        self.providerNonce = providerNonce
    }
}

/// The pure core of ID-token sign-in: begin makes a session (randomness and clock injected); finish checks the
/// session, then the token, in a fixed order with one ``IdentityError`` code per check. No I/O: keys arrive as a value.
public enum IDTokenSignIn {
    /// Bytes of the session id and of the nonce.
    public static let sessionIDLength = 16
    public static let nonceLength = 32

    /// Starts a sign-in with `profile`.
    /// - Parameters:
    ///   - random: `count` cryptographically random bytes (``SecureRandom/bytes(count:)`` in production).
    ///   - now: the current time; `timeout`: how long the session lives.
    public static func begin(
        profile: ProviderProfile, timeout: TimeInterval, now: Date, random: (Int) -> [UInt8] = SecureRandom.bytes(count:)
    ) -> IDTokenBeginResult {
        let session = PendingIDTokenSession(
            id: random(sessionIDLength), provider: profile.name, nonce: Base64URL.encode(random(nonceLength)),
            expiresAt: now.addingTimeInterval(timeout))
        return IDTokenBeginResult(session: session, providerNonce: providerNonce(for: session.nonce, rule: profile.nonceRule))
    }

    /// The value the app hands the provider, and so the value the token's `nonce` must equal.
    public static func providerNonce(for nonce: String, rule: NonceRule) -> String {
        switch rule {
        case .raw: return nonce
        case .sha256Hex:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            var text = [UInt8]()
            text.reserveCapacity(64)
            for byte in Digest.sha256(Array(nonce.utf8)) {
                text.append(hex[Int(byte >> 4)])
                text.append(hex[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// The session checks of finish, before the token is looked at.
    /// - Parameters:
    ///   - pending: the consumed session (`nil`: none was found).
    ///   - provider: the provider the finish names.
    ///   - now: the current time (the store's consume reports expiry by the database clock; this repeats it).
    /// - Throws: ``IdentityError/Code/sessionUnknown`` (also for an expired one), ``IdentityError/Code/providerMismatch``.
    public static func checkSession(_ pending: PendingIDTokenSession?, provider: String, now: Date) throws(IdentityError) -> PendingIDTokenSession {
        guard let pending else { throw IdentityError(.sessionUnknown, "no pending ID-token session with that id") }
        guard now < pending.expiresAt else { throw IdentityError(.sessionUnknown, "session expired at \(pending.expiresAt)") }
        guard pending.provider == provider else {
            throw IdentityError(.providerMismatch, "session was begun for \(pending.provider), finished as \(provider.prefix(32))")
        }
        return pending
    }

    /// Checks `token` against the session, the profile and the provider's keys.
    ///
    /// Order: JWS form → `alg` allow-list → key by `kid` → signature → `iss` → `aud` → `exp` → `iat` → `nonce` → `sub`.
    public static func verify(
        _ token: UnverifiedIDToken, session: PendingIDTokenSession, profile: ProviderProfile, keys: JWKSet, now: Date
    ) throws(IdentityError) -> VerifiedIdentity {
        let jws = token.jws
        let algorithm: JWSAlgorithm
        do {
            algorithm = try JWSVerifier.allowedAlgorithm(of: jws, allowed: profile.effectiveAlgorithms)
        } catch {
            throw IdentityError(.algorithmNotAllowed, error.reason)
        }
        let key: JWSVerificationKey
        if algorithm.isHMAC {
            // Only reachable with a configured secret (effectiveAlgorithms); never a key from the JWKS.
            guard let secret = profile.hmacSecret else { throw IdentityError(.algorithmNotAllowed, "no secret for \(algorithm)") }
            key = .sharedSecret(secret)
        } else {
            do {
                key = .publicKey(try keys.key(keyID: jws.keyID, algorithm: algorithm))
            } catch {
                throw IdentityError(error.code == .keyUnknown ? .keyUnknown : .keyInvalid, error.reason)
            }
        }
        do {
            try JWSVerifier.verify(jws, algorithm: algorithm, key: key)
        } catch {
            switch error.code {
            case .signatureInvalid: throw IdentityError(.signatureInvalid, error.reason)
            case .algorithmNotAllowed: throw IdentityError(.algorithmNotAllowed, error.reason)
            default: throw IdentityError(.keyInvalid, error.reason)
            }
        }
        let claims = try IDTokenClaims(payload: jws.payload)
        return try claims.verified(session: session, profile: profile, now: now)
    }
}

/// An ID token as received: parsed as a compact JWS under the provider's size cap, nothing verified.
public struct UnverifiedIDToken: Sendable {
    public let jws: CompactJWS

    /// - Throws: ``IdentityError/Code/tooLarge``, ``IdentityError/Code/malformed``,
    ///   ``IdentityError/Code/criticalHeader``.
    public init(_ token: some Collection<UInt8>, profile: ProviderProfile) throws(IdentityError) {
        do {
            jws = try CompactJWS(compact: token, maxLength: profile.maxTokenBytes)
        } catch {
            switch error.code {
            case .tooLarge: throw IdentityError(.tooLarge, error.reason)
            case .criticalHeader: throw IdentityError(.criticalHeader, error.reason)
            default: throw IdentityError(.malformed, error.reason)
            }
        }
    }

    /// The header's `kid`, for asking the key source.
    public var keyID: String? { jws.keyID }
}
