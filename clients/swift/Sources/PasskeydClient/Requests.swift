// The request bodies, as openapi.json's request schemas (members left out when nil, but where a schema wants null).

struct RegistrationBeginBody: Encodable {
    var user: NewOrExistingUser
    var authenticatorSelection: AuthenticatorSelectionCriteria?
    var attestation: String?
    var hints: [String]?
    var extensions: RegistrationExtensionInputs?
    var mediation: Mediation?
}

struct MeRegistrationBeginBody: Encodable {
    var authenticatorSelection: AuthenticatorSelectionCriteria?
    var attestation: String?
    var hints: [String]?
    var extensions: RegistrationExtensionInputs?
    var mediation: Mediation?
}

struct RegistrationFinishBody: Encodable {
    var credential: RegistrationResponseJSON
    var nickname: String?
}

struct CreateUserBody: Encodable {
    var name: String
    var displayName: String?
}

struct AuthenticationBeginBody: Encodable {
    var user: SignInUser?
    var userVerification: String?
    var extensions: AuthenticationExtensionInputs?
}

struct AuthenticationFinishBody: Encodable {
    var credential: AuthenticationResponseJSON
}

struct IDTokenBeginBody: Encodable {
    var provider: String
}

struct IDTokenFinishBody: Encodable {
    var session: String
    var provider: String
    var idToken: String
    var authorizationCode: String?
    var user: NewOrExistingUser?
}

struct RefreshBody: Encodable {
    var refreshToken: String?
}

struct IntrospectionBody: Encodable {
    var token: String
}

struct HandoffBody: Encodable {
    var userId: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?
}

struct HandoffExchangeBody: Encodable {
    var code: String
    var codeVerifier: String?
    var cookie: Bool?
}

/// `nickname` is required and nullable: nil is sent as null (clears it).
struct RenameBody: Encodable {
    var nickname: String?

    enum CodingKeys: String, CodingKey { case nickname }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nickname, forKey: .nickname)
    }
}

struct AppStoreTransactionBody: Encodable {
    var userId: String
    var signedTransaction: String
}

struct AppStoreRenewalBody: Encodable {
    var signedRenewalInfo: String
}

struct AppStoreNotificationBody: Encodable {
    var signedPayload: String
}

struct EmptyBody: Encodable {}

struct AppAttestAttestationBody: Encodable {
    var keyId: String
    var attestationObject: String
    var challenge: String
    var userId: String?
}

struct AppAttestAssertionBody: Encodable {
    var keyId: String
    var assertion: String
    var clientData: String
}

struct ConformanceCreationOptionsBody: Encodable {
    var username: String
    var displayName: String?
    var authenticatorSelection: AuthenticatorSelectionCriteria?
    var attestation: String?
    var extensions: [String: JSONValue]?
}

struct ConformanceGetOptionsBody: Encodable {
    var username: String
    var userVerification: String?
    var extensions: [String: JSONValue]?
}

/// The profile's `ServerPublicKeyCredential` from a W3C credential: `getClientExtensionResults` for
/// `clientExtensionResults`, the response's members the profile names.
struct ConformanceAttestationBody: Encodable {
    struct Response: Encodable {
        var clientDataJSON: String
        var attestationObject: String
    }
    var id: String
    var rawId: String
    var type: String
    var getClientExtensionResults: [String: JSONValue]?
    var response: Response

    init(_ credential: RegistrationResponseJSON) {
        id = credential.id
        rawId = credential.rawId
        type = credential.type
        getClientExtensionResults = credential.clientExtensionResults
        response = Response(
            clientDataJSON: credential.response.clientDataJSON, attestationObject: credential.response.attestationObject)
    }
}

struct ConformanceAssertionBody: Encodable {
    struct Response: Encodable {
        var clientDataJSON: String
        var authenticatorData: String
        var signature: String
        var userHandle: String?
    }
    var id: String
    var rawId: String
    var type: String
    var getClientExtensionResults: [String: JSONValue]?
    var response: Response

    init(_ credential: AuthenticationResponseJSON) {
        id = credential.id
        rawId = credential.rawId
        type = credential.type
        getClientExtensionResults = credential.clientExtensionResults
        response = Response(
            clientDataJSON: credential.response.clientDataJSON, authenticatorData: credential.response.authenticatorData,
            signature: credential.response.signature, userHandle: credential.response.userHandle)
    }
}
