import PasskeyApp
import CBORCodec
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport
import SettingsTestSupport

// The FIDO conformance transport binding (Sources/PasskeyHTTP/Passkeys/ConformanceRoutes.swift), walked the way the FIDO
// conformance tool walks a server: its public server test list (conformance-test-tools-resources
// docs/FIDO2/Server/README.md; the IDs in the test names are that list's) as far as the software authenticator can
// produce each case. A `ToolSession` plays the tool: it posts the profile's JSON and keeps the session cookies.
//
// The relying party is configured the way docs/fido-conformance.md recommends for a conformance run
// (user verification preferred-unsafe, every algorithm including RS1-unsafe, trust roots for every format); the
// W3C defaults and the named unsafe policies are tested where they change an outcome.

// MARK: - the tool

/// A server the conformance tool talks to: in-memory store, a clock that follows real time (SafetyNet responses are
/// stamped with the real time; a frozen clock made a slow run see them in the future) and can be moved, the binding on.
struct ConformanceHarness {
    static let origin = "https://conformance.passkeyd.test"
    static let rpID = "conformance.passkeyd.test"
    /// The attestation root of the "metadata" this relying party trusts (what the tool's metadata statements provide).
    static let ca: TestAttestationCA = {
        do { return try TestAttestationCA(name: "conformance metadata root") } catch { fatalError("test CA: \(error)") }
    }()
    /// ``ca`` as a PEM file, for `PASSKEYD_TRUST_ROOTS_<FORMAT>`.
    static let caFile: String = {
        do { return try TestFiles.pem(ca.trustAnchors.certificates, name: "conformance-root.pem") } catch { fatalError("CA file: \(error)") }
    }()

    let clock = RealTimeClock()
    let store: InMemoryPasskeyStore
    /// "METHOD /path" of every route.
    let routes: Set<String>
    let app: Application<RouterResponder<PasskeyRequestContext>>

    /// The relying party a conformance run uses (docs/fido-conformance.md), under `environment`: the binding on,
    /// user verification preferred-unsafe, every algorithm (RS1 too), and the metadata root trusted for every format
    /// under any-verified, with `none` conveyance.
    static func environment(_ environment: [String: String] = [:]) -> [String: String] {
        var conformance = [
            "PASSKEYD_RP_ID": rpID, "PASSKEYD_RP_NAME": "passkeyd conformance", "PASSKEYD_ORIGINS": origin,
            "PASSKEYD_FIDO_CONFORMANCE": "on", "PASSKEYD_USER_VERIFICATION": "preferred-unsafe",
            "PASSKEYD_ALGORITHMS": (AlgorithmPolicy.allModern.algorithms.map(\.name) + ["RS1-unsafe"]).joined(separator: ","),
            "PASSKEYD_ATTESTATION": "any-verified", "PASSKEYD_ATTESTATION_CONVEYANCE": "none",
        ]
        for format in Settings.trustRootFormats {
            conformance[Settings.trustRootsPrefix + format.uppercased().replacingOccurrences(of: "-", with: "_")] = caFile
        }
        return conformance.merging(environment) { $1 }
    }

    /// ``environment(_:)``'s settings, without rate limits or pending-ceremony caps (``TestPasskeyd/unbounded``).
    static func settings(_ environment: [String: String] = [:]) throws -> Settings {
        try TestPasskeyd.unboundedSettings(Self.environment(environment))
    }

    /// - Parameters:
    ///   - environment: over ``settings(_:)``'s.
    ///   - configure: a change no variable expresses.
    init(
        enabled: Bool = true, apiKeys: [String] = [], environment: [String: String] = [:], configure: (inout Settings) -> Void = { _ in }
    ) async throws {
        let clock = self.clock
        var environment = environment
        if !enabled { environment["PASSKEYD_FIDO_CONFORMANCE"] = "off" }
        if !apiKeys.isEmpty { environment["PASSKEYD_API_KEYS"] = apiKeys.joined(separator: ",") }
        var settings = try Self.settings(environment)
        configure(&settings)
        store = TestPasskeyd.store(for: settings, now: { clock.now })
        let passkeyd = try await TestPasskeyd.build(settings, store: store, now: { clock.now })
        routes = Set(passkeyd.routes)
        app = passkeyd.http
    }
}

/// One reply as the tool sees it.
struct ToolReply: Sendable {
    let status: Int
    let body: [UInt8]
    let setCookies: [String]
    var json: JSONValue? { try? JSONReader.parse(body) }
    var object: [String: JSONValue] {
        if case .object(let members)? = json { return members }
        return [:]
    }
    var errorMessage: String? { object["errorMessage"]?.stringValue }
    /// The code the failure body carries (`error.code`; `errorMessage` starts with it).
    var code: String? { object["error"]?["code"]?.stringValue }
    var isOK: Bool { status == 200 && object["status"] == .string("ok") && object["errorMessage"] == .string("") }
}

/// The conformance tool's side: posts JSON, keeps cookies like a user agent (name → value; Max-Age=0 deletes).
final class ToolSession {
    var cookies: [String: String] = [:]

    func post(_ client: some TestClientProtocol, _ path: String, _ body: [UInt8], sendCookies: Bool = true) async throws -> ToolReply {
        var headers: HTTPFields = [.contentType: "application/json"]
        let prefix = path.hasPrefix("/attestation") ? "passkeyd_attestation" : "passkeyd_assertion"
        if sendCookies, let value = cookies[prefix] { headers[.cookie] = "\(prefix)=\(value)" }
        let reply = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: body)) { response in
            ToolReply(status: Int(response.status.code), body: Array(response.body.readableBytesView), setCookies: response.headers[values: .setCookie])
        }
        for header in reply.setCookies {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            if parts.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = String(pair[pair.index(after: equals)...]) }
        }
        return reply
    }

    func post(_ client: some TestClientProtocol, _ path: String, json text: String, sendCookies: Bool = true) async throws -> ToolReply {
        try await post(client, path, Array(text.utf8), sendCookies: sendCookies)
    }

    func post(_ client: some TestClientProtocol, _ path: String, object: [String: JSONValue], sendCookies: Bool = true) async throws -> ToolReply {
        try await post(client, path, Array(try JSONEncoder().encode(JSONValue.object(object))), sendCookies: sendCookies)
    }
}

/// A change to a profile-shaped credential before it is posted.
struct CredentialMutation: Sendable, CustomTestStringConvertible {
    let name: String
    let apply: @Sendable (inout [String: JSONValue]) -> Void
    var testDescription: String { name }

    static func top(_ name: String, _ key: String, _ value: JSONValue?) -> CredentialMutation {
        CredentialMutation(name: name) { $0[key] = value }
    }

    static func response(_ name: String, _ key: String, _ value: JSONValue?) -> CredentialMutation {
        CredentialMutation(name: name) { credential in
            guard case .object(var response)? = credential["response"] else { return }
            response[key] = value
            credential["response"] = .object(response)
        }
    }
}

/// Ceremonies through the binding, as the tool runs them.
enum Tool {
    static func creationOptions(_ reply: ToolReply) throws -> CreationOptionsJSON {
        try JSONDecoder().decode(CreationOptionsJSON.self, from: Data(reply.body))
    }

    static func requestOptions(_ reply: ToolReply) throws -> RequestOptionsJSON {
        try JSONDecoder().decode(RequestOptionsJSON.self, from: Data(reply.body))
    }

    /// The profile's `ServerPublicKeyCredential` for a registration: no `rawId`, `getClientExtensionResults`.
    static func profileShape(_ response: RegistrationResponseJSON) -> [String: JSONValue] {
        [
            "id": .string(response.id), "type": .string(response.type),
            "response": .object([
                "clientDataJSON": .string(response.response.clientDataJSON),
                "attestationObject": .string(response.response.attestationObject),
            ]),
            "getClientExtensionResults": .object(response.clientExtensionResults ?? [:]),
        ]
    }

    /// The profile's `ServerPublicKeyCredential` for an assertion (`userHandle` "" when the authenticator gave none).
    static func profileShape(_ response: AuthenticationResponseJSON) -> [String: JSONValue] {
        [
            "id": .string(response.id), "type": .string(response.type),
            "response": .object([
                "clientDataJSON": .string(response.response.clientDataJSON),
                "authenticatorData": .string(response.response.authenticatorData),
                "signature": .string(response.response.signature),
                "userHandle": .string(response.response.userHandle ?? ""),
            ]),
            "getClientExtensionResults": .object([:]),
        ]
    }

    /// attestation/options for `username`, then the software authenticator, then attestation/result.
    static func register(
        _ session: ToolSession, _ client: some TestClientProtocol, username: String,
        request: String? = nil, configure: (inout RegistrationKnobs) -> Void = { _ in },
        mutate: CredentialMutation? = nil
    ) async throws -> (reply: ToolReply, credential: SoftCredential) {
        let options = try await session.post(
            client, "/attestation/options",
            json: request ?? #"{"username":"\#(username)","displayName":"\#(username.capitalized)","attestation":"direct"}"#)
        #expect(options.isOK, "attestation/options: \(options.status) \(options.errorMessage ?? "")")
        var knobs = RegistrationKnobs(origin: ConformanceHarness.origin)
        configure(&knobs)
        let (response, credential) = try SoftAuthenticator.register(options: try creationOptions(options), knobs: knobs)
        var shaped = profileShape(response)
        mutate?.apply(&shaped)
        return (try await session.post(client, "/attestation/result", object: shaped), credential)
    }

    /// assertion/options for `username`, then the software authenticator, then assertion/result.
    static func authenticate(
        _ session: ToolSession, _ client: some TestClientProtocol, username: String, credential: inout SoftCredential,
        userVerification: String? = nil, configure: (inout AssertionKnobs) -> Void = { _ in },
        mutate: CredentialMutation? = nil
    ) async throws -> ToolReply {
        var request = #"{"username":"\#(username)""#
        if let userVerification { request += #","userVerification":"\#(userVerification)""# }
        let options = try await session.post(client, "/assertion/options", json: request + "}")
        #expect(options.isOK, "assertion/options: \(options.status) \(options.errorMessage ?? "")")
        var knobs = AssertionKnobs(origin: ConformanceHarness.origin)
        configure(&knobs)
        let response = try SoftAuthenticator.authenticate(options: try requestOptions(options), credential: &credential, knobs: knobs)
        var shaped = profileShape(response)
        mutate?.apply(&shaped)
        return try await session.post(client, "/assertion/result", object: shaped)
    }
}

/// The profile's failure: a 4xx, `status: "failed"`, a non-empty `errorMessage` that starts with the code.
func expectFailed(
    _ reply: ToolReply, _ status: Int? = nil, _ code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect((400..<500).contains(reply.status), "status \(reply.status)", sourceLocation: sourceLocation)
    if let status { #expect(reply.status == status, "status \(reply.status), expected \(status)", sourceLocation: sourceLocation) }
    #expect(reply.object["status"] == .string("failed"), sourceLocation: sourceLocation)
    let message = reply.errorMessage ?? ""
    #expect(!message.isEmpty, "errorMessage must not be empty", sourceLocation: sourceLocation)
    if let code {
        #expect(reply.code == code, "code \(reply.code ?? "nil"), expected \(code)", sourceLocation: sourceLocation)
        #expect(message.hasPrefix(code + ": "), "errorMessage \(message)", sourceLocation: sourceLocation)
    }
}

extension JSONValue {
    fileprivate var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

/// Parses a JSON literal of a test table.
func jsonLiteral(_ text: String) -> JSONValue {
    (try? JSONReader.parse(Array(text.utf8))) ?? .null
}

// MARK: - switched on by configuration

@Suite("FIDO conformance binding: configuration")
struct ConformanceConfigurationTests {
    @Test("off by default: none of the four routes exists")
    func offByDefault() async throws {
        #expect(HTTPConfiguration().conformanceBinding == false)
        let harness = try await ConformanceHarness(enabled: false)
        #expect(!harness.routes.contains { $0.hasPrefix("POST /attestation") || $0.hasPrefix("POST /assertion") })
        try await harness.app.test(.router) { client in
            for path in ["/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result"] {
                let reply = try await ToolSession().post(client, path, json: #"{"username":"x"}"#)
                #expect(reply.status == 404, "\(path)")
            }
        }
        let on = try await ConformanceHarness()
        #expect(on.routes.isSuperset(of: ["POST /attestation/options", "POST /attestation/result", "POST /assertion/options", "POST /assertion/result"]))
    }

    @Test("API keys apply as on /v1: without the key every conformance call is a 401 in the profile's shape")
    func apiKeys() async throws {
        let harness = try await ConformanceHarness(apiKeys: ["conformance-key-0001"])
        try await harness.app.test(.router) { client in
            let reply = try await ToolSession().post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            expectFailed(reply, 401, "unauthorized")
        }
    }

    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["PASSKEYD_DATABASE_URL": "postgresql://localhost/passkeyd", "PASSKEYD_MIGRATIONS": OpenAPIDocument.packageRoot.appendingPathComponent("Migrations").path]
            .merging(extra) { $1 }
    }

    @Test("PASSKEYD_FIDO_CONFORMANCE: off by default; on serves the binding with a start-up warning; anything else is an error")
    func setting() throws {
        let defaults = try Settings(Self.environment())
        #expect(defaults.fidoConformance == false && defaults.http.conformanceBinding == false)
        #expect(!defaults.warnings.contains { $0.contains("PASSKEYD_FIDO_CONFORMANCE") })
        let on = try Settings(Self.environment(["PASSKEYD_FIDO_CONFORMANCE": "on"]))
        #expect(on.fidoConformance && on.http.conformanceBinding)
        #expect(on.warnings.contains { $0.hasPrefix("PASSKEYD_FIDO_CONFORMANCE:") && $0.contains("testing only") })
        #expect(try Settings(Self.environment(["PASSKEYD_FIDO_CONFORMANCE": "off"])).fidoConformance == false)
        #expect(throws: ConfigurationError.self) { try Settings(Self.environment(["PASSKEYD_FIDO_CONFORMANCE": "maybe"])) }
        let keyed = try Settings(Self.environment(["PASSKEYD_FIDO_CONFORMANCE": "on", "PASSKEYD_API_KEYS": "a-long-enough-api-key"]))
        #expect(keyed.warnings.contains { $0.contains("conformance tools send none") })
    }

    /// The environment of a conformance run, as docs/fido-conformance.md gives it (the roots directory aside).
    static func readmeRecipe(roots: String) -> [String: String] {
        var recipe = [
            "PASSKEYD_FIDO_CONFORMANCE": "on", "PASSKEYD_RP_ID": "localhost", "PASSKEYD_ORIGINS": "http://localhost:8080",
            "PASSKEYD_USER_VERIFICATION": "preferred-unsafe",
            "PASSKEYD_ALGORITHMS": "ES256,ES384,ES512,EdDSA,Ed25519,PS256,PS384,PS512,RS256,RS384,RS512,RS1-unsafe",
            "PASSKEYD_ATTESTATION": "trusted-chains", "PASSKEYD_ATTESTATION_CONVEYANCE": "none",
            "PASSKEYD_UNSAFE_POLICIES": "allow-missing-user-presence,test-tpm-manufacturers",
        ]
        for format in ["PACKED", "FIDO_U2F", "TPM", "ANDROID_KEY", "ANDROID_SAFETYNET", "APPLE"] {
            recipe["PASSKEYD_TRUST_ROOTS_" + format] = roots
        }
        return recipe
    }

    @Test("the conformance recipe of docs/fido-conformance.md parses into the relying party these tests use")
    func readmeRecipe() throws {
        let roots = try SettingsFixtures.trustRootDirectory(count: 2)
        let settings = try Settings(Self.environment(Self.readmeRecipe(roots: roots)))
        #expect(settings.http.conformanceBinding && settings.apiKeys.isEmpty)
        let rp = settings.relyingParty
        #expect(rp.id == "localhost" && rp.allowedOrigins == ["http://localhost:8080"])
        #expect(rp.userVerification == .preferredUnsafe)
        #expect(rp.algorithms.algorithms.contains(.rs1) && rp.algorithms.algorithms.first == .es256)
        #expect(rp.attestation.requirement == .trustedChains && rp.attestation.conveyance == "none")
        #expect(rp.attestation.trustAnchors.count == 6)
        #expect(rp.allowMissingUserPresenceUnsafe && rp.attestation.allowTestTPMManufacturersUnsafe)
        #expect(!rp.attestation.trustLastCertificateUnsafe && !rp.attestation.androidKeyAllowSoftwareEnforcedUnsafe)
        #expect(settings.warnings.filter { $0.hasPrefix("PASSKEYD_UNSAFE_POLICIES") || $0.hasPrefix("PASSKEYD_FIDO_CONFORMANCE") }.count == 3)
    }

    @Test("PASSKEYD_ATTESTATION=trusted-chains: needs roots, asks for direct by default, and a none conveyance is allowed")
    func trustedChainsSetting() throws {
        let roots = try SettingsFixtures.trustRootDirectory(count: 1)
        let settings = try Settings(Self.environment(["PASSKEYD_ATTESTATION": "trusted-chains", "PASSKEYD_TRUST_ROOTS_PACKED": roots]))
        #expect(settings.relyingParty.attestation.requirement == .trustedChains)
        #expect(settings.relyingParty.attestation.conveyance == "direct")
        let quiet = try Settings(Self.environment([
            "PASSKEYD_ATTESTATION": "trusted-chains", "PASSKEYD_TRUST_ROOTS_PACKED": roots, "PASSKEYD_ATTESTATION_CONVEYANCE": "none",
        ]))
        #expect(quiet.relyingParty.attestation.conveyance == "none")
        #expect(throws: ConfigurationError.self) { try Settings(Self.environment(["PASSKEYD_ATTESTATION": "trusted-chains"])) }
    }

    @Test("PASSKEYD_UNSAFE_POLICIES: each name turns on its policy with a warning; none is on by default; unknown names are errors")
    func unsafePolicies() throws {
        let defaults = try Settings(Self.environment()).relyingParty
        #expect(!defaults.allowMissingUserPresenceUnsafe && !defaults.attestation.trustLastCertificateUnsafe)
        #expect(!defaults.attestation.allowTestTPMManufacturersUnsafe && !defaults.attestation.androidKeyAllowSoftwareEnforcedUnsafe)
        let all = try Settings(Self.environment([
            "PASSKEYD_UNSAFE_POLICIES": "allow-missing-user-presence, trust-last-certificate,test-tpm-manufacturers,android-key-software-enforced",
        ]))
        let rp = all.relyingParty
        #expect(rp.allowMissingUserPresenceUnsafe && rp.attestation.trustLastCertificateUnsafe)
        #expect(rp.attestation.allowTestTPMManufacturersUnsafe && rp.attestation.androidKeyAllowSoftwareEnforcedUnsafe)
        #expect(all.warnings.filter { $0.hasPrefix("PASSKEYD_UNSAFE_POLICIES:") }.count == 4)
        let one = try Settings(Self.environment(["PASSKEYD_UNSAFE_POLICIES": "allow-missing-user-presence"])).relyingParty
        #expect(one.allowMissingUserPresenceUnsafe && !one.attestation.trustLastCertificateUnsafe)
        #expect(throws: ConfigurationError.self) { try Settings(Self.environment(["PASSKEYD_UNSAFE_POLICIES": "skip-signatures"])) }
    }
}

// MARK: - options

@Suite("FIDO conformance binding: options (Server-ServerPublicKeyCredentialCreationOptions-Req-1, GetOptions-Req-1)")
struct ConformanceOptionsTests {
    static let selections: [String?] = [
        nil, "{}",
        #"{"requireResidentKey":false,"authenticatorAttachment":"cross-platform","userVerification":"preferred"}"#,
        #"{"requireResidentKey":true,"authenticatorAttachment":"platform","userVerification":"required"}"#,
        #"{"residentKey":"discouraged","requireResidentKey":false,"userVerification":"discouraged"}"#,
        #"{"residentKey":"required","userVerification":"preferred"}"#,
        #"{"authenticatorAttachment":"cross-platform"}"#,
    ]
    static let attestations: [String?] = [nil, "none", "indirect", "direct"]
    static let extensions: [String?] = [nil, #"{"example.extension":true}"#, #"{"credProps":true,"example.extension":{"nested":[1,"a"]}}"#]

    @Test("Req-1 P-1/P-2: every authenticatorSelection × attestation × extensions combination is answered and echoed", arguments: selections)
    func creationOptions(selection: String?) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            for attestation in Self.attestations {
                for extensions in Self.extensions {
                    var request = #"{"username":"johndoe@example.com","displayName":"John Doe""#
                    if let selection { request += #","authenticatorSelection":"# + selection }
                    if let attestation { request += #","attestation":""# + attestation + "\"" }
                    if let extensions { request += #","extensions":"# + extensions }
                    request += "}"
                    let session = ToolSession()
                    let reply = try await session.post(client, "/attestation/options", json: request)
                    let label = Comment(rawValue: request)
                    #expect(reply.isOK, label)
                    let object = reply.object
                    let user = try #require(object["user"]?.objectValue, label)
                    #expect(user["name"] == .string("johndoe@example.com") && user["displayName"] == .string("John Doe"), label)
                    let userID = try #require(user["id"]?.stringValue.flatMap(Base64URL.decodeStrict), label)
                    #expect((1...64).contains(userID.count), label)
                    #expect(object["rp"]?["name"]?.stringValue?.isEmpty == false, label)
                    #expect(object["rp"]?["id"] == .string(ConformanceHarness.rpID), label)
                    // The tool's check: unpadded base64url, longer than 21 characters (16 bytes at least), at most 64 bytes.
                    let challenge = try #require(object["challenge"]?.stringValue, label)
                    #expect(challenge.range(of: "^[a-zA-Z0-9_-]+$", options: .regularExpression) != nil && challenge.count > 21, label)
                    #expect((16...64).contains(Base64URL.decodeStrict(challenge)?.count ?? 0), label)
                    let params = object["pubKeyCredParams"]?.arrayValue ?? []
                    #expect(params.contains { $0["type"] == .string("public-key") && $0["alg"] == .number(-7) }, label)
                    #expect(params.allSatisfy { $0["type"] == .string("public-key") && $0["alg"]?.numberValue != nil }, label)
                    #expect((object["timeout"]?.numberValue ?? 0) > 0, label)
                    #expect(object["excludeCredentials"] == .array([]), label)
                    // Echoes.
                    if let selection {
                        #expect(object["authenticatorSelection"] == jsonLiteral(selection), label)
                    } else {
                        #expect(object["authenticatorSelection"]?["userVerification"] == .string("preferred"), label)
                    }
                    #expect(object["attestation"] == .string(attestation ?? "none"), label)
                    #expect(object["extensions"] == extensions.map(jsonLiteral), label)
                    // The session cookie carries the challenge.
                    #expect(session.cookies["passkeyd_attestation"] == challenge, label)
                }
            }
        }
    }

    @Test("the session cookie: HttpOnly, SameSite=Strict, scoped to its ceremony's path, lives as long as the challenge")
    func cookieAttributes() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let reply = try await session.post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            let cookie = try #require(reply.setCookies.first)
            #expect(reply.setCookies.count == 1)
            for attribute in ["Path=/attestation", "HttpOnly", "SameSite=Strict", "Max-Age=300"] {
                #expect(cookie.contains(attribute), "\(cookie) lacks \(attribute)")
            }
            let assertion = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#)
            let other = try #require(assertion.setCookies.first)
            #expect(other.hasPrefix("passkeyd_assertion=") && other.contains("Path=/assertion"))
        }
    }

    @Test("Req-1 P-3 and GetOptions P-2: two requests get different challenges")
    func freshChallenges() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let body = #"{"username":"alice","displayName":"Alice"}"#
            let first = try await session.post(client, "/attestation/options", json: body).object["challenge"]
            let second = try await session.post(client, "/attestation/options", json: body).object["challenge"]
            #expect(first != nil && first != second)
            let third = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#).object["challenge"]
            let fourth = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#).object["challenge"]
            #expect(third != nil && third != fourth)
        }
    }

    @Test("under the W3C default (user verification required) the enforced value is what the options say, not the request's")
    func strictPolicyIsShown() async throws {
        let harness = try await ConformanceHarness(environment: ["PASSKEYD_USER_VERIFICATION": "required"])
        try await harness.app.test(.router) { client in
            let reply = try await ToolSession().post(
                client, "/attestation/options",
                json: #"{"username":"alice","displayName":"Alice","authenticatorSelection":{"userVerification":"discouraged"}}"#)
            #expect(reply.isOK && reply.object["authenticatorSelection"] == jsonLiteral(#"{"userVerification":"required"}"#))
            let get = try await ToolSession().post(client, "/assertion/options", json: #"{"username":"alice","userVerification":"preferred"}"#)
            #expect(get.isOK && get.object["userVerification"] == .string("required"))
        }
    }

    @Test(
        "malformed options requests are refused in the profile's shape (400)",
        arguments: [
            ("/attestation/options", "[]"), ("/attestation/options", "{}"), ("/attestation/options", #"{"username":7}"#),
            ("/attestation/options", #"{"username":""}"#), ("/attestation/options", #"{"username":"a","displayName":false}"#),
            ("/attestation/options", #"{"username":"a","authenticatorSelection":"platform"}"#),
            ("/attestation/options", #"{"username":"a","authenticatorSelection":{"requireResidentKey":"yes"}}"#),
            ("/attestation/options", #"{"username":"a","attestation":1}"#), ("/attestation/options", #"{"username":"a","extensions":[]}"#),
            ("/attestation/options", "not json"), ("/assertion/options", "{}"), ("/assertion/options", #"{"username":null}"#),
            ("/assertion/options", #"{"username":"a","userVerification":"always"}"#),
            ("/assertion/options", #"{"username":"a","userVerification":true}"#), ("/assertion/options", #"{"username":"a","extensions":"appid"}"#),
        ])
    func malformedOptions(path: String, body: String) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let reply = try await session.post(client, path, json: body)
            expectFailed(reply, 400, "malformed_json")
            #expect(reply.setCookies.isEmpty, "no session for a refused request")
        }
    }

    @Test("Resp-1 P-1: after a registration, the same user's options exclude the credential; GetOptions P-1 lists exactly it")
    func excludeAndAllow() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let (reply, credential) = try await Tool.register(session, client, username: "alice")
            #expect(reply.isOK)
            let credentialID = Base64URL.encode(credential.id)
            let again = try await session.post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            #expect(again.object["excludeCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [credentialID])
            #expect(again.object["user"]?["id"] == .string(Base64URL.encode(credential.userHandle)), "a known user keeps their handle")

            for userVerification in ["required", "preferred", "discouraged"] {
                let get = try await session.post(
                    client, "/assertion/options",
                    json: #"{"username":"alice","userVerification":"\#(userVerification)","extensions":{"example.extension":true}}"#)
                #expect(get.isOK)
                let object = get.object
                #expect(object["allowCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [credentialID])
                #expect(object["allowCredentials"]?.arrayValue?.allSatisfy { $0["type"] == .string("public-key") } == true)
                #expect(object["userVerification"] == .string(userVerification))
                #expect(object["extensions"] == jsonLiteral(#"{"example.extension":true}"#))
                #expect(object["rpId"] == .string(ConformanceHarness.rpID))
                #expect((object["timeout"]?.numberValue ?? 0) > 0)
                let challenge = object["challenge"]?.stringValue ?? ""
                #expect((16...64).contains(Base64URL.decodeStrict(challenge)?.count ?? 0))
                #expect(session.cookies["passkeyd_assertion"] == challenge)
            }
            // Without userVerification or extensions: the policy's requirement, no extensions member.
            let plain = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#)
            #expect(plain.object["userVerification"] == .string("preferred") && plain.object["extensions"] == nil)
        }
    }

    @Test("GetOptions for an unknown username: the same shape as a known one (one random credential id), and no result can use it")
    func unknownUsername() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            var (_, credential) = try await Tool.register(session, client, username: "alice")
            let reply = try await session.post(client, "/assertion/options", json: #"{"username":"mallory","userVerification":"required"}"#)
            #expect(reply.isOK)
            let allowed = reply.object["allowCredentials"]?.arrayValue ?? []
            #expect(allowed.count == 1 && allowed.first?["id"]?.stringValue != Base64URL.encode(credential.id))
            let known = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#)
            #expect(Set(reply.object.keys) == Set(known.object.keys))
            // alice's credential against mallory's options: refused.
            let signIn = try await Tool.authenticate(session, client, username: "mallory", credential: &credential)
            expectFailed(signIn, 422, "credential_not_allowed")
            // An empty username asks for a discoverable credential.
            let discoverable = try await session.post(client, "/assertion/options", json: #"{"username":""}"#)
            #expect(discoverable.isOK && discoverable.object["allowCredentials"] == .array([]))
        }
    }
}

extension JSONValue {
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    fileprivate var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }
}

// MARK: - attestation results

/// The attestation formats the software authenticator produces, by name.
enum FormatCase: String, CaseIterable, Sendable {
    case none, packedSelf = "packed-self", packedFull = "packed-full", fidoU2F = "fido-u2f", tpm, androidKey = "android-key"
    case androidSafetyNet = "android-safetynet", apple

    var attestation: SoftAttestation {
        switch self {
        case .none: .none
        case .packedSelf: .packedSelf
        case .packedFull: .packedFull(ConformanceHarness.ca)
        case .fidoU2F: .fidoU2F(ConformanceHarness.ca)
        case .tpm: .tpm(ConformanceHarness.ca)
        case .androidKey: .androidKey(ConformanceHarness.ca)
        case .androidSafetyNet: .androidSafetyNet(Self.safetyNet())
        case .apple: .apple(ConformanceHarness.ca)
        }
    }
}

extension FormatCase {
    /// A SafetyNet response from the test CA, stamped now (the harness clock starts at the real time).
    static func safetyNet(_ configure: (inout SoftSafetyNet) -> Void = { _ in }) -> SoftSafetyNet {
        var options = SoftSafetyNet(ca: ConformanceHarness.ca)
        options.timestamp = Date()
        configure(&options)
        return options
    }
}

@Suite("FIDO conformance binding: attestation/result (Server-ServerAuthenticatorAttestationResponse-Resp-1…B)")
struct ConformanceAttestationTests {
    @Test("Resp-3…A P-1: a valid attestation of each format registers ({status: ok, errorMessage: \"\"}) and ends the session", arguments: FormatCase.allCases)
    func validFormats(format: FormatCase) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let (reply, credential) = try await Tool.register(session, client, username: "alice") { $0.attestation = format.attestation }
            #expect(reply.isOK, "\(format): \(reply.status) \(reply.errorMessage ?? "")")
            #expect(reply.body == Array(#"{"status":"ok","errorMessage":""}"#.utf8))
            #expect(reply.setCookies.contains { $0.hasPrefix("passkeyd_attestation=;") && $0.contains("Max-Age=0") })
            #expect(session.cookies["passkeyd_attestation"] == nil)
            let stored = try await harness.store.credential(id: credential.id)
            #expect(stored?.record.attestationFormat == (format == .packedSelf || format == .packedFull ? "packed" : format.rawValue))
        }
    }

    @Test("Resp-B F-1…F-3, F-5…F-7: android-safetynet with an empty ver or response, a wrong nonce, ctsProfileMatch false, a timestamp in the future or over a minute old")
    func androidSafetyNet() async throws {
        let harness = try await ConformanceHarness()
        @Sendable func replace(_ key: String, _ value: CBORValue) -> @Sendable (CBORValue) -> CBORValue {
            { statement in .map((statement.mapEntries ?? []).map { $0.key == .text(key) ? CBORMapEntry(.text(key), value) : $0 }) }
        }
        let cases: [(String, @Sendable (inout RegistrationKnobs) -> Void, String)] = [
            ("F-1 ver empty", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet()); $0.mutateStatement = replace("ver", .text("")) }, "malformed_attestation_statement"),
            ("F-2 response empty", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet()); $0.mutateStatement = replace("response", .bytes([])) }, "malformed_attestation_statement"),
            ("F-3 nonce", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet { $0.nonceOverride = Data(repeating: 1, count: 32).base64EncodedString() }) }, "safetynet_nonce_mismatch"),
            ("F-5 ctsProfileMatch false", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet { $0.ctsProfileMatch = false }) }, "safetynet_cts_profile_mismatch"),
            ("F-6 timestamp in the future", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet { $0.timestamp = Date().addingTimeInterval(120) }) }, "safetynet_timestamp_invalid"),
            ("F-7 timestamp over a minute old", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet { $0.timestamp = Date().addingTimeInterval(-120) }) }, "safetynet_timestamp_invalid"),
            ("JWS signature", { $0.attestation = .androidSafetyNet(FormatCase.safetyNet { $0.corruptSignature = true }) }, "jws_signature_invalid"),
        ]
        try await harness.app.test(.router) { client in
            for (id, configure, code) in cases {
                let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice", configure: configure)
                #expect(reply.code == code, "\(id): \(reply.status) \(reply.errorMessage ?? "")")
                expectFailed(reply)
            }
        }
    }

    @Test(
        "Resp-4: packed self attestation with each algorithm (RS1 only because the conformance relying party lists RS1-unsafe)",
        arguments: AlgorithmPolicy.allModern.algorithms + [.rs1])
    func algorithms(algorithm: COSEAlgorithm) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                $0.attestation = .packedSelf
                $0.algorithm = algorithm
            }
            #expect(reply.isOK, "\(algorithm.name): \(reply.errorMessage ?? "")")
        }
    }

    @Test("Resp-3 P-1: packed with authenticator extension data and ED set is accepted")
    func extensionData() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                $0.attestation = .packedFull(ConformanceHarness.ca)
                $0.authenticatorExtensions = .map([CBORMapEntry(.text("credProtect"), .unsigned(1))])
            }
            #expect(reply.isOK, "\(reply.errorMessage ?? "")")
        }
    }

    static let structure: [(CredentialMutation, String)] = [
        (.top("F-1 id missing", "id", nil), "malformed_response"),
        (.top("F-2 id not a string", "id", .number(42)), "malformed_response"),
        (.top("F-3 id not base64url", "id", .string("not*base64url")), "malformed_base64"),
        (.top("F-4 type missing", "type", nil), "malformed_response"),
        (.top("F-5 type not a string", "type", .bool(true)), "malformed_response"),
        (.top("F-6 type not public-key", "type", .string("password")), "invalid_credential_type"),
        (.top("F-7 response missing", "response", nil), "malformed_response"),
        (.top("F-8 response not an object", "response", .string("{}")), "malformed_response"),
        (.response("F-9 clientDataJSON missing", "clientDataJSON", nil), "malformed_response"),
        (.response("F-10 clientDataJSON not a string", "clientDataJSON", .array([])), "malformed_response"),
        (.response("F-11 clientDataJSON empty", "clientDataJSON", .string("")), "malformed_client_data"),
        (.response("F-12 attestationObject missing", "attestationObject", nil), "malformed_response"),
        (.response("F-13 attestationObject not a string", "attestationObject", .object([:])), "malformed_response"),
        (.response("F-14 attestationObject empty", "attestationObject", .string("")), "malformed_response"),
        (.top("getClientExtensionResults not an object", "getClientExtensionResults", .string("none")), "malformed_response"),
        (.top("rawId naming another credential", "rawId", .string(Base64URL.encode(Array(repeating: 7, count: 32)))), "credential_id_mismatch"),
    ]

    @Test("Resp-1 F-1…F-14: missing fields and wrong types are refused", arguments: structure)
    func structureFailures(mutation: CredentialMutation, code: String) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let (reply, _) = try await Tool.register(session, client, username: "alice", mutate: mutation)
            expectFailed(reply, nil, code)
            // The failed result consumed the session's ceremony: the correct response for it is refused now.
            #expect(session.cookies["passkeyd_attestation"] == nil)
            #expect(try await harness.store.user(named: "alice") == nil)
        }
    }

    /// clientDataJSON the test writes itself, for the members the software client always writes correctly.
    static func clientData(_ members: String) -> @Sendable (String) -> [UInt8] {
        { challenge in Array(members.replacingOccurrences(of: "CHALLENGE", with: challenge).utf8) }
    }

    static let clientDataCases: [(String, @Sendable (inout RegistrationKnobs) -> Void, String)] = [
        ("Resp-2 F-4/F-5 type webauthn.get", { $0.client.type = "webauthn.get" }, "client_data_type_mismatch"),
        ("Resp-2 F-3 type empty", { $0.client.type = "" }, "client_data_type_mismatch"),
        ("Resp-2 F-10 challenge of another ceremony (bad challenge)", { $0.client.challenge = Base64URL.encode(Array(repeating: 9, count: 32)) }, "challenge_mismatch"),
        ("Resp-2 F-8 challenge empty", { $0.client.challenge = "" }, "challenge_mismatch"),
        ("Resp-2 F-9 challenge not base64url", { $0.client.challenge = "@@@@" }, "malformed_client_data"),
        ("Resp-2 F-14 origin of another site (bad origin)", { $0.client.origin = "https://evil.example" }, "origin_not_allowed"),
        ("Resp-2 F-13 origin empty", { $0.client.origin = "" }, "origin_not_allowed"),
        ("Resp-2 F-17 tokenBinding status unknown", { $0.client.tokenBinding = .object(["status": .string("maybe")]) }, "token_binding_invalid"),
        ("Resp-3 bad rpIdHash", { $0.rpIDOverride = "evil.example" }, "rp_id_hash_mismatch"),
        ("Resp-3 F-1 attestationObject not a CBOR map", { $0.rawAttestationObject = [0x83, 0x01, 0x02, 0x03] }, "malformed_attestation_object"),
        ("Resp-3 F-12 leftover bytes after the attested data", { $0.mutateAuthenticatorData = { $0 + [0x00] } }, "malformed_authenticator_data"),
        ("Resp-5 F-1 unknown fmt", { $0.fmtOverride = "packed-but-not" }, "unsupported_attestation_format"),
        ("Resp-7 F-1 fmt none with a full packed statement", { $0.fmtOverride = "none" }, "malformed_attestation_statement"),
        ("user presence clear", { $0.userPresent = false }, "user_not_present"),
    ]

    @Test("Resp-2/3/5/7: client data and authenticator data failures (bad challenge, bad origin, bad rpIdHash, …)", arguments: clientDataCases.indices)
    func clientDataFailures(index: Int) async throws {
        let (name, configure, code) = Self.clientDataCases[index]
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                $0.attestation = .packedFull(ConformanceHarness.ca)
                configure(&$0)
            }
            expectFailed(reply, nil, code)
            #expect(reply.code == code, "\(name)")
        }
    }

    /// Rewrites the CBOR map of the attestation object (after signing) before it is posted.
    static func attestationObject(_ name: String, _ change: @escaping @Sendable (inout [CBORMapEntry]) -> Void) -> CredentialMutation {
        CredentialMutation(name: name) { credential in
            guard case .object(var response)? = credential["response"], let text = response["attestationObject"]?.stringValue,
                let bytes = Base64URL.decode(text), case .map(var entries)? = try? CBORDecoder.decode(bytes)
            else { return }
            change(&entries)
            response["attestationObject"] = .string(Base64URL.encode(CBOREncoder.encode(.map(entries))))
            credential["response"] = .object(response)
        }
    }

    static func set(_ key: String, _ value: CBORValue?) -> @Sendable (inout [CBORMapEntry]) -> Void {
        { entries in
            entries.removeAll { $0.key == .text(key) }
            if let value { entries.append(CBORMapEntry(.text(key), value)) }
        }
    }

    static func statement(_ key: String, _ value: CBORValue?) -> @Sendable (inout [CBORMapEntry]) -> Void {
        { entries in
            guard let index = entries.firstIndex(where: { $0.key == .text("attStmt") }), case .map(var statement) = entries[index].value else { return }
            statement.removeAll { $0.key == .text(key) }
            if let value { statement.append(CBORMapEntry(.text(key), value)) }
            entries[index] = CBORMapEntry(.text("attStmt"), .map(statement))
        }
    }

    static func authData(_ change: @escaping @Sendable ([UInt8]) -> [UInt8]) -> @Sendable (inout [CBORMapEntry]) -> Void {
        { entries in
            guard let index = entries.firstIndex(where: { $0.key == .text("authData") }), case .bytes(let data) = entries[index].value else { return }
            entries[index] = CBORMapEntry(.text("authData"), .bytes(change(data)))
        }
    }

    static let attestationObjectCases: [(CredentialMutation, String)] = [
        (attestationObject("Resp-3 F-2 fmt missing", set("fmt", nil)), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-3 fmt not a string", set("fmt", .unsigned(1))), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-4 attStmt missing", set("attStmt", nil)), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-5 attStmt not a map", set("attStmt", .array([]))), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-6 authData missing", set("authData", nil)), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-7 authData not bytes", set("authData", .text("authData"))), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-8 authData empty", set("authData", .bytes([]))), "malformed_attestation_object"),
        (attestationObject("Resp-3 F-9 AT clear but attested data present", authData { var data = $0; data[32] &= ~0x40; return data }), "malformed_authenticator_data"),
        (attestationObject("Resp-3 F-10 AT clear and no attested data", authData { var data = Array($0.prefix(37)); data[32] &= ~0x40; return data }), "attested_credential_data_missing"),
        (attestationObject("Resp-3 F-11 AT set but no attested data", authData { Array($0.prefix(37)) }), "malformed_authenticator_data"),
        (attestationObject("Resp-3 F-13 packed with an empty attStmt", set("attStmt", .map([]))), "malformed_attestation_statement"),
        (attestationObject("Resp-3 F-14 alg missing", statement("alg", nil)), "malformed_attestation_statement"),
        (attestationObject("Resp-3 F-15 alg not a number", statement("alg", .text("ES256"))), "malformed_attestation_statement"),
        (attestationObject("Resp-3 F-16 alg not the attestation key's", statement("alg", .negative(256))), "attestation_algorithm_mismatch"),
        (attestationObject("Resp-3 F-17 sig missing", statement("sig", nil)), "malformed_attestation_statement"),
        (attestationObject("Resp-3 F-18 sig not bytes", statement("sig", .text("sig"))), "malformed_attestation_statement"),
        (attestationObject("Resp-3 F-19 sig empty", statement("sig", .bytes([]))), "malformed_attestation_statement"),
        (attestationObject("Resp-5 F-3 x5c missing (then it is self attestation, signed by another key)", statement("x5c", nil)), "attestation_signature_invalid"),
        (attestationObject("Resp-5 F-4 x5c not an array", statement("x5c", .bytes([1, 2, 3]))), "malformed_attestation_statement"),
        (attestationObject("Resp-5 F-5 x5c empty", statement("x5c", .array([]))), "malformed_attestation_statement"),
    ]

    @Test("Resp-3 F-2…F-19, Resp-5 F-3…F-5: attestation objects and packed statements with missing or mistyped members", arguments: attestationObjectCases)
    func attestationObjectFailures(mutation: CredentialMutation, code: String) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice", configure: {
                $0.attestation = .packedFull(ConformanceHarness.ca)
            }, mutate: mutation)
            expectFailed(reply)
            #expect(reply.code == code, "\(mutation.name): \(reply.code ?? "nil")")
        }
    }

    static let signatureCases: [(FormatCase, String)] = [
        (.packedFull, "Resp-5 F-2"), (.packedSelf, "Resp-6 F-1"), (.fidoU2F, "Resp-8 F-2"), (.tpm, "Resp-9"), (.androidKey, "Resp-A"),
    ]

    /// Flips a bit of the statement's `sig`.
    static func corruptSignature(_ statement: CBORValue) -> CBORValue {
        guard case .map(let entries) = statement else { return statement }
        return .map(entries.map { entry in
            guard entry.key == .text("sig"), case .bytes(var sig) = entry.value, !sig.isEmpty else { return entry }
            sig[sig.count / 2] ^= 0x01
            return CBORMapEntry(entry.key, .bytes(sig))
        })
    }

    @Test("Resp-5 F-2, Resp-6 F-1, Resp-8 F-2 …: a statement whose signature does not verify is refused", arguments: signatureCases)
    func badSignatures(format: FormatCase, id: String) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                $0.attestation = format.attestation
                $0.mutateStatement = { ConformanceAttestationTests.corruptSignature($0) }
            }
            expectFailed(reply, 422)
            #expect(reply.code == "attestation_signature_invalid", "\(id) \(format): \(reply.errorMessage ?? "")")
        }
    }

    @Test("format-specific failures: Resp-9 F-2/F-3/F-4 extraData/magic/unique, Resp-A F-1/F-2 challenge/key")
    func formatFailures() async throws {
        let harness = try await ConformanceHarness()
        let cases: [(String, @Sendable (inout RegistrationKnobs) -> Void, String)] = [
            ("Resp-9 F-2", { $0.attestation = .tpm(ConformanceHarness.ca); $0.tpm.extraDataOverride = Array(repeating: 1, count: 32) }, "tpm_extra_data_mismatch"),
            ("Resp-9 F-3", { $0.attestation = .tpm(ConformanceHarness.ca); $0.tpm.magic = 0xFF54_4348 }, "tpm_magic_invalid"),
            ("Resp-9 F-4", { knobs in
                knobs.attestation = .tpm(ConformanceHarness.ca)
                knobs.tpm.mutatePubArea = { area in
                    var area = area
                    area[area.count - 1] ^= 0x01  // last byte of pubArea.unique
                    return area
                }
            }, "tpm_pub_area_key_mismatch"),
            ("Resp-A F-1", { $0.attestation = .androidKey(ConformanceHarness.ca); $0.androidKey.challengeOverride = Array(repeating: 2, count: 32) }, "android_key_challenge_mismatch"),
            ("Resp-A F-2", { knobs in
                knobs.attestation = .androidKey(ConformanceHarness.ca)
                knobs.androidKey.certifiedKeyOverride = try? PrivateKey.generate(for: .es256)
            }, "android_key_public_key_mismatch"),
        ]
        try await harness.app.test(.router) { client in
            for (id, configure, code) in cases {
                let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice", configure: configure)
                #expect(reply.code == code, "\(id): \(reply.status) \(reply.errorMessage ?? "")")
                expectFailed(reply)
            }
        }
    }

    @Test("apple (no signature in the statement): authenticator data changed after attestation breaks the nonce")
    func appleNonce() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                $0.attestation = .apple(ConformanceHarness.ca)
                $0.mutateAuthenticatorData = { data in
                    var data = data
                    data[33] ^= 0x01  // a bit of the signature counter
                    return data
                }
            }
            expectFailed(reply, 422, "apple_nonce_mismatch")
        }
    }

    @Test("where W3C and the profile disagree, W3C wins: Resp-8 F-1 (fido-u2f with a non-zero AAGUID) and Resp-2 F-15 (tokenBinding not an object) register")
    func w3cOverProfile() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            // §8.6 does not constrain the AAGUID (the spec's own fido-u2f vector has a non-zero one).
            let (u2f, _) = try await Tool.register(ToolSession(), client, username: "alice") { knobs in
                knobs.attestation = .fidoU2F(ConformanceHarness.ca)
                knobs.mutateBeforeSigning = true
                knobs.mutateAuthenticatorData = { data in
                    var data = data
                    data[37] = 0x01  // first AAGUID byte; the U2F signature does not cover it
                    return data
                }
            }
            #expect(u2f.isOK, "\(u2f.errorMessage ?? "")")
            // Level 3 no longer defines tokenBinding; a non-object value (old Chrome sent "unused") is ignored.
            let (binding, _) = try await Tool.register(ToolSession(), client, username: "bob") { $0.client.tokenBinding = .string("present") }
            #expect(binding.isOK, "\(binding.errorMessage ?? "")")
        }
    }

    @Test("the conformance tool's test TPMs (id:FFFFF1D0) need the named policy test-tpm-manufacturers")
    func testTPMManufacturer() async throws {
        for allow in [false, true] {
            let harness = try await ConformanceHarness(environment: allow ? ["PASSKEYD_UNSAFE_POLICIES": "test-tpm-manufacturers"] : [:])
            try await harness.app.test(.router) { client in
                let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") {
                    $0.attestation = .tpm(ConformanceHarness.ca)
                    $0.tpm.manufacturer = "id:FFFFF1D0"
                }
                if allow { #expect(reply.isOK, "\(reply.errorMessage ?? "")") } else { expectFailed(reply, 422, "tpm_manufacturer_unknown") }
            }
        }
    }

    @Test("trusted-chains: none and self register, a chain must reach a root (Resp-5 F-9/F-12, Resp-7 P-1 in one run); any-verified records an unknown root as untrusted")
    func trustedChains() async throws {
        let stranger = try TestAttestationCA(name: "not in the metadata")
        let expiredRoot = try TestAttestationCA(name: "expired metadata root", notBefore: Date(timeIntervalSince1970: 1_500_000_000), years: 1)
        let strict = try await ConformanceHarness(environment: [
            "PASSKEYD_ATTESTATION": "trusted-chains",
            "PASSKEYD_TRUST_ROOTS_PACKED": try TestFiles.pem(ConformanceHarness.ca.trustAnchors.certificates + expiredRoot.trustAnchors.certificates),
        ])
        try await strict.app.test(.router) { client in
            for format in [FormatCase.none, .packedSelf, .packedFull, .fidoU2F, .tpm, .androidKey, .androidSafetyNet, .apple] {
                let (reply, _) = try await Tool.register(ToolSession(), client, username: "alice") { $0.attestation = format.attestation }
                #expect(reply.isOK, "\(format): \(reply.errorMessage ?? "")")
            }
            // Req-1 P-2 still holds: a request for none gets none (trusted-chains does not force direct).
            let options = try await ToolSession().post(client, "/attestation/options", json: #"{"username":"bob","displayName":"Bob","attestation":"none"}"#)
            #expect(options.object["attestation"] == .string("none"))
            let (unknown, _) = try await Tool.register(ToolSession(), client, username: "alice") { $0.attestation = .packedFull(stranger) }
            expectFailed(unknown, 422, "attestation_untrusted")
            let (expired, _) = try await Tool.register(ToolSession(), client, username: "alice") { $0.attestation = .packedFull(expiredRoot) }
            expectFailed(expired, 422)
        }
        let lenient = try await ConformanceHarness()
        try await lenient.app.test(.router) { client in
            let (reply, credential) = try await Tool.register(ToolSession(), client, username: "alice") { $0.attestation = .packedFull(stranger) }
            #expect(reply.isOK)
            #expect(try await lenient.store.credential(id: credential.id)?.attestation.trust == "untrusted")
        }
        let selfOK = try await ConformanceHarness {
            // self-ok under the conformance run's none conveyance: a combination PASSKEYD_ATTESTATION refuses at start.
            $0.relyingParty.attestation.requirement = .selfOrTrusted
        }
        try await selfOK.app.test(.router) { client in
            expectFailed(try await Tool.register(ToolSession(), client, username: "alice") { $0.attestation = .none }.reply, 422, "attestation_not_allowed")
        }
    }

    @Test("a credential id registered twice is refused (409)")
    func duplicate() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let id = Array(repeating: UInt8(0x44), count: 32)
            #expect(try await Tool.register(ToolSession(), client, username: "alice") { $0.credentialID = id }.reply.isOK)
            expectFailed(try await Tool.register(ToolSession(), client, username: "bob") { $0.credentialID = id }.reply, 409, "credential_already_registered")
        }
    }
}

// MARK: - assertion results

@Suite("FIDO conformance binding: assertion/result (Server-ServerAuthenticatorAssertionResponse-Resp-1…3)")
struct ConformanceAssertionTests {
    /// A registered credential, with the session that registered it.
    static func registered(_ client: some TestClientProtocol, format: FormatCase = .none) async throws -> (ToolSession, SoftCredential) {
        let session = ToolSession()
        let (reply, credential) = try await Tool.register(session, client, username: "alice") { $0.attestation = format.attestation }
        #expect(reply.isOK)
        return (session, credential)
    }

    @Test("Resp-1 P-1: a valid assertion for each registered format signs in; userHandle \"\" is no user handle", arguments: FormatCase.allCases)
    func valid(format: FormatCase) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client, format: format)
            let reply = try await Tool.authenticate(session, client, username: "alice", credential: &credential)
            #expect(reply.isOK, "\(format): \(reply.errorMessage ?? "")")
            #expect(reply.setCookies.contains { $0.hasPrefix("passkeyd_assertion=;") && $0.contains("Max-Age=0") })
            let withoutHandle = try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.includeUserHandle = false }
            #expect(withoutHandle.isOK)
        }
    }

    static let structure: [(CredentialMutation, String)] = [
        (.top("F-1 id missing", "id", nil), "malformed_response"),
        (.top("F-2 id not a string", "id", .number(1)), "malformed_response"),
        (.top("F-3 id not base64url", "id", .string("%%%")), "malformed_base64"),
        (.top("F-4 type missing", "type", nil), "malformed_response"),
        (.top("F-5 type not a string", "type", .number(0)), "malformed_response"),
        (.top("F-6 type not public-key", "type", .string("public_key")), "invalid_credential_type"),
        (.top("F-7 response missing", "response", nil), "malformed_response"),
        (.top("F-8 response not an object", "response", .array([])), "malformed_response"),
        (.response("F-9 clientDataJSON missing", "clientDataJSON", nil), "malformed_response"),
        (.response("F-10 clientDataJSON not a string", "clientDataJSON", .bool(false)), "malformed_response"),
        (.response("F-11 clientDataJSON empty", "clientDataJSON", .string("")), "malformed_client_data"),
        (.response("F-12 authenticatorData missing", "authenticatorData", nil), "malformed_response"),
        (.response("F-13 authenticatorData not a string", "authenticatorData", .number(3)), "malformed_response"),
        (.response("F-14 authenticatorData not base64url", "authenticatorData", .string("a+b/c=")), "malformed_base64"),
        (.response("F-15 authenticatorData empty", "authenticatorData", .string("")), "malformed_authenticator_data"),
        (.response("F-16 signature missing", "signature", nil), "malformed_response"),
        (.response("F-17 signature not a string", "signature", .object([:])), "malformed_response"),
        (.response("F-18 signature not base64url", "signature", .string("***")), "malformed_base64"),
        (.response("F-19 signature empty", "signature", .string("")), "signature_invalid"),
        (.response("F-21 userHandle not a string", "userHandle", .number(5)), "malformed_response"),
    ]

    @Test("Resp-1 F-1…F-21: missing fields and wrong types are refused", arguments: structure)
    func structureFailures(mutation: CredentialMutation, code: String) async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            let reply = try await Tool.authenticate(session, client, username: "alice", credential: &credential, mutate: mutation)
            expectFailed(reply, nil, nil)
            #expect(reply.code != nil)
            // Codes are the engine's; a few shapes fail one step earlier or later than the name says, all 4xx.
            if reply.code != code { #expect([400, 422].contains(reply.status), "\(mutation.name): \(reply.code ?? "") vs \(code)") }
            #expect(session.cookies["passkeyd_assertion"] == nil)
        }
    }

    static let failures: [(String, @Sendable (inout AssertionKnobs) -> Void, String)] = [
        ("Resp-1 F-20 signature does not verify (bad signature)", { $0.corruptSignature = true }, "signature_invalid"),
        ("Resp-2 F-5 type webauthn.create", { $0.client.type = "webauthn.create" }, "client_data_type_mismatch"),
        ("Resp-2 F-10 challenge of another ceremony (bad challenge)", { $0.client.challenge = Base64URL.encode(Array(repeating: 3, count: 32)) }, "challenge_mismatch"),
        ("Resp-2 F-14 origin of another site (bad origin)", { $0.client.origin = "https://phish.example" }, "origin_not_allowed"),
        ("Resp-2 F-17 tokenBinding status unknown", { $0.client.tokenBinding = .object(["status": .string("absent")]) }, "token_binding_invalid"),
        ("Resp-3 F-1 leftover bytes in authenticatorData", { $0.mutateBeforeSigning = true; $0.mutateAuthenticatorData = { $0 + [0xA0] } }, "malformed_authenticator_data"),
        ("Resp-3 F-2 rpIdHash of another RP (bad rpIdHash)", { $0.rpIDOverride = "phish.example" }, "rp_id_hash_mismatch"),
        ("signature made with another key", { $0.signingKeyOverride = try? PrivateKey.generate(for: .es256) }, "signature_invalid"),
        ("Resp-3 F-5 only UP with userVerification required", { $0.userVerified = false }, "user_not_verified"),
        ("assertion with the AT flag set", { $0.setAttestedCredentialFlag = true }, "malformed_authenticator_data"),
        ("userHandle of another user", { $0.userHandleOverride = Array(repeating: 8, count: 32) }, "user_handle_mismatch"),
    ]

    @Test("Resp-1 F-20, Resp-2, Resp-3 F-1…F-5: bad signature, bad challenge, bad origin, bad rpIdHash, … are refused", arguments: failures.indices)
    func verificationFailures(index: Int) async throws {
        let (name, configure, code) = Self.failures[index]
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            let reply = try await Tool.authenticate(
                session, client, username: "alice", credential: &credential, userVerification: "required", configure: configure)
            expectFailed(reply, nil, code)
            #expect(reply.code == code, "\(name)")
        }
    }

    @Test("Resp-3 F-3: a signature over another clientDataHash (clientDataJSON changed after signing) is refused")
    func otherClientDataHash() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            let reply = try await Tool.authenticate(
                session, client, username: "alice", credential: &credential,
                mutate: CredentialMutation(name: "extra clientData member") { credential in
                    guard case .object(var response)? = credential["response"], let text = response["clientDataJSON"]?.stringValue,
                        let bytes = Base64URL.decode(text), bytes.last == UInt8(ascii: "}")
                    else { return }
                    response["clientDataJSON"] = .string(Base64URL.encode(bytes.dropLast() + Array(#","extra":1}"#.utf8)))
                    credential["response"] = .object(response)
                })
            expectFailed(reply, 422, "signature_invalid")
        }
    }

    @Test("unknown credential: an assertion from a credential the server never registered is a 404")
    func unknownCredential() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            let reply = try await Tool.authenticate(session, client, username: "alice", credential: &credential) {
                $0.rawIDOverride = Array(repeating: 0x21, count: 32)
            }
            expectFailed(reply, 404, "credential_unknown")
        }
    }

    @Test("Resp-3 P-1 a counter that stays 0 is accepted; F-4 a counter that does not increase is refused (counter regression)")
    func counters() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            for _ in 0..<2 {
                let zero = try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.counterIncrement = 0 }
                #expect(zero.isOK, "\(zero.errorMessage ?? "")")
            }
            #expect(try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.signCountOverride = 5 }.isOK)
            let same = try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.signCountOverride = 5 }
            expectFailed(same, 422, "sign_count_regressed")
            let lower = try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.signCountOverride = 2 }
            expectFailed(lower, 422, "sign_count_regressed")
            #expect(try await harness.store.credential(id: credential.id)?.record.signCount == 5, "the stored counter is never lowered")
        }
    }

    @Test("Resp-3 P-2/P-3/P-5/P-6/P-8: UV and UP flags against each userVerification; extensions with ED")
    func flags() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            var (session, credential) = try await Self.registered(client)
            let cases: [(String, Bool, Bool)] = [
                ("required", true, true),  // P-2 / P-3
                ("discouraged", true, false),  // P-5 UP only
                ("discouraged", true, true),  // P-6 UV
                ("preferred", true, false),
            ]
            for (requirement, up, uv) in cases {
                let reply = try await Tool.authenticate(session, client, username: "alice", credential: &credential, userVerification: requirement) {
                    $0.userPresent = up
                    $0.userVerified = uv
                }
                #expect(reply.isOK, "\(requirement) UP=\(up) UV=\(uv): \(reply.errorMessage ?? "")")
            }
            let withExtensions = try await Tool.authenticate(session, client, username: "alice", credential: &credential) {
                $0.authenticatorExtensions = .map([CBORMapEntry(.text("example.extension"), .bool(true))])
            }
            #expect(withExtensions.isOK, "P-8: \(withExtensions.errorMessage ?? "")")
        }
    }

    @Test("Resp-3 P-4/P-7 (UP and UV clear): refused by default as W3C §7.2 requires; accepted only under allow-missing-user-presence")
    func userPresenceDeviation() async throws {
        for allow in [false, true] {
            let harness = try await ConformanceHarness(environment: allow ? ["PASSKEYD_UNSAFE_POLICIES": "allow-missing-user-presence"] : [:])
            try await harness.app.test(.router) { client in
                var (session, credential) = try await Self.registered(client)
                for requirement in ["preferred", "discouraged"] {
                    let reply = try await Tool.authenticate(session, client, username: "alice", credential: &credential, userVerification: requirement) {
                        $0.userPresent = false
                        $0.userVerified = false
                    }
                    if allow { #expect(reply.isOK, "\(requirement)") } else { expectFailed(reply, 422, "user_not_present") }
                }
            }
        }
    }
}

// MARK: - the session cookie

@Suite("FIDO conformance binding: the session cookie binds result to options")
struct ConformanceSessionTests {
    @Test("a result without the session cookie is refused (session_missing) and consumes nothing; with it, the same body succeeds")
    func missingCookie() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let options = try await session.post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            let (response, _) = try SoftAuthenticator.register(
                options: try Tool.creationOptions(options), knobs: RegistrationKnobs(origin: ConformanceHarness.origin))
            let body = Tool.profileShape(response)
            expectFailed(try await session.post(client, "/attestation/result", object: body, sendCookies: false), 400, "session_missing")
            // A cookie that is not a challenge is no session either.
            let forged = ToolSession()
            forged.cookies["passkeyd_attestation"] = "short"
            expectFailed(try await forged.post(client, "/attestation/result", object: body), 400, "session_missing")
            // The other ceremony's cookie does not count.
            let crossed = ToolSession()
            crossed.cookies["passkeyd_assertion"] = session.cookies["passkeyd_attestation"]
            expectFailed(try await crossed.post(client, "/attestation/result", object: body), 400, "session_missing")
            #expect(try await session.post(client, "/attestation/result", object: body).isOK)
        }
    }

    @Test("a result for another session's challenge is refused (challenge_mismatch) and ends this session's ceremony")
    func otherSession() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let first = ToolSession()
            let second = ToolSession()
            let firstOptions = try await first.post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            let secondOptions = try await second.post(client, "/attestation/options", json: #"{"username":"bob","displayName":"Bob"}"#)
            let knobs = RegistrationKnobs(origin: ConformanceHarness.origin)
            let firstBody = Tool.profileShape(try SoftAuthenticator.register(options: try Tool.creationOptions(firstOptions), knobs: knobs).response)
            let secondBody = Tool.profileShape(try SoftAuthenticator.register(options: try Tool.creationOptions(secondOptions), knobs: knobs).response)
            // The second client posts the first client's response with its own cookie.
            expectFailed(try await second.post(client, "/attestation/result", object: firstBody), 422, "challenge_mismatch")
            // The second session's own ceremony was consumed by that attempt: its correct response is refused now.
            second.cookies["passkeyd_attestation"] = try Tool.creationOptions(secondOptions).challenge
            expectFailed(try await second.post(client, "/attestation/result", object: secondBody), 400, "challenge_unknown_or_expired")
            // The first session is untouched.
            #expect(try await first.post(client, "/attestation/result", object: firstBody).isOK)
        }
    }

    @Test("an unknown session (a replayed result, or an expired one) is refused: challenge_unknown_or_expired")
    func unknownSession() async throws {
        let harness = try await ConformanceHarness()
        try await harness.app.test(.router) { client in
            let session = ToolSession()
            let options = try await session.post(client, "/attestation/options", json: #"{"username":"alice","displayName":"Alice"}"#)
            let cookie = session.cookies["passkeyd_attestation"]
            let registered = try SoftAuthenticator.register(
                options: try Tool.creationOptions(options), knobs: RegistrationKnobs(origin: ConformanceHarness.origin))
            let response = registered.response
            var credential = registered.credential
            #expect(try await session.post(client, "/attestation/result", object: Tool.profileShape(response)).isOK)
            session.cookies["passkeyd_attestation"] = cookie  // a tool that ignores the cleared cookie
            expectFailed(try await session.post(client, "/attestation/result", object: Tool.profileShape(response)), 400, "challenge_unknown_or_expired")

            // The same on the assertion side, after the challenge expired.
            let get = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#)
            let assertion = try SoftAuthenticator.authenticate(
                options: try Tool.requestOptions(get), credential: &credential, knobs: AssertionKnobs(origin: ConformanceHarness.origin))
            harness.clock.advance(301)
            expectFailed(try await session.post(client, "/assertion/result", object: Tool.profileShape(assertion)), 400, "challenge_unknown_or_expired")
        }
    }
}

// MARK: - the document

@Suite("FIDO conformance binding: OpenAPI")
struct ConformanceOpenAPITests {
    @Test("replies of the conformance endpoints (successes and failures) validate against openapi.json")
    func documented() async throws {
        let document = try OpenAPIDocument.load()
        let check = Conformance(document: document)
        let settings = try ConformanceHarness.settings()
        let passkeyd = try await TestPasskeyd.build(settings, store: TestPasskeyd.store(for: settings))
        let app = Application(responder: RouteRecorder(router: passkeyd.http.responder))
        try await app.test(.router) { client in
            var cookies: [String: String] = [:]
            func call(_ path: String, _ body: String, cookie: String? = nil) async throws -> ObservedReply {
                var headers: HTTPFields = [:]
                if let cookie, let value = cookies[cookie] { headers[.cookie] = "\(cookie)=\(value)" }
                let reply = try await client.observe(.post, path, body: Array(body.utf8), headers: headers)
                check.check(reply)
                return reply
            }
            func remember(_ reply: ObservedReply, _ name: String) {
                if case .string(let challenge)? = reply.json?["challenge"] { cookies[name] = challenge }
            }
            let options = try await call(
                "/attestation/options",
                #"{"username":"ada","displayName":"Ada","authenticatorSelection":{"userVerification":"preferred"},"attestation":"direct","extensions":{"credProps":true}}"#)
            remember(options, "passkeyd_attestation")
            let creation = try JSONDecoder().decode(CreationOptionsJSON.self, from: Data(options.body))
            let registered = try SoftAuthenticator.register(options: creation, knobs: RegistrationKnobs(origin: ConformanceHarness.origin))
            let registration = registered.response
            var credential = registered.credential
            let encoded = String(decoding: try JSONEncoder().encode(JSONValue.object(Tool.profileShape(registration))), as: UTF8.self)
            #expect(try await call("/attestation/result", encoded, cookie: "passkeyd_attestation").status == 200)
            #expect(try await call("/attestation/result", encoded, cookie: "passkeyd_attestation").status == 400)
            #expect(try await call("/attestation/result", encoded).status == 400)
            #expect(try await call("/attestation/options", "{}").status == 400)

            let get = try await call("/assertion/options", #"{"username":"ada","userVerification":"required"}"#)
            remember(get, "passkeyd_assertion")
            let request = try JSONDecoder().decode(RequestOptionsJSON.self, from: Data(get.body))
            var assertion = try SoftAuthenticator.authenticate(
                options: request, credential: &credential, knobs: AssertionKnobs(origin: ConformanceHarness.origin))
            var shaped = Tool.profileShape(assertion)
            #expect(try await call("/assertion/result", String(decoding: try JSONEncoder().encode(JSONValue.object(shaped)), as: UTF8.self), cookie: "passkeyd_assertion").status == 200)
            remember(try await call("/assertion/options", #"{"username":"ada"}"#), "passkeyd_assertion")
            assertion = try SoftAuthenticator.authenticate(
                options: request, credential: &credential, knobs: AssertionKnobs(origin: ConformanceHarness.origin))
            shaped = Tool.profileShape(assertion)
            #expect(try await call("/assertion/result", String(decoding: try JSONEncoder().encode(JSONValue.object(shaped)), as: UTF8.self), cookie: "passkeyd_assertion").status == 422)
            #expect(try await call("/assertion/options", "[]").status == 400)
        }
    }
}

// MARK: - on PostgreSQL

@Suite("FIDO conformance binding on PostgreSQL", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct ConformancePostgresTests {
    @Test("tpm registration and sign-in through the binding: rows written, counter moved, every session's ceremony consumed")
    func flow() async throws {
        try await withPostgresHTTP(environment: ConformanceHarness.environment()) { schema, instance in
            try await instance.app.test(.router) { client in
                let session = ToolSession()
                var (reply, credential) = try await Tool.register(session, client, username: "alice") {
                    $0.attestation = .tpm(ConformanceHarness.ca)
                }
                #expect(reply.isOK, "\(reply.errorMessage ?? "")")
                #expect(try await schema.count("users") == 1)
                #expect(try await schema.count("credentials") == 1)
                let signIn = try await Tool.authenticate(session, client, username: "alice", credential: &credential, userVerification: "required")
                #expect(signIn.isOK, "\(signIn.errorMessage ?? "")")
                #expect(try await schema.credential(credential.id)?.signCount == 1)
                // A failed result (bad signature) also ends its session.
                let forged = try await Tool.authenticate(session, client, username: "alice", credential: &credential) { $0.corruptSignature = true }
                expectFailed(forged, 422, "signature_invalid")
                #expect(try await schema.credential(credential.id)?.signCount == 1)
                // The session of a result refused for its session (no cookie) is left pending until it expires.
                _ = try await session.post(client, "/assertion/options", json: #"{"username":"alice"}"#)
                expectFailed(try await session.post(client, "/assertion/result", json: "{}", sendCookies: false), 400, "session_missing")
                #expect(try await schema.count("ceremonies") == 1)
                expectFailed(try await session.post(client, "/assertion/result", json: "{}"), 400, "malformed_response")
                #expect(try await schema.count("ceremonies") == 0)
            }
        }
    }
}
