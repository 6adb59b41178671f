public import Foundation

/// An authenticator model identifier (16 bytes), written as a lowercase UUID string.
public struct AAGUID: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// Wraps 16 bytes.
    /// - Parameter bytes: the AAGUID as in attested credential data.
    /// - Returns: nil unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses `"cb69481e-8ff7-4039-93ec-0a2729a154a8"` (dashes optional, any case).
    /// - Parameter string: the UUID text.
    /// - Returns: nil unless 32 hex digits remain after removing dashes.
    public init?(_ string: String) {
        let hex = Array(string.utf8.filter { $0 != UInt8(ascii: "-") })
        guard hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// The all-zero AAGUID (U2F authenticators, and platforms that hide the model).
    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes the UUID text form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = AAGUID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an AAGUID"))
        }
        self = value
    }

    /// Encodes the UUID text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A FIDO Metadata `AuthenticatorStatus` (FIDO Metadata Service v3 §3.1.4). An open set: unknown values from a
/// newer BLOB are kept as they are.
public struct AuthenticatorStatus: Sendable, Hashable, RawRepresentable, CustomStringConvertible, Codable {
    /// The status as written in the BLOB, e.g. `"REVOKED"`.
    public let rawValue: String
    /// Wraps a status string (known or not).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a status string (known or not).
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The status string.
    public var description: String { rawValue }

    /// The authenticator is not FIDO certified.
    public static let notFIDOCertified = AuthenticatorStatus("NOT_FIDO_CERTIFIED")
    /// The authenticator passed FIDO functional certification.
    public static let fidoCertified = AuthenticatorStatus("FIDO_CERTIFIED")
    /// Malware can bypass the authenticator's user verification.
    public static let userVerificationBypass = AuthenticatorStatus("USER_VERIFICATION_BYPASS")
    /// An attestation key of this model has been compromised.
    public static let attestationKeyCompromise = AuthenticatorStatus("ATTESTATION_KEY_COMPROMISE")
    /// Credential keys can be extracted or misused remotely.
    public static let userKeyRemoteCompromise = AuthenticatorStatus("USER_KEY_REMOTE_COMPROMISE")
    /// Credential keys can be extracted with physical access.
    public static let userKeyPhysicalCompromise = AuthenticatorStatus("USER_KEY_PHYSICAL_COMPROMISE")
    /// A firmware update is available.
    public static let updateAvailable = AuthenticatorStatus("UPDATE_AVAILABLE")
    /// The vendor or FIDO revoked the model: its attestations must not be trusted.
    public static let revoked = AuthenticatorStatus("REVOKED")
    /// The vendor submitted a self-assertion checklist.
    public static let selfAssertionSubmitted = AuthenticatorStatus("SELF_ASSERTION_SUBMITTED")

    /// REVOKED, USER_VERIFICATION_BYPASS, ATTESTATION_KEY_COMPROMISE, USER_KEY_REMOTE_COMPROMISE,
    /// USER_KEY_PHYSICAL_COMPROMISE.
    public static let defaultRefused: Set<AuthenticatorStatus> = [
        .revoked, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise, .userKeyPhysicalCompromise,
    ]
}

/// How android-safetynet attestations are judged beyond their signature and chain.
public struct SafetyNetPolicy: Sendable, Hashable {
    /// Require `ctsProfileMatch: true` (a device that passed Android compatibility testing). Default true;
    /// setting it false accepts rooted or uncertified devices whose `basicIntegrity` may still hold.
    public var requireCTSProfileMatch: Bool = true
    /// The oldest acceptable `timestampMs`, relative to the verification time. Default 60 s: the response is
    /// fetched during the ceremony.
    public var maxAge: TimeInterval = 60
    /// How far `timestampMs` may lie in the future of the verification time (clock skew). Default 60 s.
    public var maxFutureSkew: TimeInterval = 60
    /// Skip the `timestampMs` window entirely (replaying old recorded responses in tests). Unsafe: a captured
    /// SafetyNet response could be reused with the same authenticator data for as long as the chain is valid.
    public var skipTimestampCheckUnsafe: Bool = false

    /// The defaults above.
    public init() {}
}
