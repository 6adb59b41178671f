internal import CBORCodec
public import Foundation

// The bytes a store keeps for a pending ceremony between begin and finish.
//
// A CBOR map with small integer keys (libcbor through CBORCodec): about a third of the JSON size, and decoding it
// costs a few microseconds instead of a Foundation JSONDecoder pass on every finish. Key 0 is the format version.
// States written as JSON by an earlier passkeyd (first byte `{`) are still read, so a rolling upgrade does not fail
// the ceremonies begun on an old instance.

/// A stored ceremony state that cannot be read (not written by passkeyd, or damaged): a server-side fault.
public struct CeremonyStateError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "unreadable ceremony state: \(reason)" }
}

private enum StateKey {
    static let version: Int64 = 0
    static let challenge: Int64 = 1
    static let userVerification: Int64 = 2
    /// Seconds since 2001-01-01 as a float64: Date's own representation, so it round-trips exactly.
    static let expiresAt: Int64 = 3
    // authentication
    static let allowCredentialIDs: Int64 = 4
    static let userHandle: Int64 = 5
    static let appID: Int64 = 6
    // registration
    static let userID: Int64 = 7
    static let userName: Int64 = 8
    static let userDisplayName: Int64 = 9
    static let algorithms: Int64 = 10
    /// Present (the text "conditional") only for a conditional create.
    static let mediation: Int64 = 11
}

private let currentVersion: Int64 = 1
private let jsonOpeningBrace = UInt8(ascii: "{")

/// Reads the members of a state map, failing with ``CeremonyStateError`` on anything unexpected.
private struct StateReader {
    let entries: [Int64: CBORValue]

    init(_ bytes: [UInt8]) throws(CeremonyStateError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw CeremonyStateError(reason: "not CBOR (\(error))")
        }
        guard let map = value.mapEntries else { throw CeremonyStateError(reason: "not a map") }
        var entries: [Int64: CBORValue] = [:]
        entries.reserveCapacity(map.count)
        for entry in map {
            guard let key = entry.key.intValue else { throw CeremonyStateError(reason: "non-integer key") }
            entries[key] = entry.value
        }
        self.entries = entries
        guard entries[StateKey.version]?.intValue == currentVersion else {
            throw CeremonyStateError(reason: "unknown version")
        }
    }

    func bytes(_ key: Int64) throws(CeremonyStateError) -> [UInt8] {
        guard let value = entries[key]?.bytesValue else { throw CeremonyStateError(reason: "member \(key) missing") }
        return value
    }

    func optionalBytes(_ key: Int64) throws(CeremonyStateError) -> [UInt8]? {
        guard let value = entries[key] else { return nil }
        guard let bytes = value.bytesValue else { throw CeremonyStateError(reason: "member \(key) is not bytes") }
        return bytes
    }

    func text(_ key: Int64) throws(CeremonyStateError) -> String {
        guard let value = entries[key]?.textValue else { throw CeremonyStateError(reason: "member \(key) missing") }
        return value
    }

    func optionalText(_ key: Int64) throws(CeremonyStateError) -> String? {
        guard let value = entries[key] else { return nil }
        guard let text = value.textValue else { throw CeremonyStateError(reason: "member \(key) is not text") }
        return text
    }

    func array(_ key: Int64) throws(CeremonyStateError) -> [CBORValue] {
        guard let value = entries[key]?.arrayValue else { throw CeremonyStateError(reason: "member \(key) missing") }
        return value
    }

    func userVerification() throws(CeremonyStateError) -> UserVerificationRequirement {
        guard let requirement = UserVerificationRequirement(rawValue: try text(StateKey.userVerification)) else {
            throw CeremonyStateError(reason: "unknown userVerification")
        }
        return requirement
    }

    func expiresAt() throws(CeremonyStateError) -> Date {
        guard case .float(let seconds)? = entries[StateKey.expiresAt], seconds.isFinite else {
            throw CeremonyStateError(reason: "expiresAt missing")
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }
}

private func legacyJSON<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws(CeremonyStateError) -> T {
    do {
        return try JSONDecoder().decode(type, from: Data(bytes))
    } catch {
        throw CeremonyStateError(reason: "legacy JSON state unreadable")
    }
}

extension AuthenticationState {
    /// The state as the store keeps it (CBOR).
    public var stateBytes: [UInt8] {
        var entries: [CBORMapEntry] = [
            CBORMapEntry(CBORValue(StateKey.version), CBORValue(currentVersion)),
            CBORMapEntry(CBORValue(StateKey.challenge), .bytes(challenge)),
            CBORMapEntry(CBORValue(StateKey.userVerification), .text(userVerification.rawValue)),
            CBORMapEntry(CBORValue(StateKey.expiresAt), .float(expiresAt.timeIntervalSinceReferenceDate)),
            CBORMapEntry(CBORValue(StateKey.allowCredentialIDs), .array(allowCredentialIDs.map { .bytes($0) })),
        ]
        if let userHandle { entries.append(CBORMapEntry(CBORValue(StateKey.userHandle), .bytes(userHandle))) }
        if let appID { entries.append(CBORMapEntry(CBORValue(StateKey.appID), .text(appID))) }
        return CBOREncoder.encode(.map(entries))
    }

    /// Reads ``stateBytes`` (or the JSON an earlier version stored).
    /// - Throws: ``CeremonyStateError`` when the bytes are neither.
    public init(stateBytes bytes: [UInt8]) throws(CeremonyStateError) {
        if bytes.first == jsonOpeningBrace {
            self = try legacyJSON(AuthenticationState.self, bytes)
            return
        }
        let reader = try StateReader(bytes)
        var allowed: [[UInt8]] = []
        for value in try reader.array(StateKey.allowCredentialIDs) {
            guard let id = value.bytesValue else { throw CeremonyStateError(reason: "credential id is not bytes") }
            allowed.append(id)
        }
        self.init(
            challenge: try reader.bytes(StateKey.challenge), userVerification: try reader.userVerification(),
            allowCredentialIDs: allowed, userHandle: try reader.optionalBytes(StateKey.userHandle),
            appID: try reader.optionalText(StateKey.appID), expiresAt: try reader.expiresAt())
    }
}

extension RegistrationState {
    /// The state as the store keeps it (CBOR).
    public var stateBytes: [UInt8] {
        var entries: [CBORMapEntry] = [
            CBORMapEntry(CBORValue(StateKey.version), CBORValue(currentVersion)),
            CBORMapEntry(CBORValue(StateKey.challenge), .bytes(challenge)),
            CBORMapEntry(CBORValue(StateKey.userVerification), .text(userVerification.rawValue)),
            CBORMapEntry(CBORValue(StateKey.expiresAt), .float(expiresAt.timeIntervalSinceReferenceDate)),
            CBORMapEntry(CBORValue(StateKey.userID), .bytes(user.id)),
            CBORMapEntry(CBORValue(StateKey.userName), .text(user.name)),
            CBORMapEntry(CBORValue(StateKey.userDisplayName), .text(user.displayName)),
            CBORMapEntry(CBORValue(StateKey.algorithms), .array(algorithms.map { CBORValue(Int64($0)) })),
        ]
        if let mediation { entries.append(CBORMapEntry(CBORValue(StateKey.mediation), .text(mediation.rawValue))) }
        return CBOREncoder.encode(.map(entries))
    }

    /// Reads ``stateBytes`` (or the JSON an earlier version stored).
    /// - Throws: ``CeremonyStateError`` when the bytes are neither.
    public init(stateBytes bytes: [UInt8]) throws(CeremonyStateError) {
        if bytes.first == jsonOpeningBrace {
            self = try legacyJSON(RegistrationState.self, bytes)
            return
        }
        let reader = try StateReader(bytes)
        var algorithms: [Int] = []
        for value in try reader.array(StateKey.algorithms) {
            guard let algorithm = value.intValue, let narrow = Int(exactly: algorithm) else {
                throw CeremonyStateError(reason: "algorithm is not an integer")
            }
            algorithms.append(narrow)
        }
        let id = try reader.bytes(StateKey.userID)
        let name = try reader.text(StateKey.userName)
        let displayName = try reader.text(StateKey.userDisplayName)
        guard let user = try? UserEntity(id: id, name: name, displayName: displayName) else {
            throw CeremonyStateError(reason: "invalid user entity")
        }
        var mediation: CredentialMediation?
        if let text = try reader.optionalText(StateKey.mediation) {
            // An unknown mediation (a newer instance's) is refused rather than read as a normal ceremony.
            guard let known = CredentialMediation(rawValue: text) else { throw CeremonyStateError(reason: "unknown mediation") }
            mediation = known
        }
        self.init(
            challenge: try reader.bytes(StateKey.challenge), user: user, userVerification: try reader.userVerification(),
            algorithms: algorithms, expiresAt: try reader.expiresAt(), mediation: mediation)
    }
}
