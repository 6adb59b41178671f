import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyHTTP
import PasskeydClient
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The Swift client library: every operation it calls and every answer type it decodes matches openapi.json (so an
/// API change the client does not follow fails here), and it runs against a real passkeyd on PostgreSQL.
@Suite("PasskeydClient (Swift)")
struct PasskeydClientTests {
    @Test("every operation exists in openapi.json with its method, path and operationId")
    func operations() throws {
        let document = try OpenAPIDocument.load()
        let documented = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.key, $0) })
        for operation in PasskeydClient.Operation.allCases {
            let found = try #require(documented["\(operation.method) \(operation.path)"], "\(operation.method) \(operation.path)")
            #expect(found.object["operationId"] == .string(operation.rawValue), "\(operation)")
        }
    }

    @Test("every answer type has exactly the members of its schema")
    func answerTypes() throws {
        let document = try OpenAPIDocument.load()
        func members(_ schema: String, _ property: String? = nil) throws -> Set<String> {
            var value = try #require(document.resolve("#/components/schemas/\(schema)"))
            if let property {
                let member = try #require(value["properties"]?[property])
                value = try #require(document.dereference(member))
            }
            guard case .object(let properties)? = value["properties"] else { return [] }
            return Set(properties.keys)
        }
        let cases: [(String, Set<String>, Set<String>)] = [
            ("User", Set(User.CodingKeys.allCases.map(\.rawValue)), try members("User")),
            ("Provider", Set(Provider.CodingKeys.allCases.map(\.rawValue)), try members("Credential", "provider")),
            // Credential decodes both forms: the admin API's adds userId.
            ("Credential", Set(Credential.CodingKeys.allCases.map(\.rawValue)), try members("AdminCredential")),
            ("Credential (not admin)", Set(Credential.CodingKeys.allCases.map(\.rawValue)).subtracting(["userId"]), try members("Credential")),
            ("AcceptedCredentialsSignal", Set(AcceptedCredentialsSignal.CodingKeys.allCases.map(\.rawValue)), try members("AcceptedCredentialsSignal")),
            ("UnknownCredentialSignal", Set(UnknownCredentialSignal.CodingKeys.allCases.map(\.rawValue)), try members("Error", "signal")),
            ("RegistrationResult", Set(RegistrationResult.CodingKeys.allCases.map(\.rawValue)), try members("RegistrationFinishResponse")),
            ("AuthenticationResult", Set(AuthenticationResult.CodingKeys.allCases.map(\.rawValue)), try members("AuthenticationFinishResponse")),
        ]
        for (name, ours, documented) in cases {
            #expect(ours == documented, "\(name): \(ours.symmetricDifference(documented).sorted())")
        }
    }

    @Test("against passkeyd on PostgreSQL: register, sign in, signals, errors with their codes, admin calls",
        .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
    func live() async throws {
        let apiKey = String(repeating: "c", count: 32)
        try await withPostgresHTTP(environment: ["PASSKEYD_API_KEYS": apiKey, "PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey]) { _, instance in
            try await instance.app.test(.live) { test in
                let port = try #require(test.port)
                let passkeyd = PasskeydClient(baseURL: "http://127.0.0.1:\(port)", apiKey: apiKey, adminKey: PostgresHTTP.adminKey)
                #expect(try await passkeyd.health())
                let name = "swift-\(UUID().uuidString.prefix(8))"
                let options = try await passkeyd.registrationBegin(for: .newUser(name: name, displayName: "Swift"))
                var (response, credential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
                let registered = try await passkeyd.registrationFinish(response, nickname: "mac")
                #expect(registered.user.name == name && registered.credential.nickname == "mac" && registered.session == nil)
                #expect(registered.credential.id == Base64URL.encode(credential.id))

                let request = try await passkeyd.authenticationBegin(name: name)
                #expect(request.allowCredentials.map(\.id) == [registered.credential.id])
                let assertion = try SoftAuthenticator.authenticate(options: request, credential: &credential, knobs: AssertionKnobs(origin: Harness.origin))
                let signedIn = try await passkeyd.authenticationFinish(assertion)
                #expect(signedIn.user?.id == registered.user.id && signedIn.userVerified)
                #expect(signedIn.signal == AcceptedCredentialsSignal(
                    rpId: "http.passkeyd.test", userId: registered.user.id, allAcceptedCredentialIds: [registered.credential.id],
                    name: name, displayName: "Swift"))
                #expect(try await passkeyd.userSignals(userID: registered.user.id) == signedIn.signal)

                // Errors carry the stable codes.
                await #expect { try await passkeyd.authenticationFinish(assertion) } throws: {
                    ($0 as? PasskeydError)?.code == "challenge_unknown_or_expired" && ($0 as? PasskeydError)?.status == 400
                }
                await #expect { try await passkeyd.registrationBegin(for: .newUser(name: name)) } throws: {
                    ($0 as? PasskeydError)?.code == "user_exists"
                }

                // Admin: rename, read, delete; the deleted passkey's sign-in carries signalUnknownCredential's arguments.
                #expect(try await passkeyd.adminRenameCredential(id: registered.credential.id, nickname: "phone").nickname == "phone")
                let (user, credentials) = try await passkeyd.adminUser(id: registered.user.id)
                #expect(user == registered.user && credentials.map(\.userId) == [registered.user.id])
                try await passkeyd.adminDeleteCredential(id: registered.credential.id)
                let stale = try SoftAuthenticator.authenticate(
                    options: try await passkeyd.authenticationBegin(), credential: &credential, knobs: AssertionKnobs(origin: Harness.origin))
                await #expect { try await passkeyd.authenticationFinish(stale) } throws: {
                    let error = $0 as? PasskeydError
                    return error?.code == "credential_unknown" && error?.status == 404
                        && error?.signal == UnknownCredentialSignal(rpId: "http.passkeyd.test", credentialId: registered.credential.id)
                }
                var keyless = passkeyd
                keyless.apiKey = nil
                await #expect { try await keyless.authenticationBegin() } throws: { ($0 as? PasskeydError)?.code == "unauthorized" }
            }
        }
    }
}
