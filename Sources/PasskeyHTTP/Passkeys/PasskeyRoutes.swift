import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

/// The passkey ceremonies: registration and authentication begin and finish, and creating a user without a sign-in
/// method yet (`POST /v1/users`) for a backend's password users about to be upgraded.
func addPasskeyRoutes(to router: Router<PasskeyRequestContext>, api: API) {
    api.route(router, .registrationBegin) { _, body, _ in try await api.registrationBegin(body) }
    api.route(router, .registrationFinish) { _, body, _ in try await api.registrationFinish(body) }
    api.route(router, .createUser) { _, body, _ in try await api.createUser(body) }
    api.route(router, .authenticationBegin) { _, body, _ in try await api.authenticationBegin(body) }
    api.route(router, .authenticationFinish) { _, body, _ in try await api.authenticationFinish(body) }
}


extension API {

    func registrationBegin(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        let subject = try Self.registrationSubject(members["user"])
        switch subject {
        case .newUser(let name, _), .nameForConformanceTesting(let name, _): try limitUser(.name(name))
        case .existingUser(let handle): try limitUser(.handle(handle))
        }
        let request = try registrationRequest(members)
        let options = try await service.beginRegistration(for: subject, request: request)
        return try beginAnswer(options, mediation: request.mediation)
    }

    /// The caller's choices of a registration begin (everything but `user`).
    func registrationRequest(_ members: [String: JSONValue]) throws -> RegistrationRequest {
        RegistrationRequest(
            authenticatorSelection: try decode(AuthenticatorSelectionJSON.self, members["authenticatorSelection"]),
            attestation: try decode(String.self, members["attestation"]), hints: try decode([String].self, members["hints"]),
            extensions: try extensionInputs(members["extensions"], for: .registration),
            mediation: try Self.mediation(members["mediation"]))
    }

    /// `{"publicKey": options}`, with `"mediation": "conditional"` for an automatic upgrade (the client passes both to
    /// `navigator.credentials.create`).
    func beginAnswer(_ options: CreationOptionsJSON, mediation: CredentialMediation?) throws -> Response {
        if mediation != nil { metrics.recordUpgrade("begun") }
        return rawJSON(status: .ok, options.answerBytes(mediation: mediation?.rawValue))
    }

    /// A begin's `mediation`: absent (a normal ceremony) or `"conditional"` (an automatic upgrade).
    static func mediation(_ value: JSONValue?) throws -> CredentialMediation? {
        switch value {
        case nil, .null?: return nil
        case .string("conditional")?: return .conditional
        default: throw APIError(status: 400, code: "malformed_json", message: "mediation must be \"conditional\" or absent.")
        }
    }

    /// A begin's `extensions`: the client extension inputs passkeyd passes through (``ExtensionInputs``).
    func extensionInputs(_ value: JSONValue?, for ceremony: ExtensionInputs.Ceremony) throws -> [String: JSONValue]? {
        switch value {
        case nil, .null?: return nil
        case .object(let inputs)?: return try ExtensionInputs.validated(inputs, for: ceremony, limits: configuration.extensionLimits)
        default: throw APIError(status: 400, code: "malformed_json", message: "extensions must be an object.")
        }
    }

    /// `POST /v1/users {"name", "displayName"?}` → 201 `{"user"}`: an account with no sign-in method yet, for a backend
    /// whose person signed in another way (a password) and is about to get a passkey by id (an automatic upgrade).
    /// 409 `user_exists` when the name is taken.
    func createUser(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        guard members.keys.allSatisfy({ $0 == "name" || $0 == "displayName" }) else {
            throw APIError(status: 400, code: "malformed_json", message: "The body takes name and displayName only.")
        }
        guard case .newUser(let name, let displayName) = try Self.registrationSubject(.object(members)) else {
            throw APIError(status: 400, code: "malformed_json", message: "name is required.")
        }
        try limitUser(.name(name))
        let user = try await service.createUser(name: name, displayName: displayName, audit: RequestScope.audit)
        RequestScope.log(.userCreated, user: user.handle)
        return try json(status: .created, ["user": UserJSON(user)])
    }

    /// `{"name", "displayName"?}` signs a new user up; `{"id"}` adds a passkey to that existing user. Exactly one
    /// of `name` and `id`: the intent is never guessed from whether a name happens to exist.
    static func registrationSubject(_ value: JSONValue?) throws -> RegistrationSubject {
        guard case .object(let user)? = value else {
            throw APIError(status: 400, code: "malformed_json", message: "user is required: {\"name\"} for a new user or {\"id\"} for an existing one.")
        }
        switch (user["name"], user["id"]) {
        case (.string(let name)?, nil), (.string(let name)?, .null?):
            guard !name.isEmpty, API.isText(name) else {
                throw APIError(status: 400, code: "malformed_json", message: "user.name must be 1-256 characters, without U+0000.")
            }
            switch user["displayName"] {
            case nil, .null?: return .newUser(name: name, displayName: name)
            case .string(let value)? where API.isText(value): return .newUser(name: name, displayName: value)
            default: throw APIError(status: 400, code: "malformed_json", message: "user.displayName must be a string of at most 256 characters, without U+0000.")
            }
        case (nil, .string(let id)?), (.null?, .string(let id)?):
            guard user["displayName"] == nil else {
                throw APIError(status: 400, code: "malformed_json", message: "user.displayName belongs to a new user; an existing user keeps theirs.")
            }
            return .existingUser(handle: try userHandle(id))
        default:
            throw APIError(status: 400, code: "malformed_json", message: "user needs exactly one of name (a new user) and id (an existing user).")
        }
    }

    /// The per-user limit of the begin endpoints, keyed by the name or id as the request gave it.
    func limitUser(_ lookup: UserLookup) throws {
        guard let buckets = limiter.perUser else { return }
        let key = switch lookup {
        case .name(let name): "n:" + name
        case .handle(let handle): "i:" + Base64URL.encode(handle)
        }
        try RateLimiter.check(buckets, key, scope: "user")
    }

    /// A user id as the API shows it: base64url of a 1-64 byte user handle.
    static func userHandle(_ text: String) throws -> [UInt8] {
        guard let handle = Base64URL.decode(text), (1...64).contains(handle.count) else {
            throw APIError(status: 400, code: "malformed_json", message: "user.id must be a user id (base64url).")
        }
        return handle
    }

    /// A registration finish; with `forUser` (the self-service API), only of a ceremony begun for that user (any other
    /// challenge is `challenge_unknown_or_expired`, and still consumed), and no new session (the person is signed in).
    func registrationFinish(_ body: [UInt8], forUser requiredUser: [UInt8]? = nil) async throws -> Response {
        let (response, nickname) = try registrationFinishRequest(body)
        let registered = try await signIn.finishRegistration(
            response, nickname: nickname, audit: RequestScope.audit, requiredUser: requiredUser)
        return try registrationAnswer(registered)
    }

    /// A registration finish's body: `{"credential", "nickname"?}`.
    func registrationFinishRequest(_ body: [UInt8]) throws -> (response: RegistrationResponseJSON, nickname: String?) {
        let members = try object(body)
        guard let credentialValue = members["credential"] else { throw APIError.malformedJSON }
        let response: RegistrationResponseJSON
        do {
            response = try RegistrationResponseJSON(json: credentialValue)
        } catch {
            throw WebAuthnError(.malformedResponse, error.reason)
        }
        switch members["nickname"] {
        case nil, .null?: return (response, nil)
        case .string(let value)? where API.isText(value): return (response, value)
        default: throw APIError(status: 400, code: "malformed_json", message: "nickname must be a string of at most 256 characters, without U+0000.")
        }
    }

    /// 201 `{"user", "credential", "session"?}` for a finished registration, after its audit lines and, for an
    /// automatic upgrade, the `registered` count; a session that failed to start is thrown here, once those are recorded.
    func registrationAnswer(_ registered: PasskeySignIn.Registered) throws -> Response {
        let (user, credential, verified) = (registered.user, registered.credential, registered.verified)
        RequestScope.logRegistration(user: user.handle, credential: credential.id, createdUser: registered.createdUser)
        if verified.mediation == .conditional { metrics.recordUpgrade("registered") }
        let session = try registered.session()
        let result = RegistrationResult(
            user: UserJSON(user), credential: CredentialJSON(credential, verified: verified, provider: service.provider(for: credential)),
            session: session.map(SessionJSON.init))
        return rawJSON(status: .created, result.jsonBytes)
    }

    func authenticationBegin(_ body: [UInt8]) async throws -> Response {
        let members = body.isEmpty ? [:] : try object(body)
        var lookup: UserLookup?
        switch members["user"] {
        case nil, .null?: break
        case .object(let user)?:
            switch (user["name"], user["id"]) {
            case (.string(let value)?, nil) where !value.isEmpty && API.isText(value): lookup = .name(value)
            case (nil, .string(let id)?): lookup = .handle(try Self.userHandle(id))
            default: throw APIError(status: 400, code: "malformed_json", message: "user needs exactly one of name and id.")
            }
        default: throw APIError.malformedJSON
        }
        var userVerification: UserVerificationRequirement?
        switch members["userVerification"] {
        case nil, .null?: break  // absent or null: the relying party's policy
        case .string(let text)?:
            guard let requirement = UserVerificationRequirement(rawValue: text) else { throw APIError.malformedJSON }
            userVerification = requirement
        default: throw APIError.malformedJSON
        }
        let extensions = try extensionInputs(members["extensions"], for: .authentication)
        if let lookup { try limitUser(lookup) }
        let options = try await service.beginAuthentication(user: lookup, userVerification: userVerification, extensions: extensions)
        return rawJSON(status: .ok, options.answerBytes)
    }

    func authenticationFinish(_ body: [UInt8]) async throws -> Response {
        let signedIn = try await signIn.finishAuthentication(try authenticationFinishRequest(body))
        return try authenticationAnswer(signedIn)
    }

    /// An authentication finish's body: `{"credential"}`, read in place on the hot path.
    func authenticationFinishRequest(_ body: [UInt8]) throws -> UnverifiedAuthenticationResponse {
        try body.withUnsafeBufferPointer { input throws -> UnverifiedAuthenticationResponse in
            // Hot path: find the credential object without building the body's tree, then read it in place.
            if let object = try? JSONRawObject.parse(input), case .object(let credential)? = object.member("credential", in: input) {
                return try UnverifiedAuthenticationResponse(jsonBytes: UnsafeBufferPointer(rebasing: input[credential.range]))
            }
            guard case .object(let members) = try? JSONReader.parse(input), let credential = members["credential"] else {
                throw APIError.malformedJSON
            }
            do {
                return try UnverifiedAuthenticationResponse(AuthenticationResponseJSON(json: credential))
            } catch let error as JSONShapeError {
                throw WebAuthnError(.malformedResponse, error.reason)
            }
        }
    }

    /// 200 `{"user", "credential", "userVerified", "signCountStatus", "session"?, "signal"}` for a finished sign-in,
    /// after the `uv_established` count of an upgraded passkey; a session that failed to start is thrown here.
    func authenticationAnswer(_ signedIn: PasskeySignIn.Authenticated) throws -> Response {
        if signedIn.establishedUpgradeUV { metrics.recordUpgrade("uv_established") }
        let session = try signedIn.session()
        let (user, credential, verified) = (signedIn.user, signedIn.credential, signedIn.verified)
        let result = AuthenticationResult(
            user: user.map(UserJSON.init), credential: CredentialJSON(credential, verified: nil, provider: service.provider(for: credential)),
            userVerified: verified.userVerified, signCountStatus: verified.signCountStatus.rawValue, session: session.map(SessionJSON.init),
            signal: user.map { AcceptedCredentialsSignal(rpID: service.relyingParty.id, user: $0, credentialIDs: signedIn.userCredentialIDs) })
        return rawJSON(status: .ok, result.jsonBytes)
    }
}
