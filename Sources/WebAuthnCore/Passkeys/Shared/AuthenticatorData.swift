public import CBORCodec

/// Authenticator data flags (§6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// User present.
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// User verified.
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// Backup eligible.
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// Backup state (backed up).
    public static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// Attested credential data included.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// Extension data included.
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)
}

/// Attested credential data (§6.5.1), present in registrations.
public struct AttestedCredentialData: Sendable {
    /// The authenticator's AAGUID (16 bytes).
    public let aaguid: [UInt8]
    /// The credential id (length checked against 1023 at its own verification step).
    public let credentialID: [UInt8]
    /// The credential public key exactly as the authenticator encoded it (the stored form).
    public let publicKeyBytes: [UInt8]
    /// The decoded COSE key.
    public let publicKey: CBORValue
}

/// How the bytes after signCount are laid out. WebAuthn's (§6.1, the default) follows the AT and ED flags; App Attest
/// reuses the format with two differences: its assertions set AT (0x40) yet carry no attested credential data, and
/// newer iOS versions append an extensions map without setting ED.
public struct AuthenticatorDataLayout: Sendable, Hashable {
    /// Attested credential data follows when AT is set (false: it never does, whatever AT says).
    public var attestedCredentialDataByFlag: Bool
    /// Bytes left after the attested credential data are read as one extensions map even when ED is clear (it
    /// must still be a single CBOR map that ends the data).
    public var extensionsWithoutFlag: Bool

    public init(attestedCredentialDataByFlag: Bool, extensionsWithoutFlag: Bool) {
        self.attestedCredentialDataByFlag = attestedCredentialDataByFlag
        self.extensionsWithoutFlag = extensionsWithoutFlag
    }

    /// WebAuthn §6.1: the flags say what follows, nothing else may.
    public static let webAuthn = AuthenticatorDataLayout(attestedCredentialDataByFlag: true, extensionsWithoutFlag: false)
}

/// Parsed authenticator data (§6.1): rpIdHash ‖ flags ‖ signCount ‖ [attested credential data] ‖ [extensions].
public struct AuthenticatorData: Sendable {
    /// The raw bytes, as signed.
    public let bytes: [UInt8]
    public let flags: AuthenticatorFlags
    public let signCount: UInt32
    public let attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs map, when ED is set.
    public let extensions: CBORValue?

    /// SHA-256 of the RP ID the authenticator used.
    public var rpIDHash: ArraySlice<UInt8> { bytes[0..<32] }

    /// CBOR limits for the COSE key: CTAP2 canonical integers, small and shallow.
    static let coseKeyLimits = CBORLimits(
        maxInputBytes: 4096, maxDepth: 4, maxItems: 64, maxStringBytes: 2048,
        allowIndefiniteLength: false, requireMinimalIntegers: true)
    /// CBOR limits for authenticator extension outputs.
    static let extensionLimits = CBORLimits(
        maxInputBytes: 16384, maxDepth: 8, maxItems: 512, maxStringBytes: 8192,
        allowIndefiniteLength: true, requireMinimalIntegers: false)

    /// Parses authenticator data. Everything must be consumed: leftover bytes are an error.
    /// - Parameters:
    ///   - bytes: the authenticator data.
    ///   - layout: what follows signCount (WebAuthn's unless a format defines its own).
    /// - Throws: `malformedAuthenticatorData` (or `invalidPublicKey` when the COSE key is not CBOR).
    public init(bytes: [UInt8], layout: AuthenticatorDataLayout = .webAuthn) throws(WebAuthnError) {
        guard bytes.count >= 37 else {
            throw WebAuthnError(.malformedAuthenticatorData, "authenticator data is \(bytes.count) bytes, at least 37 needed")
        }
        self.bytes = bytes
        let flags = AuthenticatorFlags(rawValue: bytes[32])
        self.flags = flags
        self.signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        var offset = 37

        if flags.contains(.attestedCredentialData) && layout.attestedCredentialDataByFlag {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError(.malformedAuthenticatorData, "AT set but attested credential data is truncated")
            }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength > 0, bytes.count - offset >= idLength else {
                throw WebAuthnError(.malformedAuthenticatorData, "credentialIdLength \(idLength) exceeds the data")
            }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let key: CBORValue
            let keyLength: Int
            do {
                (key, keyLength) = try CBORDecoder.decodePrefix(bytes[offset...], limits: Self.coseKeyLimits)
            } catch {
                throw WebAuthnError(.malformedAuthenticatorData, "credential public key: \(error)")
            }
            attestedCredentialData = AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID,
                publicKeyBytes: Array(bytes[offset..<offset + keyLength]), publicKey: key)
            offset += keyLength
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) || (layout.extensionsWithoutFlag && offset < bytes.count) {
            guard offset < bytes.count else {
                throw WebAuthnError(.malformedAuthenticatorData, "ED set but no extension data")
            }
            let value: CBORValue
            do {
                value = try CBORDecoder.decode(bytes[offset...], limits: Self.extensionLimits)
            } catch {
                throw WebAuthnError(.malformedAuthenticatorData, "extensions: \(error)")
            }
            guard value.mapEntries != nil else {
                throw WebAuthnError(.malformedAuthenticatorData, "extensions are not a CBOR map")
            }
            extensions = value
            offset = bytes.count
        } else {
            extensions = nil
        }

        guard offset == bytes.count else {
            throw WebAuthnError(.malformedAuthenticatorData, "\(bytes.count - offset) leftover bytes after authenticator data")
        }
    }
}

/// The flag checks both ceremonies run in the same order: §7.1 steps 15–17 / §7.2 steps 16–18.
enum FlagChecks {
    static func verify(
        _ flags: AuthenticatorFlags, userVerificationRequired: Bool, allowMissingUserPresence: Bool
    ) throws(WebAuthnError) {
        // "Verify that the UP bit of the flags in authData is set."
        guard flags.contains(.userPresent) || allowMissingUserPresence else {
            throw WebAuthnError(.userNotPresent, "UP flag clear")
        }
        // "If user verification is required ..., verify that the UV bit of the flags in authData is set."
        if userVerificationRequired, !flags.contains(.userVerified) {
            throw WebAuthnError(.userNotVerified, "UV flag clear")
        }
        // "If the BE bit of the flags in authData is not set, verify that the BS bit is not set."
        guard flags.contains(.backupEligible) || !flags.contains(.backupState) else {
            throw WebAuthnError(.backupStateInvalid, "BS set without BE")
        }
    }
}
