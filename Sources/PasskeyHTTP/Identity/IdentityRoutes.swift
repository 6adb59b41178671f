import PasskeyApp
import Foundation
import Hummingbird
import IdentityCore
import PasskeyStore
import WebAuthnModel

/// `POST /v1/idtoken/begin` and `/v1/idtoken/finish`: native sign-in with a provider's ID token, bound to a nonce
/// passkeyd issued. Same access as the passkey ceremonies (the backend's API key).
func addIdentityRoutes(to router: Router<PasskeyRequestContext>, api: API, signIn: IdentitySignIn) {
    api.route(router, .idTokenBegin) { _, body, _ in try await api.idTokenBegin(body, service: signIn.identity) }
    api.route(router, .idTokenFinish) { _, body, _ in try await api.idTokenFinish(body, signIn: signIn) }
}


/// `{"session", "nonce", "providerNonce", "expiresAt"}`.
struct IDTokenBeginJSON: Encodable {
    let session: String
    let provider: String
    let nonce: String
    let providerNonce: String
    let expiresAt: Date
}

/// A provider identity as the API shows it.
struct IdentityJSON: Encodable {
    let id: String
    let provider: String
    let issuer: String
    let subject: String
    let email: String?
    let emailVerified: Bool?
    let isPrivateEmail: Bool?
    let realUserStatus: Int?
    let createdAt: Date
    let lastUsedAt: Date?

    init(_ identity: StoredIdentity) {
        id = Base64URL.encode(identity.id)
        provider = identity.provider
        issuer = identity.issuer
        subject = identity.subject
        email = identity.email
        emailVerified = identity.emailVerified
        isPrivateEmail = identity.isPrivateEmail
        realUserStatus = identity.realUserStatus
        createdAt = identity.createdAt
        lastUsedAt = identity.lastUsedAt
    }

    func encode(to encoder: any Encoder) throws {
        // Optional members are written as null rather than left out, like the credential's.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(provider, forKey: .provider)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(subject, forKey: .subject)
        try container.encode(email, forKey: .email)
        try container.encode(emailVerified, forKey: .emailVerified)
        try container.encode(isPrivateEmail, forKey: .isPrivateEmail)
        try container.encode(realUserStatus, forKey: .realUserStatus)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, issuer, subject, email, emailVerified, isPrivateEmail, realUserStatus, createdAt, lastUsedAt
    }
}

/// `{"user", "identity", "created"}`.
struct IDTokenFinishJSON: Encodable {
    let user: UserJSON
    let identity: IdentityJSON
    /// Whether this sign-in created the user.
    let created: Bool
    /// Whether this sign-in attached the identity (its first use).
    let linked: Bool
    /// With sessions on.
    let session: SessionJSON?
}

/// A session in a sign-in answer: `{"accessToken", "tokenType", "expiresIn", "refreshToken", "refreshExpiresIn", "sessionId"}`.
struct SessionJSON: Encodable {
    let accessToken: String
    let tokenType = "Bearer"
    let expiresIn: Int
    let refreshToken: String
    let refreshExpiresIn: Int
    let sessionId: String

    init(_ issued: SessionService.Issued) {
        accessToken = issued.accessToken
        expiresIn = issued.expiresIn
        refreshToken = issued.refreshToken
        refreshExpiresIn = issued.refreshExpiresIn
        sessionId = Base64URL.encode(issued.sessionID)
    }
}

extension API {
    func idTokenBegin(_ body: [UInt8], service: IdentityService) async throws -> Response {
        let members = try object(body)
        guard case .string(let provider)? = members["provider"] else {
            throw APIError(status: 400, code: "malformed_json", message: "provider is required.")
        }
        let result = try await service.begin(provider: provider)
        return try json(status: .ok, IDTokenBeginJSON(
            session: Base64URL.encode(result.session.id), provider: provider, nonce: result.session.nonce,
            providerNonce: result.providerNonce, expiresAt: result.session.expiresAt))
    }

    func idTokenFinish(_ body: [UInt8], signIn: IdentitySignIn) async throws -> Response {
        let members = try object(body)
        guard case .string(let sessionText)? = members["session"], case .string(let provider)? = members["provider"],
              case .string(let token)? = members["idToken"]
        else {
            throw APIError(status: 400, code: "malformed_json", message: "session, provider and idToken are required strings.")
        }
        guard let sessionID = Base64URL.decodeStrict(sessionText) else {
            throw APIError(status: 400, code: "malformed_base64", message: "session is not base64url.")
        }
        var authorizationCode: String?
        switch members["authorizationCode"] {
        case nil, .null?: break
        case .string(let code)? where !code.isEmpty && code.utf8.count <= 1024: authorizationCode = code
        default: throw APIError(status: 400, code: "malformed_json", message: "authorizationCode must be a string of 1-1024 bytes.")
        }
        let link = try Self.identityLink(members["user"])
        // Per provider and outcome (only configured names become labels).
        let label = signIn.identity.providers[provider] == nil ? "unknown" : provider
        let signedIn: IdentitySignIn.SignedIn
        do {
            signedIn = try await signIn.finish(
                sessionID: sessionID, provider: provider, token: Array(token.utf8), link: link, authorizationCode: authorizationCode,
                audit: RequestScope.audit)
        } catch {
            metrics.recordSignIn(provider: label, code: FailedRequest(error).error.code)
            throw error
        }
        metrics.recordSignIn(provider: label, code: nil)
        if signedIn.createdUser { RequestScope.log(.userCreated, user: signedIn.user.handle) }
        if signedIn.linkedIdentity { RequestScope.log(.identityLinked, user: signedIn.user.handle, identity: signedIn.identity.id) }
        // A session that failed to start fails the request, after the sign-in is counted and logged (it is stored).
        let session = try signedIn.session().map(SessionJSON.init)
        return try json(status: signedIn.createdUser ? .created : .ok, IDTokenFinishJSON(
            user: UserJSON(signedIn.user), identity: IdentityJSON(signedIn.identity), created: signedIn.createdUser,
            linked: signedIn.linkedIdentity, session: session))
    }

    /// `"user"`: absent (a new identity gets a new user named `provider:subject`), `{"name", "displayName"?}` (the
    /// name of that new user; a taken name is 409 `user_exists`, never a link), or `{"id"}` (attach a new identity to
    /// this existing user, whom the backend has authenticated).
    static func identityLink(_ value: JSONValue?) throws -> IdentityLinkRequest {
        switch value {
        case nil, .null?:
            return .create(name: nil, displayName: nil)
        case .object(let user)?:
            switch (user["name"], user["id"]) {
            case (.string(let name)?, nil):
                guard !name.isEmpty, API.isText(name) else {
                    throw APIError(status: 400, code: "malformed_json", message: "user.name must be 1-256 characters.")
                }
                var displayName: String?
                switch user["displayName"] {
                case nil, .null?: break
                case .string(let text)? where API.isText(text): displayName = text
                default: throw APIError(status: 400, code: "malformed_json", message: "user.displayName must be a string of at most 256 characters.")
                }
                return .create(name: name, displayName: displayName)
            case (nil, .string(let id)?):
                guard user["displayName"] == nil else {
                    throw APIError(status: 400, code: "malformed_json", message: "user.displayName belongs to a new user; an existing user keeps theirs.")
                }
                return .attach(try userHandle(id))
            default:
                throw APIError(status: 400, code: "malformed_json", message: "user needs exactly one of name (a new user) and id (an existing user).")
            }
        default:
            throw APIError.malformedJSON
        }
    }
}
