public import AsyncHTTPClient
public import Foundation
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
public import WebAuthnModel

/// passkeyd for Swift backends (Hummingbird, Vapor, …), on AsyncHTTPClient: one method per operation, typed
/// requests and answers (the W3C JSON forms of WebAuthnModel for options and credentials), and ``PasskeydError``
/// carrying passkeyd's stable `code`. `Tests/PasskeyHTTPTests/Server/PasskeydClientTests.swift` checks every operation and
/// answer type against `openapi.json` and runs the client against a real passkeyd on PostgreSQL.
public struct PasskeydClient: Sendable {
    public let baseURL: String
    public var apiKey: String?
    public var adminKey: String?
    public var timeout: TimeAmount
    let http: HTTPClient

    /// - Parameters:
    ///   - baseURL: e.g. `http://127.0.0.1:8080`.
    ///   - apiKey: one of `PASSKEYD_API_KEYS` (ceremony operations).
    ///   - adminKey: one of `PASSKEYD_ADMIN_KEYS` (admin operations).
    ///   - httpClient: the caller's client (`.shared` by default); this type never shuts it down.
    public init(
        baseURL: String, apiKey: String? = nil, adminKey: String? = nil, httpClient: HTTPClient = .shared,
        timeout: TimeAmount = .seconds(10)
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.adminKey = adminKey
        self.http = httpClient
        self.timeout = timeout
    }

    /// Every operation this client calls: (HTTP method, path template, operationId in openapi.json).
    public enum Operation: String, CaseIterable, Sendable {
        case registrationBegin, registrationFinish, authenticationBegin, authenticationFinish, getUserSignals
        case adminGetUser, adminRenameCredential, adminDeleteCredential, getHealth
        case meListCredentials, meDeleteCredential

        public var method: String {
            switch self {
            case .getUserSignals, .adminGetUser, .getHealth, .meListCredentials: "GET"
            case .adminRenameCredential: "PATCH"
            case .adminDeleteCredential, .meDeleteCredential: "DELETE"
            default: "POST"
            }
        }

        public var path: String {
            switch self {
            case .registrationBegin: "/v1/registration/begin"
            case .registrationFinish: "/v1/registration/finish"
            case .authenticationBegin: "/v1/authentication/begin"
            case .authenticationFinish: "/v1/authentication/finish"
            case .getUserSignals: "/v1/users/{userId}/signals"
            case .adminGetUser: "/v1/admin/users/{userId}"
            case .adminRenameCredential, .adminDeleteCredential: "/v1/admin/credentials/{credentialId}"
            case .getHealth: "/healthz"
            case .meListCredentials: "/v1/me/credentials"
            case .meDeleteCredential: "/v1/me/credentials/{credentialId}"
            }
        }
    }

    // MARK: registration

    /// Who a registration is for: a new account by name (409 `user_exists` when taken), or one more passkey for an
    /// existing user by id (only for a person your backend has authenticated; a name never links).
    public enum Subject: Sendable {
        case newUser(name: String, displayName: String? = nil)
        case existingUser(id: String)
    }

    /// The options to hand to the client (`navigator.credentials.create`, `ASAuthorizationPlatformPublicKeyCredentialProvider`).
    /// - Parameters:
    ///   - mediation: `"conditional"` (only for `.existingUser`) begins an automatic passkey upgrade; pass
    ///     `mediation: "conditional"` with the options to `navigator.credentials.create`.
    ///   - extensions: client extension inputs: `credProps`, `prf` (`eval`), `largeBlob` (`support`); anything else is
    ///     400 `extension_unsupported`, a malformed input 400 `extension_input_invalid`.
    public func registrationBegin(
        for subject: Subject, mediation: String? = nil, extensions: [String: JSONValue]? = nil
    ) async throws -> CreationOptionsJSON {
        try await registrationBeginAnswer(for: subject, mediation: mediation, extensions: extensions).publicKey
    }

    /// ``registrationBegin(for:mediation:extensions:)``'s whole answer: the options and, for an automatic upgrade,
    /// `mediation`.
    public func registrationBeginAnswer(
        for subject: Subject, mediation: String? = nil, extensions: [String: JSONValue]? = nil
    ) async throws -> RegistrationBeginAnswer {
        let user: [String: String] = switch subject {
        case .newUser(let name, let displayName): displayName.map { ["name": name, "displayName": $0] } ?? ["name": name]
        case .existingUser(let id): ["id": id]
        }
        return try await call(
            .registrationBegin, body: RegistrationBeginBody(user: user, mediation: mediation, extensions: extensions),
            as: RegistrationBeginAnswer.self)
    }

    public func registrationFinish(_ credential: RegistrationResponseJSON, nickname: String? = nil) async throws -> RegistrationResult {
        try await call(.registrationFinish, body: RegistrationFinishBody(credential: credential, nickname: nickname), as: RegistrationResult.self)
    }

    // MARK: sign-in

    /// Options for a sign-in by name or id (allowCredentials listed), or discoverable (neither). `extensions`: client
    /// extension inputs: `prf` (`eval`, `evalByCredential`), `largeBlob` (`read: true` or `write`).
    public func authenticationBegin(
        name: String? = nil, userID: String? = nil, extensions: [String: JSONValue]? = nil
    ) async throws -> RequestOptionsJSON {
        var user: [String: String]?
        if let name { user = ["name": name] } else if let userID { user = ["id": userID] }
        return try await call(
            .authenticationBegin, body: AuthenticationBeginBody(user: user, extensions: extensions),
            as: PublicKeyAnswer<RequestOptionsJSON>.self).publicKey
    }

    /// The verified sign-in: `user` signed in; `signal` goes to the client's Signal API calls.
    public func authenticationFinish(_ credential: AuthenticationResponseJSON) async throws -> AuthenticationResult {
        try await call(.authenticationFinish, body: ["credential": credential], as: AuthenticationResult.self)
    }

    /// The Signal API's arguments after your backend deleted a passkey or renamed the user.
    public func userSignals(userID: String) async throws -> AcceptedCredentialsSignal {
        try await call(.getUserSignals, parameters: ["userId": userID], as: AcceptedCredentialsSignal.self)
    }

    // MARK: admin

    public func adminUser(id: String) async throws -> (user: User, credentials: [Credential]) {
        let answer = try await call(.adminGetUser, parameters: ["userId": id], as: UserWithCredentials.self)
        return (answer.user, answer.credentials)
    }

    public func adminRenameCredential(id: String, nickname: String?) async throws -> Credential {
        try await call(.adminRenameCredential, parameters: ["credentialId": id], body: ["nickname": nickname], as: CredentialAnswer.self).credential
    }

    public func adminDeleteCredential(id: String) async throws {
        _ = try await send(.adminDeleteCredential, parameters: ["credentialId": id], body: Optional<NoBody>.none)
    }

    public func health() async throws -> Bool {
        try await call(.getHealth, as: [String: String].self)["status"] == "ok"
    }

    // MARK: self-service (the signed-in person's passkeyd access token, not the API key)

    /// The signed-in person's passkeys, oldest first.
    public func meCredentials(accessToken: String) async throws -> [Credential] {
        try await call(.meListCredentials, bearer: accessToken, body: Optional<NoBody>.none, as: CredentialList.self).credentials
    }

    /// Deletes one of the signed-in person's passkeys: needs a recent sign-in (401 `reauthentication_required`);
    /// 409 `last_sign_in_method` for the account's only way to sign in.
    public func meDeleteCredential(id: String, accessToken: String) async throws {
        _ = try await send(.meDeleteCredential, parameters: ["credentialId": id], bearer: accessToken, body: Optional<NoBody>.none)
    }

    // MARK: transport

    struct PublicKeyAnswer<Options: Decodable>: Decodable { let publicKey: Options }
    struct UserWithCredentials: Decodable {
        let user: User
        let credentials: [Credential]
    }
    struct CredentialAnswer: Decodable { let credential: Credential }
    struct CredentialList: Decodable { let credentials: [Credential] }
    struct RegistrationBeginBody: Encodable {
        let user: [String: String]
        let mediation: String?
        let extensions: [String: JSONValue]?
    }
    struct AuthenticationBeginBody: Encodable {
        let user: [String: String]?
        let extensions: [String: JSONValue]?
    }
    struct RegistrationFinishBody: Encodable {
        let credential: RegistrationResponseJSON
        let nickname: String?
    }
    struct NoBody: Encodable {}

    func call<Answer: Decodable>(
        _ operation: Operation, parameters: [String: String] = [:], as answer: Answer.Type
    ) async throws -> Answer {
        try await call(operation, parameters: parameters, body: Optional<NoBody>.none, as: answer)
    }

    func call<Body: Encodable, Answer: Decodable>(
        _ operation: Operation, parameters: [String: String] = [:], bearer: String? = nil, body: Body?, as answer: Answer.Type
    ) async throws -> Answer {
        try JSONDecoder().decode(Answer.self, from: try await send(operation, parameters: parameters, bearer: bearer, body: body))
    }

    /// One request; the answer's body when its status is 2xx, else ``PasskeydError``. `bearer` (an access token, for
    /// the self-service operations) replaces the keys.
    func send<Body: Encodable>(
        _ operation: Operation, parameters: [String: String], bearer: String? = nil, body: Body?
    ) async throws -> Data {
        var path = operation.path
        for (name, value) in parameters {
            // Ids are base64url: unreserved characters already; anything else is percent-encoded.
            let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) ?? value
            path = path.replacingOccurrences(of: "{\(name)}", with: encoded)
        }
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = HTTPMethod(rawValue: operation.method)
        request.headers.add(name: "Accept", value: "application/json")
        if let key = bearer ?? (path.hasPrefix("/v1/admin/") ? adminKey : apiKey) {
            request.headers.add(name: "Authorization", value: "Bearer \(key)")
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let response = try await http.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 1024 * 1024)
        let data = Data(buffer: bytes)
        guard (200..<300).contains(response.status.code) else {
            throw PasskeydError(status: Int(response.status.code), body: data, retryAfter: response.headers.first(name: "Retry-After").flatMap(Int.init))
        }
        return data
    }
}

/// An error answer of passkeyd: the status and the stable snake_case `code` (`credential_unknown`,
/// `challenge_unknown_or_expired`, `signature_invalid`, …); `message` is for humans, not stable. `signal` is set
/// for `credential_unknown` on a sign-in (pass it to `PublicKeyCredential.signalUnknownCredential`).
public struct PasskeydError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    public let signal: UnknownCredentialSignal?
    public let retryAfter: Int?

    init(status: Int, body: Data, retryAfter: Int?) {
        struct Body: Decodable {
            struct Inner: Decodable {
                let code: String
                let message: String
            }
            let error: Inner
            let signal: UnknownCredentialSignal?
        }
        self.status = status
        self.retryAfter = retryAfter
        if let decoded = try? JSONDecoder().decode(Body.self, from: body) {
            code = decoded.error.code
            message = decoded.error.message
            signal = decoded.signal
        } else {
            code = "http_\(status)"
            message = "the answer is not passkeyd's JSON error form"
            signal = nil
        }
    }

    public var description: String { "\(status) \(code): \(message)" }
}
