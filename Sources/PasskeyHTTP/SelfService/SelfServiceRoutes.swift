import PasskeyApp
import HTTPTypes
import Hummingbird
import PasskeyStore
import SessionCore
import WebAuthnCore
import WebAuthnModel

/// The signed-in person's own sign-in methods (present with sessions), authorized by passkeyd's access token
/// (`Authorization: Bearer <access token>`, its session active), no API key:
///
///     GET    /v1/me/credentials                    {"credentials": [...]}, oldest first, with provider names
///     PATCH  /v1/me/credentials/:credentialId      {"nickname": string|null} → {"credential"}
///     DELETE /v1/me/credentials/:credentialId      204 (recent sign-in; 409 last_sign_in_method)
///     POST   /v1/me/registration/begin             {"mediation"?, "authenticatorSelection"?, …} → options (recent sign-in)
///     POST   /v1/me/registration/finish            {"credential", "nickname"?} → 201 {"user", "credential"} (its begin's ceremony)
///     GET    /v1/me/identities                     {"identities": [...]} (with ID-token sign-in)
///     DELETE /v1/me/identities/:identityId         204 (recent sign-in; 409 last_sign_in_method)
///
/// Another user's credential or identity id answers 404 exactly as an unknown one. Every change is audited with the
/// user as actor (`user:<id>`).
func addSelfServiceRoutes(to router: Router<PasskeyRequestContext>, api: API, sessions: SessionService) {
    let me = MeRoutes(
        useCases: SelfService(
            policy: api.configuration.selfService, sessions: sessions, store: api.service.store, identities: api.identity?.identities))
    api.route(router, .meCredentials) { request, _, _ in
        let user = try await me.signedIn(request, recent: false)
        let list = try await me.useCases.credentials(ofUser: user).map {
            CredentialJSON($0, verified: nil, provider: api.service.provider(for: $0))
        }
        return try api.json(status: .ok, ["credentials": list])
    }
    api.route(router, .meRenameCredential) { request, body, context in
        let user = try await me.signedIn(request, recent: false)
        let id = try AdminAPI.id(context, "credentialId")
        let nickname = try AdminAPI.nickname(body)
        return try await RequestScope.acting(as: user) {
            let credential = try await me.useCases.renameCredential(id, ofUser: user, nickname: nickname, audit: RequestScope.audit)
            RequestScope.log(.credentialRenamed, user: user, credential: id)
            return try api.json(status: .ok, ["credential": CredentialJSON(credential, verified: nil, provider: api.service.provider(for: credential))])
        }
    }
    api.route(router, .meDeleteCredential) { request, _, context in
        let user = try await me.signedIn(request, recent: true)
        let id = try AdminAPI.id(context, "credentialId")
        return try await RequestScope.acting(as: user) {
            try await me.useCases.removeCredential(id, ofUser: user, audit: RequestScope.audit)
            RequestScope.log(.credentialDeleted, user: user, credential: id)
            return Response(status: .noContent)
        }
    }
    api.route(router, .meRegistrationBegin) { request, body, _ in
        let user = try await me.signedIn(request, recent: true)
        let members = body.isEmpty ? [:] : try api.object(body)
        if members["user"] != nil {
            throw APIError(status: 400, code: "malformed_json", message: "user is the signed-in person here; leave it out.")
        }
        try api.limitUser(.handle(user))
        let registration = try api.registrationRequest(members)
        let options = try await api.service.beginRegistration(for: .existingUser(handle: user), request: registration)
        return try api.beginAnswer(options, mediation: registration.mediation)
    }
    api.route(router, .meRegistrationFinish) { request, body, _ in
        // Recency was checked at begin; the ceremony is this person's and expires with its challenge. Checking it
        // again here would refuse a passkey the authenticator has already made (an orphan on the device).
        let user = try await me.signedIn(request, recent: false)
        return try await RequestScope.acting(as: user) { try await api.registrationFinish(body, forUser: user) }
    }
    guard api.identity != nil else { return }
    api.route(router, .meIdentities) { request, _, _ in
        let user = try await me.signedIn(request, recent: false)
        return try api.json(status: .ok, ["identities": try await me.useCases.identities(ofUser: user).map(IdentityJSON.init)])
    }
    api.route(router, .meUnlinkIdentity) { request, _, context in
        let user = try await me.signedIn(request, recent: true)
        let id = try AdminAPI.id(context, "identityId")
        return try await RequestScope.acting(as: user) {
            try await me.useCases.unlinkIdentity(id, ofUser: user, audit: RequestScope.audit)
            RequestScope.log(.identityUnlinked, user: user, identity: id)
            return Response(status: .noContent)
        }
    }
}


extension APIError {
    static let reauthenticationRequired = APIError(
        status: 401, code: "reauthentication_required",
        message: "This change needs a recent sign-in: sign in again, then retry with the new access token.")
    static let lastSignInMethod = APIError(
        status: 409, code: "last_sign_in_method",
        message: "This is the account's only way to sign in; add another passkey or identity first.")
    static let accessTokenRequired = APIError(
        status: 401, code: "unauthorized", message: "A Bearer access token from a passkeyd sign-in is required.")
}

/// The self-service routes' use cases and their bearer access token.
struct MeRoutes: Sendable {
    let useCases: SelfService

    /// The user of the request's access token (`Authorization: Bearer`; none is 401 `unauthorized`).
    func signedIn(_ request: Request, recent: Bool) async throws -> [UInt8] {
        guard let bearer = API.bearer(request) else { throw APIError.accessTokenRequired }
        return try await useCases.signedIn(accessToken: bearer, recent: recent)
    }
}

extension RequestScope {
    /// Runs `body` with the audit actor `user:<id>`: a change the signed-in person makes to their own account.
    static func acting<T: Sendable>(as user: [UInt8], _ body: () async throws -> T) async throws -> T {
        guard let scope = current?.acting(as: user) else { return try await body() }
        return try await $current.withValue(scope) {
            // The consequences of the person's own change are logged with their actor.
            defer { scope.logConsequences() }
            return try await body()
        }
    }
}
