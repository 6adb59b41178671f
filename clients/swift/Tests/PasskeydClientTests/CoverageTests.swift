import Foundation
import Testing
@testable import PasskeydClient

/// The client against openapi.json, with no server: every operationId has its method and every method an operation;
/// the operation table matches the document; each method sends its operation's method, path, credential and a body
/// the request schema accepts, and decodes (and keeps every member of) the documented answer; the error codes.
@Suite("Coverage")
struct CoverageTests {
    @Test("every operationId has a method, and every method an operation")
    func methodsAndOperations() throws {
        let documented = Set(try OpenAPIDocument.load().operations.map(\.id))
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/PasskeydClient/Operations").standardized
        let expression = try NSRegularExpression(pattern: #"public func ([A-Za-z0-9_]+)\s*\("#)
        var methods: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                methods.append(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        #expect(documented.subtracting(methods).sorted() == [], "operations without a method")
        #expect(Set(methods).subtracting(documented).sorted() == [], "methods without an operation")
        #expect(methods.count == Set(methods).count, "a method defined twice: \(methods.sorted())")
        // Every public method of the client is in Operations/ (the core file declares none).
        let core = try String(
            contentsOf: folder.deletingLastPathComponent().appendingPathComponent("PasskeydClient.swift"), encoding: .utf8)
        #expect(!core.contains("public func"))
        // And the call table below calls every operation.
        #expect(documented.subtracting(Self.calls.map(\.operation)).sorted() == [], "operations the call table misses")
        #expect(Set(Self.calls.map(\.operation)).subtracting(documented).sorted() == [])
    }

    @Test("the operation table is openapi.json's: method, path, security")
    func operationTable() throws {
        let documented = Dictionary(uniqueKeysWithValues: try OpenAPIDocument.load().operations.map { ($0.id, $0) })
        #expect(PasskeydOperation.all.count == documented.count)
        #expect(Set(PasskeydOperation.all.map(\.id)).count == PasskeydOperation.all.count)
        for operation in PasskeydOperation.all {
            let found = try #require(documented[operation.id], "\(operation.id) is not in openapi.json")
            #expect(found.method == operation.method && found.path == operation.path, "\(operation) vs \(found.method) \(found.path)")
            #expect(found.schemes == Set(operation.security.map(\.rawValue)), "\(operation.id): \(found.schemes)")
        }
    }

    @Test("ErrorCode's known codes are exactly the error.code enums of openapi.json")
    func errorCodes() throws {
        let (codes, unlisted) = try OpenAPIDocument.load().errorCodes()
        #expect(unlisted == [], "error responses without an error.code enum")
        let known = Set(ErrorCode.known.map(\.rawValue))
        #expect(codes.subtracting(known).sorted() == [], "codes ErrorCode lacks: run python3 tools/generate-error-codes.py")
        #expect(known.subtracting(codes).sorted() == [], "codes openapi.json no longer lists")
        #expect(ErrorCode.userExists.rawValue == "user_exists" && ErrorCode("user_exists") == .userExists)
        #expect(ErrorCode.userExists.isKnown && !ErrorCode("from_a_newer_server").isKnown)
    }

    @Test("each method sends its operation's request and decodes its answer", arguments: Self.calls)
    func call(_ call: Call) async throws {
        let document = try OpenAPIDocument.load()
        let operation = try #require(document.operations.first { $0.id == call.operation })
        let (status, content) = try #require(Self.success(operation, document), "\(operation.id): no 2xx answer")
        for maximal in [true, false] {
            let (client, transport, _) = recordingClient(retry: .none)
            var expected: JSONValue?
            switch content {
            case nil:
                transport.answer(PasskeydHTTPResponse(status: status))
            case ("text/plain", _)?:
                expected = "passkeyd_up 1\n"
                transport.answer(PasskeydHTTPResponse(status: status, body: Data("passkeyd_up 1\n".utf8)))
            case (_, let schema)?:
                let example = try #require(document.example(schema, maximal: maximal))
                expected = example
                transport.answer(.json(status, example))
            }
            let result = try await call.run(client)
            let request = try #require(transport.requests.first)
            #expect(transport.requests.count == 1)

            // Method, path, query.
            #expect(request.method == operation.method)
            let url = try #require(URLComponents(string: request.url))
            #expect(request.url.hasPrefix("http://passkeyd.test/"))
            let template = "^" + operation.path.replacingOccurrences(
                of: #"\{[A-Za-z]+\}"#, with: "[A-Za-z0-9_-]+", options: .regularExpression) + "$"
            #expect(url.percentEncodedPath.range(of: template, options: .regularExpression) != nil, "\(url.percentEncodedPath)")
            let parameters = ((operation.object["parameters"]?.arrayValue ?? []) + (operation.pathItem["parameters"]?.arrayValue ?? []))
                .map(document.resolve)
            let documentedQuery = Set(parameters.filter { $0["in"] == "query" }.compactMap { $0["name"]?.stringValue })
            #expect(Set((url.queryItems ?? []).map(\.name)).isSubset(of: documentedQuery), "\(url.queryItems ?? [])")
            #expect(call.query.isSubset(of: Set((url.queryItems ?? []).map(\.name))), "\(url.queryItems ?? [])")

            // The credential: the one the call should send, and one the operation takes.
            let tokens = ["apiKey": "Bearer api-key", "adminKey": "Bearer admin-key", "accessToken": "Bearer access-token"]
            #expect(request.headers["Authorization"] == call.credential.flatMap { tokens[$0] })
            if let credential = call.credential {
                #expect(operation.schemes.contains(credential), "\(operation.id) does not take \(credential)")
            } else {
                #expect(operation.credentialOptional, "\(operation.id) needs a credential")
            }

            // The body: the request schema's.
            let requestBody = operation.object["requestBody"].map(document.resolve)
            if let requestBody {
                let schema = try #require(requestBody["content"]?["application/json"]?["schema"])
                if requestBody["required"] == true { #expect(request.body != nil) }
                if let body = request.body {
                    #expect(request.headers["Content-Type"] == "application/json")
                    let value = try JSONDecoder().decode(JSONValue.self, from: body)
                    #expect(document.problems(value, schema) == [], "\(value.jsonText)")
                    for member in call.members {
                        #expect(value[member] != nil, "\(member) not sent: \(value.jsonText)")
                    }
                }
            } else {
                #expect(request.body == nil)
            }

            // The answer: decoded, and (every member of it) kept.
            if let expected {
                let encoded = try #require(result.map { try JSONValue(encoding: $0) }, "\(operation.id) answered nothing")
                #expect(encoded.withoutNulls == expected.withoutNulls, "\(maximal ? "maximal" : "minimal") \(expected.jsonText) → \(encoded.jsonText)")
            } else {
                #expect(result == nil)
            }
        }
    }

    /// The operation's success answer: its status and, unless it is empty, its media type and schema.
    static func success(_ operation: OpenAPIDocument.Operation, _ document: OpenAPIDocument) -> (Int, (String, JSONValue)?)? {
        let responses = operation.object["responses"]?.objectValue ?? [:]
        guard let status = responses.keys.compactMap(Int.init).filter({ (200..<300).contains($0) }).min() else { return nil }
        let response = document.resolve(responses[String(status)]!)
        guard let (type, media) = response["content"]?.objectValue?.first else { return (status, nil) }
        return (status, (type.hasPrefix("text/plain") ? "text/plain" : type, media["schema"] ?? .object([:])))
    }
}

/// One call of a method with sample arguments (all its optional ones given, so every member is checked).
struct Call: Sendable, CustomTestStringConvertible {
    let operation: String
    let label: String
    /// The credential it should send (a security scheme's name), nil for none.
    let credential: String?
    /// Members the body must carry, and query parameters the URL must.
    var members: [String] = []
    var query: Set<String> = []
    let run: @Sendable (PasskeydClient) async throws -> (any Encodable & Sendable)?

    var testDescription: String { label.isEmpty ? operation : "\(operation) (\(label))" }
}

extension CoverageTests {
    static let user = "dXNlcg"
    static let credentialId = "Y3JlZA"
    static let token = "access-token"
    static let registration = RegistrationResponseJSON(
        id: credentialId, rawId: credentialId,
        response: AuthenticatorAttestationResponseJSON(
            clientDataJSON: "e30", attestationObject: "oA", authenticatorData: "AAAA", transports: ["internal"],
            publicKey: "AAAA", publicKeyAlgorithm: -7),
        authenticatorAttachment: "platform", clientExtensionResults: ["credProps": ["rk": true]])
    static let assertion = AuthenticationResponseJSON(
        id: credentialId, rawId: credentialId,
        response: AuthenticatorAssertionResponseJSON(clientDataJSON: "e30", authenticatorData: "AAAA", signature: "AAAA", userHandle: user),
        authenticatorAttachment: "platform", clientExtensionResults: [:])
    static let selection = AuthenticatorSelectionCriteria(
        authenticatorAttachment: "platform", residentKey: "required", requireResidentKey: true, userVerification: "required")
    static let registrationExtensions = RegistrationExtensionInputs(
        credProps: true, prf: .init(eval: PRFValues(first: "AAAA", second: "AAAA")), largeBlob: .init(support: "preferred"),
        credentialProtectionPolicy: "userVerificationRequired", enforceCredentialProtectionPolicy: true, minPinLength: true)
    static let challenge = String(repeating: "a", count: 43)

    static let calls: [Call] = [
        // passkeys
        Call(operation: "registrationBegin", label: "new user", credential: "apiKey",
             members: ["user", "authenticatorSelection", "attestation", "hints", "extensions"]) {
            try await $0.registrationBegin(
                for: .new(name: "ada", displayName: "Ada"), authenticatorSelection: selection, attestation: "direct",
                hints: ["client-device"], extensions: registrationExtensions)
        },
        Call(operation: "registrationBegin", label: "upgrade", credential: "apiKey", members: ["user", "mediation"]) {
            try await $0.registrationBegin(for: .existing(id: user), mediation: .conditional)
        },
        Call(operation: "registrationFinish", label: "", credential: "apiKey", members: ["credential", "nickname"]) {
            try await $0.registrationFinish(registration, nickname: "laptop")
        },
        Call(operation: "createUser", label: "", credential: "apiKey", members: ["name", "displayName"]) {
            try await $0.createUser(name: "ann", displayName: "Ann")
        },
        Call(operation: "authenticationBegin", label: "by name", credential: "apiKey", members: ["user", "userVerification", "extensions"]) {
            try await $0.authenticationBegin(
                for: .name("ada"), userVerification: "required",
                extensions: AuthenticationExtensionInputs(
                    prf: .init(eval: PRFValues(first: "AAAA"), evalByCredential: [credentialId: PRFValues(first: "AAAA")]),
                    largeBlob: .read))
        },
        Call(operation: "authenticationBegin", label: "by id", credential: "apiKey", members: ["user", "extensions"]) {
            try await $0.authenticationBegin(for: .id(user), extensions: AuthenticationExtensionInputs(largeBlob: .write("AAAA")))
        },
        Call(operation: "authenticationBegin", label: "discoverable", credential: "apiKey") {
            try await $0.authenticationBegin()
        },
        Call(operation: "authenticationFinish", label: "", credential: "apiKey", members: ["credential"]) {
            try await $0.authenticationFinish(assertion)
        },
        Call(operation: "getUserSignals", label: "", credential: "apiKey") { try await $0.getUserSignals(userId: user) },
        // ID tokens
        Call(operation: "idTokenBegin", label: "", credential: "apiKey", members: ["provider"]) {
            try await $0.idTokenBegin(provider: "apple")
        },
        Call(operation: "idTokenFinish", label: "new user", credential: "apiKey",
             members: ["session", "provider", "idToken", "authorizationCode", "user"]) {
            try await $0.idTokenFinish(
                session: "AAAA", provider: "apple", idToken: "a.b.c", authorizationCode: "code",
                user: .new(name: "ada", displayName: "Ada"))
        },
        Call(operation: "idTokenFinish", label: "link", credential: "apiKey", members: ["user"]) {
            try await $0.idTokenFinish(session: "AAAA", provider: "apple", idToken: "a.b.c", user: .existing(id: user))
        },
        // sessions
        Call(operation: "getSessionJWKS", label: "", credential: nil) { try await $0.getSessionJWKS() },
        Call(operation: "refreshSession", label: "", credential: nil, members: ["refreshToken"]) {
            try await $0.refreshSession(refreshToken: "pkd_rt_" + challenge)
        },
        Call(operation: "revokeSession", label: "refresh token", credential: nil, members: ["refreshToken"]) {
            try await $0.revokeSession(refreshToken: "pkd_rt_" + challenge)
            return nil
        },
        Call(operation: "revokeSession", label: "access token", credential: "accessToken") {
            try await $0.revokeSession(accessToken: token)
            return nil
        },
        Call(operation: "introspectAccessToken", label: "", credential: "apiKey", members: ["token"]) {
            try await $0.introspectAccessToken("a.b.c")
        },
        Call(operation: "createHandoffCode", label: "access token", credential: "accessToken", members: ["codeChallenge"]) {
            try await $0.createHandoffCode(for: .accessToken(token), codeChallenge: challenge)
        },
        Call(operation: "createHandoffCode", label: "user", credential: "apiKey", members: ["userId"]) {
            try await $0.createHandoffCode(for: .user(id: user))
        },
        Call(operation: "exchangeHandoffCode", label: "", credential: nil, members: ["code", "codeVerifier", "cookie"]) {
            try await $0.exchangeHandoffCode("pkd_hc_" + challenge, codeVerifier: challenge, cookie: true)
        },
        // self-service
        Call(operation: "meListCredentials", label: "", credential: "accessToken") { try await $0.meListCredentials(accessToken: token) },
        Call(operation: "meRenameCredential", label: "", credential: "accessToken", members: ["nickname"]) {
            try await $0.meRenameCredential(accessToken: token, credentialId: credentialId, nickname: nil)
        },
        Call(operation: "meDeleteCredential", label: "", credential: "accessToken") {
            try await $0.meDeleteCredential(accessToken: token, credentialId: credentialId)
            return nil
        },
        Call(operation: "meRegistrationBegin", label: "", credential: "accessToken",
             members: ["authenticatorSelection", "attestation", "hints", "extensions", "mediation"]) {
            try await $0.meRegistrationBegin(
                accessToken: token, authenticatorSelection: selection, attestation: "none", hints: ["hybrid"],
                extensions: registrationExtensions, mediation: .conditional)
        },
        Call(operation: "meRegistrationFinish", label: "", credential: "accessToken", members: ["credential", "nickname"]) {
            try await $0.meRegistrationFinish(accessToken: token, registration, nickname: "phone")
        },
        Call(operation: "meListIdentities", label: "", credential: "accessToken") { try await $0.meListIdentities(accessToken: token) },
        Call(operation: "meUnlinkIdentity", label: "", credential: "accessToken") {
            try await $0.meUnlinkIdentity(accessToken: token, identityId: "aWQ")
            return nil
        },
        // App Store
        Call(operation: "appStorePostTransaction", label: "", credential: "apiKey", members: ["userId", "signedTransaction"]) {
            try await $0.appStorePostTransaction(userId: user, signedTransaction: "a.b.c")
        },
        Call(operation: "appStorePostRenewalInfo", label: "", credential: "apiKey", members: ["signedRenewalInfo"]) {
            try await $0.appStorePostRenewalInfo(signedRenewalInfo: "a.b.c")
        },
        Call(operation: "appStoreNotification", label: "", credential: nil, members: ["signedPayload"]) {
            try await $0.appStoreNotification(signedPayload: "a.b.c")
        },
        Call(operation: "appStoreEntitlements", label: "", credential: "apiKey") { try await $0.appStoreEntitlements(userId: user) },
        // App Attest
        Call(operation: "appAttestChallenge", label: "", credential: "apiKey") { try await $0.appAttestChallenge() },
        Call(operation: "appAttestAttestation", label: "", credential: "apiKey",
             members: ["keyId", "attestationObject", "challenge", "userId"]) {
            try await $0.appAttestAttestation(keyId: "AAAA", attestationObject: "AAAA", challenge: "AAAA", userId: user)
        },
        Call(operation: "appAttestAssertion", label: "", credential: "apiKey", members: ["keyId", "assertion", "clientData"]) {
            try await $0.appAttestAssertion(keyId: "AAAA", assertion: "AAAA", clientData: "e30")
        },
        // admin
        Call(operation: "adminListUsers", label: "", credential: "adminKey", query: ["name", "limit", "after"]) {
            try await $0.adminListUsers(name: "ada", limit: 2, after: "AAAA")
        },
        Call(operation: "adminGetUser", label: "", credential: "adminKey") { try await $0.adminGetUser(userId: user) },
        Call(operation: "adminDeleteUser", label: "", credential: "adminKey") {
            try await $0.adminDeleteUser(userId: user)
            return nil
        },
        Call(operation: "adminListUserCredentials", label: "", credential: "adminKey") { try await $0.adminListUserCredentials(userId: user) },
        Call(operation: "adminGetCredential", label: "", credential: "adminKey") { try await $0.adminGetCredential(credentialId: credentialId) },
        Call(operation: "adminRenameCredential", label: "", credential: "adminKey", members: ["nickname"]) {
            try await $0.adminRenameCredential(credentialId: credentialId, nickname: "work")
        },
        Call(operation: "adminDeleteCredential", label: "", credential: "adminKey") {
            try await $0.adminDeleteCredential(credentialId: credentialId)
            return nil
        },
        Call(operation: "adminAuditEvents", label: "", credential: "adminKey", query: ["user", "since", "until", "limit", "after"]) {
            try await $0.adminAuditEvents(
                userId: user, since: "2026-01-01T00:00:00Z", until: "2026-12-31T00:00:00Z", limit: 10, after: "42")
        },
        Call(operation: "adminListUserIdentities", label: "", credential: "adminKey") { try await $0.adminListUserIdentities(userId: user) },
        Call(operation: "adminUnlinkIdentity", label: "", credential: "adminKey") {
            try await $0.adminUnlinkIdentity(userId: user, identityId: "aWQ")
            return nil
        },
        Call(operation: "adminListUserSessions", label: "", credential: "adminKey") { try await $0.adminListUserSessions(userId: user) },
        Call(operation: "adminRevokeUserSessions", label: "", credential: "adminKey") { try await $0.adminRevokeUserSessions(userId: user) },
        Call(operation: "adminRevokeUserSession", label: "", credential: "adminKey") {
            try await $0.adminRevokeUserSession(userId: user, sessionId: "c2Vzcw")
            return nil
        },
        Call(operation: "adminListWebhookEndpoints", label: "", credential: "adminKey") { try await $0.adminListWebhookEndpoints() },
        Call(operation: "adminListWebhookDeliveries", label: "", credential: "adminKey", query: ["status", "limit", "after"]) {
            try await $0.adminListWebhookDeliveries(endpointId: "backend", status: "failed", limit: 10, after: "42")
        },
        Call(operation: "adminRedeliverWebhook", label: "", credential: "adminKey") {
            try await $0.adminRedeliverWebhook(deliveryId: "42")
            return nil
        },
        Call(operation: "adminPauseWebhookEndpoint", label: "", credential: "adminKey") {
            try await $0.adminPauseWebhookEndpoint(endpointId: "backend")
            return nil
        },
        Call(operation: "adminResumeWebhookEndpoint", label: "", credential: "adminKey") {
            try await $0.adminResumeWebhookEndpoint(endpointId: "backend")
            return nil
        },
        // FIDO conformance binding
        Call(operation: "conformanceAttestationOptions", label: "", credential: "apiKey",
             members: ["username", "displayName", "authenticatorSelection", "attestation", "extensions"]) {
            try await $0.conformanceAttestationOptions(
                username: "fido", displayName: "FIDO", authenticatorSelection: selection, attestation: "direct",
                extensions: ["credProps": true])
        },
        Call(operation: "conformanceAttestationResult", label: "", credential: "apiKey",
             members: ["id", "rawId", "type", "response", "getClientExtensionResults"]) {
            try await $0.conformanceAttestationResult(registration, challenge: "AAAA")
        },
        Call(operation: "conformanceAssertionOptions", label: "", credential: "apiKey",
             members: ["username", "userVerification", "extensions"]) {
            try await $0.conformanceAssertionOptions(username: "fido", userVerification: "preferred", extensions: ["appid": "x"])
        },
        Call(operation: "conformanceAssertionResult", label: "", credential: "apiKey", members: ["id", "rawId", "type", "response"]) {
            try await $0.conformanceAssertionResult(assertion, challenge: "AAAA")
        },
        // the service
        Call(operation: "getHealth", label: "", credential: nil) { try await $0.getHealth() },
        Call(operation: "getReadiness", label: "", credential: nil) { try await $0.getReadiness() },
        Call(operation: "getMetrics", label: "", credential: nil) { try await $0.getMetrics() },
        Call(operation: "getOpenAPIDocument", label: "", credential: nil) { try await $0.getOpenAPIDocument() },
        Call(operation: "getAppleAppSiteAssociation", label: "", credential: nil) { try await $0.getAppleAppSiteAssociation() },
        Call(operation: "getAssetLinks", label: "", credential: nil) { try await $0.getAssetLinks() },
        Call(operation: "getRelatedOrigins", label: "", credential: nil) { try await $0.getRelatedOrigins() },
    ]
}
