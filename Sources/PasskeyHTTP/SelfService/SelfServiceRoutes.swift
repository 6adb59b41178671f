import PasskeyApp
public import Foundation
import HTTPTypes
import Hummingbird
import PasskeyStore
import SessionCore
import WebAuthnCore
import WebAuthnModel

/// The self-service API's rules.
public struct SelfServicePolicy: Sendable, Hashable {
    /// How recent the access token's `auth_time` must be to add or remove a sign-in method
    /// (`PASSKEYD_REAUTHENTICATION_WINDOW`, default 5 minutes): a stolen access token alone cannot add an attacker's
    /// passkey. Past it: 401 `reauthentication_required`.
    public var reauthenticationWindow: Duration = .seconds(300)
    /// Whether a person may remove their last way to sign in (`PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD`); off:
    /// 409 `last_sign_in_method`.
    public var allowRemovingLastSignInMethod = false

    public init(reauthenticationWindow: Duration = .seconds(300), allowRemovingLastSignInMethod: Bool = false) {
        self.reauthenticationWindow = reauthenticationWindow
        self.allowRemovingLastSignInMethod = allowRemovingLastSignInMethod
    }

    /// Whether a sign-in at `authTime` (whole seconds since 1970) is recent enough at `now`: at most the window ago.
    public func isRecent(authTime: Int64, now: Date) -> Bool {
        let (seconds, attoseconds) = reauthenticationWindow.components
        return now.timeIntervalSince1970 - Double(authTime) <= Double(seconds) + Double(attoseconds) / 1e18
    }
}

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
    let me = SelfService(api: api, sessions: sessions)
    router.get("/v1/me/credentials") { request, context in
        await api.handle(request, context, .meCredentials) { _, _ in
            let user = try await me.signedIn(request, recent: false)
            let list = try await api.service.store.credentials(ofUser: user).map {
                CredentialJSON($0, verified: nil, provider: api.service.provider(for: $0))
            }
            return try api.json(status: .ok, ["credentials": list])
        }
    }
    router.patch("/v1/me/credentials/:credentialId") { request, context in
        await api.handle(request, context, .meRenameCredential) { body, context in
            let user = try await me.signedIn(request, recent: false)
            let id = try AdminAPI.id(context, "credentialId")
            let nickname = try AdminAPI.nickname(body)
            return try await RequestScope.acting(as: user) {
                guard let credential = try await api.service.store.renameCredential(
                    id: id, ofUser: user, nickname: nickname, audit: RequestScope.audit)
                else { throw APIError.credentialUnknown }
                RequestScope.log(.credentialRenamed, user: user, credential: id)
                return try api.json(status: .ok, ["credential": CredentialJSON(credential, verified: nil, provider: api.service.provider(for: credential))])
            }
        }
    }
    router.delete("/v1/me/credentials/:credentialId") { request, context in
        await api.handle(request, context, .meDeleteCredential) { _, context in
            let user = try await me.signedIn(request, recent: true)
            let id = try AdminAPI.id(context, "credentialId")
            return try await RequestScope.acting(as: user) {
                let outcome = try await api.service.store.removeCredential(
                    id: id, ofUser: user, keepingLastSignInMethod: !api.configuration.selfService.allowRemovingLastSignInMethod,
                    audit: RequestScope.audit)
                try SelfService.check(outcome, unknown: .credentialUnknown)
                RequestScope.log(.credentialDeleted, user: user, credential: id)
                return Response(status: .noContent)
            }
        }
    }
    router.post("/v1/me/registration/begin") { request, context in
        await api.handle(request, context, .meRegistrationBegin) { body, _ in
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
    }
    router.post("/v1/me/registration/finish") { request, context in
        await api.handle(request, context, .meRegistrationFinish) { body, _ in
            // Recency was checked at begin; the ceremony is this person's and expires with its challenge. Checking it
            // again here would refuse a passkey the authenticator has already made (an orphan on the device).
            let user = try await me.signedIn(request, recent: false)
            return try await RequestScope.acting(as: user) { try await api.registrationFinish(body, forUser: user) }
        }
    }
    guard let identities = api.identity?.identities else { return }
    router.get("/v1/me/identities") { request, context in
        await api.handle(request, context, .meIdentities) { _, _ in
            let user = try await me.signedIn(request, recent: false)
            return try api.json(status: .ok, ["identities": try await identities.identities(ofUser: user).map(IdentityJSON.init)])
        }
    }
    router.delete("/v1/me/identities/:identityId") { request, context in
        await api.handle(request, context, .meUnlinkIdentity) { _, context in
            let user = try await me.signedIn(request, recent: true)
            let id = try AdminAPI.id(context, "identityId")
            return try await RequestScope.acting(as: user) {
                let outcome = try await identities.unlinkIdentity(
                    id: id, ofUser: user, keepingLastSignInMethod: !api.configuration.selfService.allowRemovingLastSignInMethod,
                    audit: RequestScope.audit)
                try SelfService.check(outcome, unknown: .identityUnknown)
                RequestScope.log(.identityUnlinked, user: user, identity: id)
                return Response(status: .noContent)
            }
        }
    }
}

extension Operation {
    static let meCredentials = Operation(name: "me_credentials", access: .public)
    static let meRenameCredential = Operation(name: "me_rename_credential", access: .public)
    static let meDeleteCredential = Operation(name: "me_delete_credential", access: .public)
    static let meRegistrationBegin = Operation(name: "me_registration_begin", access: .public)
    static let meRegistrationFinish = Operation(name: "me_registration_finish", access: .public)
    static let meIdentities = Operation(name: "me_identities", access: .public)
    static let meUnlinkIdentity = Operation(name: "me_unlink_identity", access: .public)
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

/// The access-token check of the self-service routes.
struct SelfService: Sendable {
    let api: API
    let sessions: SessionService

    /// The user of the request's access token (its session active); with `recent`, refused with
    /// `reauthentication_required` unless its `auth_time` is within the reauthentication window.
    func signedIn(_ request: Request, recent: Bool) async throws -> [UInt8] {
        guard let bearer = API.bearer(request) else { throw APIError.accessTokenRequired }
        let (claims, session) = try await sessions.verify(accessToken: bearer, requireActiveSession: true)
        guard let session else { throw SessionError(.sessionRevoked, "no session") }
        if recent, !api.configuration.selfService.isRecent(authTime: claims.authTime, now: sessions.now()) {
            throw APIError.reauthenticationRequired
        }
        return session.userHandle
    }

    static func check(_ outcome: SignInMethodRemoval, unknown: APIError) throws {
        switch outcome {
        case .removed: return
        case .unknown: throw unknown
        case .lastSignInMethod: throw APIError.lastSignInMethod
        }
    }
}

extension RequestScope {
    /// Runs `body` with the audit actor `user:<id>`: a change the signed-in person makes to their own account.
    static func acting<T: Sendable>(as user: [UInt8], _ body: () async throws -> T) async throws -> T {
        guard var scope = current else { return try await body() }
        scope.userActor = user
        return try await $current.withValue(scope) { try await body() }
    }
}
