// The W3C JSON forms (WebAuthn Level 3 §5.1) passkeyd sends and takes: the options a begin answers with (hand them
// to `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON` on a page, or to
// ASAuthorization on Apple's platforms), and the credentials `PublicKeyCredential.toJSON()` gives back. Binary members
// are base64url strings, as on the wire. Names as openapi.json's schemas.

/// `PublicKeyCredentialCreationOptionsJSON`.
public struct PublicKeyCredentialCreationOptionsJSON: Sendable, Codable, Equatable {
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntityJSON
    public var challenge: String
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    /// Milliseconds.
    public var timeout: Int?
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    public var authenticatorSelection: AuthenticatorSelectionCriteria
    /// `security-key`, `client-device`, `hybrid`.
    public var hints: [String]?
    /// `none`, `indirect`, `direct` or `enterprise`.
    public var attestation: String
    public var attestationFormats: [String]?
    /// Extension inputs: the requested ones plus `credProps: true`.
    public var extensions: [String: JSONValue]
}

/// `PublicKeyCredentialRequestOptionsJSON`.
public struct PublicKeyCredentialRequestOptionsJSON: Sendable, Codable, Equatable {
    public var challenge: String
    /// Milliseconds.
    public var timeout: Int?
    public var rpId: String
    /// Empty for a discoverable-credential request.
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String
    public var hints: [String]?
    /// Extension inputs: the requested ones, plus `appid` when a legacy U2F AppID is configured.
    public var extensions: [String: JSONValue]?
}

/// `PublicKeyCredentialRpEntity`.
public struct PublicKeyCredentialRpEntity: Sendable, Codable, Equatable {
    public var id: String?
    public var name: String
}

/// `PublicKeyCredentialUserEntityJSON` (`id`: the user handle, base64url).
public struct PublicKeyCredentialUserEntityJSON: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var displayName: String
}

/// `PublicKeyCredentialParameters`.
public struct PublicKeyCredentialParameters: Sendable, Codable, Equatable {
    public var type: String
    /// A COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, …).
    public var alg: Int
}

/// `PublicKeyCredentialDescriptorJSON` (`id` base64url).
public struct PublicKeyCredentialDescriptorJSON: Sendable, Codable, Equatable {
    public var type: String
    public var id: String
    /// `usb`, `nfc`, `ble`, `smart-card`, `hybrid`, `internal`.
    public var transports: [String]?

    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `AuthenticatorSelectionCriteria`: in a begin, the criteria asked for (unknown values are ignored, and user
/// verification is never weaker than the server's policy); in the options, the ones the server asks the client for.
public struct AuthenticatorSelectionCriteria: Sendable, Codable, Equatable {
    /// `platform` or `cross-platform`.
    public var authenticatorAttachment: String?
    /// `required`, `preferred` or `discouraged`.
    public var residentKey: String?
    public var requireResidentKey: Bool?
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String?

    public init(
        authenticatorAttachment: String? = nil, residentKey: String? = nil, requireResidentKey: Bool? = nil,
        userVerification: String? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }
}

/// `RegistrationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `navigator.credentials.create()`
/// (decode the page's JSON into it), or what an app builds from `ASAuthorizationPlatformPublicKeyCredentialRegistration`.
public struct RegistrationResponseJSON: Sendable, Codable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: [String: JSONValue]?

    public init(
        id: String, rawId: String, type: String = "public-key", response: AuthenticatorAttestationResponseJSON,
        authenticatorAttachment: String? = nil, clientExtensionResults: [String: JSONValue]? = [:]
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }
}

/// `AuthenticatorAttestationResponseJSON`.
public struct AuthenticatorAttestationResponseJSON: Sendable, Codable, Equatable {
    public var clientDataJSON: String
    public var attestationObject: String
    public var authenticatorData: String?
    public var transports: [String]?
    public var publicKey: String?
    public var publicKeyAlgorithm: Int?

    public init(
        clientDataJSON: String, attestationObject: String, authenticatorData: String? = nil,
        transports: [String]? = nil, publicKey: String? = nil, publicKeyAlgorithm: Int? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }
}

/// `AuthenticationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `navigator.credentials.get()`.
public struct AuthenticationResponseJSON: Sendable, Codable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: [String: JSONValue]?

    public init(
        id: String, rawId: String, type: String = "public-key", response: AuthenticatorAssertionResponseJSON,
        authenticatorAttachment: String? = nil, clientExtensionResults: [String: JSONValue]? = [:]
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }
}

/// `AuthenticatorAssertionResponseJSON`.
public struct AuthenticatorAssertionResponseJSON: Sendable, Codable, Equatable {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    /// The user handle, base64url; required for a discoverable-credential request.
    public var userHandle: String?

    public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

// MARK: extension inputs of a begin

/// The client extension inputs a registration begin may ask for (passed through to `publicKey.extensions`; passkeyd
/// always adds `credProps: true`). Anything else is 400 `extension_unsupported`.
public struct RegistrationExtensionInputs: Sendable, Codable, Equatable {
    /// `credProps`: only `true`.
    public var credProps: Bool?
    /// `prf`: only `eval` in a registration.
    public var prf: PRF?
    /// `largeBlob`: only `support` in a registration.
    public var largeBlob: LargeBlob?
    /// CTAP credProtect: `userVerificationOptional`, `userVerificationOptionalWithCredentialIDList` or
    /// `userVerificationRequired`.
    public var credentialProtectionPolicy: String?
    public var enforceCredentialProtectionPolicy: Bool?
    /// CTAP minPinLength: only `true`.
    public var minPinLength: Bool?

    public init(
        credProps: Bool? = nil, prf: PRF? = nil, largeBlob: LargeBlob? = nil, credentialProtectionPolicy: String? = nil,
        enforceCredentialProtectionPolicy: Bool? = nil, minPinLength: Bool? = nil
    ) {
        self.credProps = credProps
        self.prf = prf
        self.largeBlob = largeBlob
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        self.minPinLength = minPinLength
    }

    public struct PRF: Sendable, Codable, Equatable {
        public var eval: PRFValues?
        public init(eval: PRFValues? = nil) { self.eval = eval }
    }

    public struct LargeBlob: Sendable, Codable, Equatable {
        /// `required` or `preferred`.
        public var support: String?
        public init(support: String? = nil) { self.support = support }
    }
}

/// The client extension inputs a sign-in begin may ask for (passed through to `publicKey.extensions`).
public struct AuthenticationExtensionInputs: Sendable, Codable, Equatable {
    public var prf: PRF?
    /// Exactly one of `read: true` and `write` (base64url).
    public var largeBlob: LargeBlob?

    public init(prf: PRF? = nil, largeBlob: LargeBlob? = nil) {
        self.prf = prf
        self.largeBlob = largeBlob
    }

    public struct PRF: Sendable, Codable, Equatable {
        public var eval: PRFValues?
        /// Salts per credential id (base64url), at most 64; only the user's `allowCredentials` are kept.
        public var evalByCredential: [String: PRFValues]?
        public init(eval: PRFValues? = nil, evalByCredential: [String: PRFValues]? = nil) {
            self.eval = eval
            self.evalByCredential = evalByCredential
        }
    }

    public struct LargeBlob: Sendable, Codable, Equatable {
        public var read: Bool?
        public var write: String?
        /// Read the credential's large blob.
        public static let read = LargeBlob(read: true, write: nil)
        /// Store `blob` (base64url) in the credential's large blob.
        public static func write(_ blob: String) -> LargeBlob { LargeBlob(read: nil, write: blob) }
        public init(read: Bool? = nil, write: String? = nil) {
            self.read = read
            self.write = write
        }
    }
}

/// `AuthenticationExtensionsPRFValues`: PRF salts, each 1 to 64 bytes, base64url.
public struct PRFValues: Sendable, Codable, Equatable {
    public var first: String
    public var second: String?
    public init(first: String, second: String? = nil) {
        self.first = first
        self.second = second
    }
}
