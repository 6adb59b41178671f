import PasskeyApp
import AppleSignedData
import COSECrypto
import Foundation
import IdentityCore
import JOSE
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOCore
// @testable for APIError's mappings from WebAuthnError / StoreError / IdentityError / SessionError codes to HTTP
// statuses (internal initialisers).
@testable import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import SessionCore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

// The OpenAPI document (Sources/PasskeyHTTP/Resources/openapi.json) checked against the code, both ways:
//
//   (a) it is OpenAPI 3.1, every operation has an operationId and responses, every `$ref` resolves;
//   (b) every documented (method, path) reaches that very route of the router built with every feature on;
//   (c) every route of that router is documented (Hummingbird's public `Router.routes` lists them);
//   (d) error responses are 4xx/5xx with the error schema, and the documented (status, code) pairs are exactly the
//       pairs `APIError` can produce;
//   and the responses of real ceremonies, sessions and admin calls validate against the documented schemas.

// MARK: - the document

/// The parsed document with the lookups the tests need.
struct OpenAPIDocument: Sendable {
    struct Operation: Sendable, CustomStringConvertible {
        let method: String  // upper case, as HTTP spells it
        let path: String  // the template, `{param}`
        let object: [String: JSONValue]
        /// Path-item and operation parameters.
        let parameters: [JSONValue]
        var description: String { "\(method) \(path)" }
        var key: String { description }
        var operationId: String? { object["operationId"]?.stringValue }

        var securitySchemes: Set<String> {
            Set((object["security"]?.asArray ?? []).flatMap { $0.asObject?.keys.map { $0 } ?? [] })
        }
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    let bytes: [UInt8]
    let root: JSONValue

    init(bytes: [UInt8]) throws {
        self.bytes = bytes
        root = try JSONReader.parse(bytes, maxDepth: 64)
    }

    /// The repository's file (what the resource bundle copies).
    static let sourceURL = packageRoot.appendingPathComponent("Sources/PasskeyHTTP/Resources/openapi.json")
    /// Tests/PasskeyHTTPTests/Server/this file → the repository.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func load() throws -> OpenAPIDocument {
        try OpenAPIDocument(bytes: Array(try Data(contentsOf: sourceURL)))
    }

    var operations: [Operation] {
        var result: [Operation] = []
        for (path, item) in root["paths"]?.asObject ?? [:] {
            let item = item.asObject ?? [:]
            let shared = item["parameters"]?.asArray ?? []
            for method in Self.methods {
                guard let operation = item[method]?.asObject else { continue }
                result.append(
                    Operation(
                        method: method.uppercased(), path: path, object: operation,
                        parameters: shared + (operation["parameters"]?.asArray ?? [])))
            }
        }
        return result.sorted { $0.key < $1.key }
    }

    func operation(_ method: String, _ path: String) -> Operation? {
        operations.first { $0.method == method && $0.path == path }
    }

    /// Resolves a local reference (`#/components/...`, JSON Pointer escapes included).
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch node {
            case .object(let members): guard let next = members[key] else { return nil }; node = next
            case .array(let items): guard let index = Int(key), items.indices.contains(index) else { return nil }; node = items[index]
            default: return nil
            }
        }
        return node
    }

    /// Follows `$ref`s (a Response or Parameter object that is only a reference).
    func dereference(_ value: JSONValue) -> JSONValue? {
        var value = value
        for _ in 0..<8 {
            guard let reference = value["$ref"]?.stringValue else { return value }
            guard let target = resolve(reference) else { return nil }
            value = target
        }
        return nil
    }

    /// Every `$ref` in the document, with where it is.
    func references() -> [(location: String, reference: String)] {
        var found: [(String, String)] = []
        func walk(_ value: JSONValue, _ location: String) {
            switch value {
            case .object(let members):
                if case .string(let reference)? = members["$ref"] { found.append((location, reference)) }
                for (key, member) in members { walk(member, "\(location)/\(key)") }
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, "\(location)/\(index)") }
            default: break
            }
        }
        walk(root, "#")
        return found
    }

    /// The documented responses of an operation, dereferenced, by status key.
    func responses(_ operation: Operation) -> [String: [String: JSONValue]] {
        var result: [String: [String: JSONValue]] = [:]
        for (status, response) in operation.object["responses"]?.asObject ?? [:] {
            result[status] = dereference(response)?.asObject ?? [:]
        }
        return result
    }

    /// The JSON schema of a response, if it has an `application/json` body.
    func jsonSchema(_ response: [String: JSONValue]) -> JSONValue? {
        response["content"]?["application/json"]?["schema"]
    }

    /// Whether `schema` is, or is an `allOf` with, the shared error schema.
    func isErrorSchema(_ schema: JSONValue) -> Bool {
        let errorReference = "#/components/schemas/Error"
        if schema["$ref"]?.stringValue == errorReference { return true }
        return (schema["allOf"]?.asArray ?? []).contains { $0["$ref"]?.stringValue == errorReference }
    }

    /// The codes an error response documents: the `enum` narrowing `error.code`.
    func errorCodes(_ schema: JSONValue) -> [String] {
        (schema["properties"]?["error"]?["properties"]?["code"]?["enum"]?.asArray ?? []).compactMap(\.stringValue)
    }
}

extension JSONValue {
    fileprivate var asObject: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    fileprivate var asArray: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    fileprivate var asNumber: Double? {
        if case .number(let number) = self { return number }
        return nil
    }
}

// MARK: - a small JSON Schema validator (the keywords the document uses)

struct SchemaValidator {
    let document: OpenAPIDocument

    /// Violations of `schema` by `value`; empty when it validates. Unknown keywords are refused, so the document
    /// cannot silently use one this validator ignores.
    func violations(_ value: JSONValue, _ schema: JSONValue, at location: String = "$") -> [String] {
        if case .bool(let allowed) = schema { return allowed ? [] : ["\(location): no value is allowed"] }
        guard case .object(let keywords) = schema else { return ["\(location): schema is not an object"] }
        var problems: [String] = []
        for (keyword, argument) in keywords {
            switch keyword {
            case "$ref":
                guard let reference = argument.stringValue, let target = document.resolve(reference) else {
                    problems.append("\(location): unresolvable $ref \(argument)")
                    continue
                }
                problems += violations(value, target, at: location)
            case "allOf":
                for sub in argument.asArray ?? [] { problems += violations(value, sub, at: location) }
            case "anyOf", "oneOf":
                let matches = (argument.asArray ?? []).filter { violations(value, $0, at: location).isEmpty }.count
                if keyword == "anyOf" ? matches == 0 : matches != 1 {
                    problems.append("\(location): \(matches) of the \(keyword) alternatives match")
                }
            case "type":
                let types = argument.asArray?.compactMap(\.stringValue) ?? [argument.stringValue ?? ""]
                if !types.contains(where: { Self.has(value, type: $0) }) {
                    problems.append("\(location): \(Self.brief(value)) is not \(types.joined(separator: "|"))")
                }
            case "enum":
                if !(argument.asArray ?? []).contains(value) { problems.append("\(location): \(Self.brief(value)) is not in the enum") }
            case "const":
                if value != argument { problems.append("\(location): \(Self.brief(value)) is not \(argument)") }
            case "properties":
                guard case .object(let members) = value else { continue }
                for (name, sub) in argument.asObject ?? [:] {
                    if let member = members[name] { problems += violations(member, sub, at: "\(location).\(name)") }
                }
            case "required":
                guard case .object(let members) = value else { continue }
                for name in (argument.asArray ?? []).compactMap(\.stringValue) where members[name] == nil {
                    problems.append("\(location): required member \(name) is missing")
                }
            case "additionalProperties":
                guard case .object(let members) = value else { continue }
                let declared = Set(keywords["properties"]?.asObject?.keys.map { $0 } ?? [])
                for (name, member) in members where !declared.contains(name) {
                    problems += violations(member, argument, at: "\(location).\(name)")
                }
            case "items":
                guard case .array(let items) = value else { continue }
                for (index, item) in items.enumerated() { problems += violations(item, argument, at: "\(location)[\(index)]") }
            case "pattern":
                guard case .string(let text) = value, let pattern = argument.stringValue else { continue }
                if text.range(of: pattern, options: .regularExpression) == nil {
                    problems.append("\(location): \"\(text)\" does not match \(pattern)")
                }
            case "minLength", "maxLength":
                guard case .string(let text) = value, let bound = argument.asNumber else { continue }
                if keyword == "minLength" ? Double(text.count) < bound : Double(text.count) > bound {
                    problems.append("\(location): length \(text.count) violates \(keyword) \(bound)")
                }
            case "minimum", "maximum":
                guard case .number(let number) = value, let bound = argument.asNumber else { continue }
                if keyword == "minimum" ? number < bound : number > bound {
                    problems.append("\(location): \(number) violates \(keyword) \(bound)")
                }
            case "format":
                if argument.stringValue == "date-time", case .string(let text) = value,
                    ISO8601DateFormatter().date(from: text) == nil
                {
                    problems.append("\(location): \"\(text)\" is not an ISO 8601 date-time")
                }
            case "description", "default", "title", "examples":
                continue
            default:
                problems.append("\(location): the validator does not know the keyword \(keyword)")
            }
        }
        return problems
    }

    static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .number):
            return true
        case ("integer", .number(let number)):
            return number == number.rounded()
        default:
            return false
        }
    }

    static func brief(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): "\(bool)"
        case .number(let number): "\(number)"
        case .string(let string): "\"\(string.prefix(40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// MARK: - the router, observed

/// Wraps the router's responder and tags each response with the route that answered it.
///
/// `RouterResponder` writes the matched route's path template (spelled `{param}`, as in OpenAPI) into the context's
/// `endpointPath`, a box shared with this wrapper's copy of the context. When nothing matches (no path, or no
/// responder for the method), Hummingbird's not-found responder sets it to "NotFound" and throws
/// `HTTPError(.notFound)`. So a response carries the header exactly when a route of ours answered, whatever the
/// status: our own 404s (`user_unknown`, ...) are tagged, the router's are not.
struct RouteRecorder: HTTPResponder {
    /// The header carrying "METHOD /template" (spelled inline: HTTPField.Name is not re-exported by Hummingbird).
    static let headerName = "x-test-matched-route"
    let router: RouterResponder<PasskeyRequestContext>

    func respond(to request: Request, context: PasskeyRequestContext) async throws -> Response {
        var response: Response
        do {
            response = try await router.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        if let route = context.endpointPath, route.hasPrefix("/") {
            response.headers[.init(Self.headerName)!] = "\(request.method.rawValue) \(route)"
        }
        return response
    }
}

/// One exchange: status, content type, body, and the route that answered (nil: the router's no-route 404).
struct ObservedReply: Sendable {
    let status: Int
    let contentType: String?
    let route: String?
    let body: [UInt8]
    var setCookie: String? = nil
    var json: JSONValue? { try? JSONReader.parse(body) }
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// An instance with every feature on: API keys, admin keys, metrics, the FIDO conformance binding, the demo page, the
/// `/.well-known/` documents, ID-token sign-in (the test provider's keys), sessions (also on registration; keys in the
/// in-memory store), App Store signed data and App Attest.
struct OpenAPIHarness {
    static let origin = "https://openapi.passkeyd.test"
    static let apiKey = "api-key-1"
    static let adminKey = "admin-key-1"
    static let appAttestAppID = "ABCDE12345.com.example.openapi"
    static let appAttestDevice = try! SoftAppAttest()
    /// The files the settings name: the sessions' key-encryption key and the App Attest device's root.
    static let files: (keyEncryptionKey: String, appAttestRoot: String) = {
        do {
            return (try TestFiles.keyEncryptionKey(), try TestFiles.pem(appAttestDevice.trustAnchors.certificates, name: "appattest-root.pem"))
        } catch {
            fatalError("OpenAPIHarness files: \(error)")
        }
    }()

    /// Every route, as `METHOD /path`.
    let routes: [String]
    let app: Application<RouteRecorder>

    init(adminKeys: [String] = [Self.adminKey], apiKeys: [String] = [Self.apiKey]) async throws {
        var environment = [
            "PASSKEYD_RP_ID": "openapi.passkeyd.test",
            // The related origin is one of the accepted ones, as PASSKEYD_RELATED_ORIGINS requires.
            "PASSKEYD_ORIGINS": "\(Self.origin),https://openapi.passkeyd.example",
            "PASSKEYD_FIDO_CONFORMANCE": "on", "PASSKEYD_DEMO": "on",
            "PASSKEYD_APPLE_APP_IDS": Self.appAttestAppID,
            "PASSKEYD_ANDROID_APPS": "com.example.openapi=" + Array(repeating: "5A", count: 32).joined(separator: ":"),
            "PASSKEYD_RELATED_ORIGINS": "https://openapi.passkeyd.example",
            "PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "com.example.app",
            "PASSKEYD_SESSIONS": "on", "PASSKEYD_SESSION_AUDIENCES": "https://api.example", "PASSKEYD_SESSION_KEY_ROTATION": "86400",
            "PASSKEYD_SESSION_ON_REGISTRATION": "on", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": Self.files.keyEncryptionKey,
            "PASSKEYD_APPSTORE_BUNDLE_ID": "com.example", "PASSKEYD_APPSTORE_ENVIRONMENTS": "Sandbox",
            "PASSKEYD_APPSTORE_ROOT_FILES": StoreKitVectors.root.appendingPathComponent("certs/testCA.pem").path,
            // App Attest on, with the software device's test root (AppAttestHTTPTests checks its replies).
            "PASSKEYD_APPATTEST_APP_IDS": Self.appAttestAppID, "PASSKEYD_APPATTEST_ROOT_FILE": Self.files.appAttestRoot,
        ]
        if !apiKeys.isEmpty { environment["PASSKEYD_API_KEYS"] = apiKeys.joined(separator: ",") }
        if !adminKeys.isEmpty { environment["PASSKEYD_ADMIN_KEYS"] = adminKeys.joined(separator: ",") }
        let settings = try TestPasskeyd.unboundedSettings(environment)
        // Metrics on (so /metrics is routed), into a no-op factory: the global one may belong to another test.
        let passkeyd = try await TestPasskeyd.build(
            settings, store: TestPasskeyd.store(for: settings),
            metricsExporter: { Array("# TYPE passkeyd_up gauge\npasskeyd_up 1\n".utf8) }, providerKeys: TestIDP.shared.providerKeys())
        routes = passkeyd.routes
        app = Application(responder: RouteRecorder(router: passkeyd.http.responder))
    }
}

extension TestClientProtocol {
    func observe(
        _ method: HTTPRequest.Method, _ uri: String, body: [UInt8]? = nil, headers: HTTPFields = [:]
    ) async throws -> ObservedReply {
        try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) { response in
            ObservedReply(
                status: Int(response.status.code), contentType: response.headers[.contentType],
                route: response.headers[.init(RouteRecorder.headerName)!], body: Array(response.body.readableBytesView),
                setCookie: response.headers[.setCookie])
        }
    }
}

/// Checks replies against the document: the route answered, the status is documented for it, the body validates.
struct Conformance {
    let document: OpenAPIDocument
    var validator: SchemaValidator { SchemaValidator(document: document) }

    /// Records an issue for every way `reply` departs from the document; returns the operation it answered for.
    @discardableResult
    func check(_ reply: ObservedReply, sourceLocation: SourceLocation = #_sourceLocation) -> OpenAPIDocument.Operation? {
        guard let route = reply.route else {
            Issue.record("no route answered (status \(reply.status))", sourceLocation: sourceLocation)
            return nil
        }
        let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, let operation = document.operation(parts[0], parts[1]) else {
            Issue.record("\(route) answered but is not documented", sourceLocation: sourceLocation)
            return nil
        }
        guard let response = document.responses(operation)[String(reply.status)] else {
            Issue.record("\(route) answered \(reply.status), which it does not document", sourceLocation: sourceLocation)
            return operation
        }
        let content = response["content"]?.asObject ?? [:]
        if content.isEmpty {
            #expect(reply.body.isEmpty, "\(route) \(reply.status) documents no body", sourceLocation: sourceLocation)
        } else if let schema = document.jsonSchema(response) {
            #expect(reply.contentType == "application/json", "\(route) \(reply.status)", sourceLocation: sourceLocation)
            guard let json = reply.json else {
                Issue.record("\(route) \(reply.status): the body is not JSON", sourceLocation: sourceLocation)
                return operation
            }
            let problems = validator.violations(json, schema)
            #expect(problems.isEmpty, "\(route) \(reply.status): \(problems)", sourceLocation: sourceLocation)
        } else {
            let type = reply.contentType ?? ""
            let documented = content.first { type.hasPrefix($0.key.split(separator: ";")[0]) }
            #expect(documented != nil, "\(route) \(reply.status): content type \(type) is not documented", sourceLocation: sourceLocation)
            // A JSON media type of its own (application/jwk-set+json): its schema is checked as well.
            if let documented, documented.key.hasSuffix("+json"), let schema = documented.value["schema"] {
                guard let json = reply.json else {
                    Issue.record("\(route) \(reply.status): the body is not JSON", sourceLocation: sourceLocation)
                    return operation
                }
                let problems = validator.violations(json, schema)
                #expect(problems.isEmpty, "\(route) \(reply.status): \(problems)", sourceLocation: sourceLocation)
            }
        }
        return operation
    }
}

// MARK: - the codes APIError can produce

/// Every (status, code) pair the API can answer with, read from the code: the literal `APIError(status:code:)`s of
/// PasskeyHTTP, every WebAuthnError / StoreError code (declared as `Code(rawValue: "...")` in WebAuthnCore and
/// PasskeyStore), and every IdentityError / SessionError code (their `Code.all` lists), each through APIError's own mapping.
enum ProducibleErrors {
    static func pairs() throws -> Set<String> {
        var pairs = Set<String>()
        for source in try sources(in: "Sources/PasskeyHTTP") {
            for match in source.matches(of: /APIError\(\s*status:\s*(\d+),\s*code:\s*"([a-z0-9_]+)"/) {
                pairs.insert("\(match.1) \(match.2)")
            }
        }
        for code in try declaredCodes(in: "Sources/WebAuthnCore") {
            let error = APIError(WebAuthnError(WebAuthnError.Code(rawValue: code)))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in try declaredCodes(in: "Sources/PasskeyStore") {
            let error = APIError(StoreError(StoreError.Code(rawValue: code)))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in try declaredCodes(in: "Sources/PasskeyApp/Passkeys") {
            let error = APIError(CeremonyError(CeremonyError.Code(rawValue: code)))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in try declaredCodes(in: "Sources/PasskeyApp/Admin") {
            let error = APIError(AdminError(AdminError.Code(rawValue: code)))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in try declaredCodes(in: "Sources/PasskeyApp/SelfService") {
            let error = APIError(SelfServiceError(SelfServiceError.Code(rawValue: code)))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in IdentityError.Code.all {
            let error = APIError(IdentityError(code, ""))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in SessionError.Code.all {
            let error = APIError(SessionError(code, ""))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in AppStoreError.Code.all {
            let error = APIError(AppStoreError(code, ""))
            pairs.insert("\(error.status) \(error.code)")
        }
        for code in AppAttestError.Code.all {
            let error = APIError(AppAttestError(code, ""))
            pairs.insert("\(error.status) \(error.code)")
        }
        return pairs
    }

    static func declaredCodes(in directory: String) throws -> Set<String> {
        var codes = Set<String>()
        for source in try sources(in: directory) {
            for match in source.matches(of: /Code\(rawValue:\s*"([a-z0-9_]+)"\)/) { codes.insert(String(match.1)) }
        }
        return codes
    }

    static func sources(in directory: String) throws -> [String] {
        let root = OpenAPIDocument.packageRoot.appendingPathComponent(directory)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return try enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .map { try String(contentsOf: $0, encoding: .utf8) }
    }
}

// MARK: - tests

@Suite("OpenAPI document")
struct OpenAPITests {
    static let bearerAPI: HTTPFields = [.authorization: "Bearer \(OpenAPIHarness.apiKey)"]
    static let bearerAdmin: HTTPFields = [.authorization: "Bearer \(OpenAPIHarness.adminKey)"]

    @Test("GET /openapi.json serves the repository's document, as JSON, without any key")
    func served() async throws {
        let harness = try await OpenAPIHarness()
        let file = try OpenAPIDocument.load()
        try await harness.app.test(.router) { client in
            let reply = try await client.observe(.get, "/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.contentType == "application/json")
            #expect(reply.route == "GET /openapi.json")
            #expect(reply.body == file.bytes, "the served document is the file in Sources/PasskeyHTTP/Resources")
        }
        // With the admin API off, the served document has no admin operation (and no Admin tag), and everything else.
        let closed = try await OpenAPIHarness(adminKeys: [], apiKeys: [])
        try await closed.app.test(.router) { client in
            let reply = try await client.observe(.get, "/openapi.json")
            let served = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
            let paths = try #require(served["paths"] as? [String: [String: Any]])
            let operations = Set(paths.flatMap { path, item in
                item.keys.filter { OpenAPIResource.methods.contains($0) }.map { "\($0.uppercased()) \(path)" }
            })
            let expected = Set(file.operations.map(\.key)).filter { !$0.contains(" /v1/admin") }
            #expect(operations == expected, "\(operations.symmetricDifference(expected).sorted())")
            #expect(!((served["tags"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "Admin" })
            #expect(served["components"] != nil && served["info"] != nil)
        }
    }

    @Test("(a) OpenAPI 3.1; every operation has a unique operationId and responses; every $ref resolves")
    func wellFormed() throws {
        let document = try OpenAPIDocument.load()
        #expect(document.root["openapi"]?.stringValue?.hasPrefix("3.1.") == true)
        #expect(document.root["info"]?["title"]?.stringValue?.isEmpty == false)
        #expect(document.root["info"]?["version"]?.stringValue?.isEmpty == false)

        let operations = document.operations
        #expect(operations.count >= 15, "the document lost its operations: \(operations)")
        var ids: [String: String] = [:]
        let schemes = Set(document.root["components"]?["securitySchemes"]?.asObject?.keys.map { $0 } ?? [])
        #expect(schemes == ["apiKey", "adminKey", "accessToken"])
        for name in schemes {
            let scheme = document.root["components"]?["securitySchemes"]?[name]
            #expect(scheme?["type"]?.stringValue == "http" && scheme?["scheme"]?.stringValue == "bearer", "\(name)")
        }
        for operation in operations {
            guard let id = operation.operationId, !id.isEmpty else {
                Issue.record("\(operation) has no operationId")
                continue
            }
            #expect(ids.updateValue(operation.key, forKey: id) == nil, "operationId \(id) is not unique")
            let responses = document.responses(operation)
            #expect(!responses.isEmpty, "\(operation) has no responses")
            for (status, response) in responses {
                #expect(status.count == 3 && Int(status) != nil, "\(operation): response key \(status) is not a status code")
                #expect(response["description"]?.stringValue != nil, "\(operation) \(status) has no description")
            }
            #expect(operation.object["security"] != nil, "\(operation) does not say who may call it")
            #expect(operation.securitySchemes.isSubset(of: schemes), "\(operation) names an undeclared security scheme")
            // Path parameters: each `{name}` declared, required, in: path; nothing else declared in: path.
            let templated = Set(operation.path.matches(of: /\{([^}]+)\}/).map { String($0.1) })
            let declared = Set(
                operation.parameters.compactMap { document.dereference($0) }
                    .filter { $0["in"]?.stringValue == "path" && $0["required"] == .bool(true) }
                    .compactMap { $0["name"]?.stringValue })
            #expect(templated == declared, "\(operation): path parameters \(declared) vs template \(templated)")
        }
        let references = document.references()
        #expect(references.count > 50, "the document is expected to share its schemas through $ref")
        for (location, reference) in references {
            #expect(document.resolve(reference) != nil, "\(location): $ref \(reference) does not resolve")
        }
    }

    @Test("(b)+(c) the documented routes and the router's routes are the same set, and each reaches its route")
    func routes() async throws {
        let document = try OpenAPIDocument.load()
        let harness = try await OpenAPIHarness()
        let documented = Set(document.operations.map(\.key))
        // (c) Hummingbird 2's public `Router.routes` lists every (method, path) added; a `:param` is described `{param}`.
        // The demo page's routes (/demo, PASSKEYD_DEMO=on; DemoRoutes.swift) are a development aid, deliberately not part
        // of the API document; their errors reuse documented (status, code) pairs.
        let routed = Set(harness.routes.filter { !$0.contains(" /demo") })
        #expect(routed.count >= 15 && routed.contains("GET /metrics"), "the router lost its routes: \(routed)")
        let undocumented = routed.subtracting(documented)
        #expect(undocumented.isEmpty, "routes missing from openapi.json: \(undocumented.sorted())")
        let unrouted = documented.subtracting(routed)
        #expect(unrouted.isEmpty, "documented but not routed: \(unrouted.sorted())")

        // (b) Each documented operation, sent with valid path parameters and the right key, is answered by its own
        // route, with a status it documents and a body that validates.
        let conformance = Conformance(document: document)
        let id = Base64URL.encode(Array(repeating: UInt8(0xA7), count: 32))
        try await harness.app.test(.router) { client in
            var reached = 0
            for operation in document.operations where routed.contains(operation.key) {
                let uri = operation.path.replacing(/\{[^}]+\}/, with: id)
                var headers: HTTPFields = [:]
                if operation.securitySchemes.contains("adminKey") { headers = Self.bearerAdmin }
                if operation.securitySchemes.contains("apiKey") { headers = Self.bearerAPI }
                let body: [UInt8]? = operation.object["requestBody"] == nil ? nil : Array("{}".utf8)
                let reply = try await client.observe(.init(operation.method)!, uri, body: body, headers: headers)
                #expect(reply.route == operation.key, "\(operation.key) was answered by \(reply.route ?? "no route")")
                if conformance.check(reply)?.key == operation.key { reached += 1 }
            }
            #expect(reached == documented.count)

            // The distinction is real: what the router does not route is untagged, and answered in the API's error
            // form: an unknown path 404 route_unknown, a known path with another method 405 with Allow.
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/nothing"), (.get, "/v1/admin/users/\(id)/x"), (.post, "/v1/admin/users/\(id)/x/y")] {
                let reply = try await client.observe(method, uri, headers: Self.bearerAdmin)
                #expect(reply.route == nil && reply.status == 404 && reply.errorCode == "route_unknown", "\(method) \(uri)")
                #expect(reply.contentType == "application/json")
            }
            for (method, uri, allow) in [
                (HTTPRequest.Method.put, "/healthz", "GET"), (.init("TRACE")!, "/v1/registration/begin", "POST"),
                (.post, "/v1/admin/users/\(id)", "DELETE, GET"), (.get, "/v1/admin/credentials/\(id)", nil),
            ] {
                try await client.execute(uri: uri, method: method, headers: Self.bearerAdmin) { response in
                    guard let allow else {
                        #expect(response.status != .methodNotAllowed, "\(uri) has GET")
                        return
                    }
                    #expect(response.status == .methodNotAllowed && response.headers[.allow] == allow, "\(method) \(uri): \(response.headers)")
                    #expect(response.headers[.contentType] == "application/json")
                    #expect(String(buffer: response.body).contains(#""code":"method_not_allowed""#))
                }
            }
            // ... and our own JSON 404s are tagged.
            let unknown = try await client.observe(.get, "/v1/admin/users/\(id)", headers: Self.bearerAdmin)
            #expect(unknown.status == 404 && unknown.errorCode == "user_unknown" && unknown.route == "GET /v1/admin/users/{userId}")
        }

        // Without an admin key the admin routes do not exist (documented: the adminKey scheme).
        let closed = try await OpenAPIHarness(adminKeys: [])
        #expect(!closed.routes.contains { $0.contains(" /v1/admin") })
        try await closed.app.test(.router) { client in
            let reply = try await client.observe(.get, "/v1/admin/users", headers: Self.bearerAdmin)
            #expect(reply.route == nil && reply.status == 404)
        }
    }

    @Test("(d) error responses: 4xx/5xx with the error schema, and exactly the (status, code) pairs APIError produces")
    func errorResponses() throws {
        let document = try OpenAPIDocument.load()
        let errorSchema = try #require(document.resolve("#/components/schemas/Error"))
        #expect(errorSchema["required"] == .array([.string("error")]))
        #expect(errorSchema["properties"]?["error"]?["required"] == .array([.string("code"), .string("message")]))

        var documented = Set<String>()
        for operation in document.operations {
            for (status, response) in document.responses(operation) {
                let code = Int(status) ?? 0
                let schema = document.jsonSchema(response)
                let isError = schema.map(document.isErrorSchema) ?? false
                if code >= 400 {
                    #expect(code < 600)
                    #expect(isError, "\(operation) \(status) does not use the error schema")
                    let codes = schema.map(document.errorCodes) ?? []
                    #expect(!codes.isEmpty, "\(operation) \(status) lists no error codes")
                    for errorCode in codes { documented.insert("\(status) \(errorCode)") }
                } else {
                    #expect(!isError, "\(operation) \(status) is a success with the error schema")
                }
            }
        }

        // The router-level answers (RouteFallbackMiddleware) are documented as component responses, not per operation.
        for name in ["RouteUnknown", "MethodNotAllowed"] {
            let response = try #require(document.resolve("#/components/responses/\(name)")?.asObject, "\(name)")
            let schema = try #require(document.jsonSchema(response))
            let status = name == "RouteUnknown" ? "404" : "405"
            for errorCode in document.errorCodes(schema) { documented.insert("\(status) \(errorCode)") }
        }

        let producible = try ProducibleErrors.pairs()
        // The scan must see the code: known pairs from each source.
        for pair in ["400 malformed_json", "401 unauthorized", "413 body_too_large", "404 user_unknown",
            "400 invalid_parameter", "500 internal_error", "400 challenge_unknown_or_expired", "404 credential_unknown",
            "400 malformed_response", "410 challenge_expired", "422 signature_invalid", "422 attestation_untrusted",
            "400 invalid_user_entity", "409 credential_already_registered", "409 user_exists", "503 storage_unavailable",
            "401 access_token_expired", "401 session_revoked", "401 refresh_token_reused", "400 refresh_token_malformed",
            "400 handoff_verifier_mismatch", "404 session_unknown"]
        {
            #expect(producible.contains(pair), "the source scan missed \(pair)")
        }
        #expect(producible.count >= 50)
        let undocumented = producible.subtracting(documented)
        #expect(undocumented.isEmpty, "(status, code) pairs the API produces but the document lacks: \(undocumented.sorted())")
        let invented = documented.subtracting(producible)
        #expect(invented.isEmpty, "(status, code) pairs the document lists but the API cannot produce: \(invented.sorted())")
    }

    @Test("responses of real ceremonies, sessions and admin calls validate against the document")
    func conformance() async throws {
        let document = try OpenAPIDocument.load()
        let check = Conformance(document: document)
        let harness = try await OpenAPIHarness()
        try await harness.app.test(.router) { client in
            func call(
                _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, headers: HTTPFields = OpenAPITests.bearerAPI
            ) async throws -> ObservedReply {
                let reply = try await client.observe(method, uri, body: body.map { Array($0.utf8) }, headers: headers)
                check.check(reply)
                return reply
            }
            func post(_ uri: String, _ value: some Encodable) async throws -> ObservedReply {
                try await call(.post, uri, String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
            }

            // Registration: begin (full request), finish (201), the same credential again (409).
            let begin = try await call(
                .post, "/v1/registration/begin",
                #"{"user":{"name":"ada","displayName":"Ada"},"authenticatorSelection":{"residentKey":"required"},"attestation":"none","hints":["client-device"],"extensions":{"credProps":true}}"#)
            #expect(begin.status == 200)
            let creation = try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(begin.body)).publicKey
            var (registration, credential) = try SoftAuthenticator.register(
                options: creation, knobs: RegistrationKnobs(origin: OpenAPIHarness.origin))
            let finish = try await post("/v1/registration/finish", FinishRegistration(credential: registration, nickname: "laptop"))
            #expect(finish.status == 201)
            let again = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await call(.post, "/v1/registration/begin", #"{"user":{"name":"grace"}}"#).body)).publicKey
            registration = try SoftAuthenticator.register(options: again, knobs: {
                var knobs = RegistrationKnobs(origin: OpenAPIHarness.origin)
                knobs.credentialID = credential.id
                return knobs
            }()).response
            #expect(try await post("/v1/registration/finish", FinishRegistration(credential: registration, nickname: nil)).status == 409)
            let second = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await call(.post, "/v1/registration/begin", #"{"user":{"name":"grace"}}"#).body)).publicKey
            registration = try SoftAuthenticator.register(options: second, knobs: RegistrationKnobs(origin: OpenAPIHarness.origin)).response
            #expect(try await post("/v1/registration/finish", FinishRegistration(credential: registration, nickname: nil)).status == 201)

            // Authentication: by name, discoverable, with an empty body, a bad signature (422), a replay (400).
            for body in [#"{"user":{"name":"ada"},"userVerification":"required"}"#, "{}", ""] {
                let options = try await call(.post, "/v1/authentication/begin", body)
                #expect(options.status == 200)
                let request = try JSONDecoder().decode(PublicKeyWrapper<RequestOptionsJSON>.self, from: Data(options.body)).publicKey
                let assertion = try SoftAuthenticator.authenticate(
                    options: request, credential: &credential, knobs: AssertionKnobs(origin: OpenAPIHarness.origin))
                let signIn = try await post("/v1/authentication/finish", FinishAuthentication(credential: assertion))
                #expect(signIn.status == 200)
                if body.isEmpty {
                    let replay = try await post("/v1/authentication/finish", FinishAuthentication(credential: assertion))
                    #expect(replay.status == 400 && replay.errorCode == "challenge_unknown_or_expired")
                }
            }
            let request = try JSONDecoder().decode(
                PublicKeyWrapper<RequestOptionsJSON>.self,
                from: Data(try await call(.post, "/v1/authentication/begin", "{}").body)).publicKey
            var forged = try SoftAuthenticator.authenticate(
                options: request, credential: &credential, knobs: AssertionKnobs(origin: OpenAPIHarness.origin))
            forged.response.signature = Base64URL.encode(Array(repeating: 1, count: 70))
            #expect(try await post("/v1/authentication/finish", FinishAuthentication(credential: forged)).status == 422)

            // Sessions (on in the harness, also on registration: the finishes above answered one): a sign-in's session,
            // the JWKS, introspection, handoffs and exchanges (PKCE, the cookie), refresh and reuse, sign-out, the admin API.
            let sessionRequest = try JSONDecoder().decode(
                PublicKeyWrapper<RequestOptionsJSON>.self,
                from: Data(try await call(.post, "/v1/authentication/begin", "{}").body)).publicKey
            let sessionAssertion = try SoftAuthenticator.authenticate(
                options: sessionRequest, credential: &credential, knobs: AssertionKnobs(origin: OpenAPIHarness.origin))
            let signedIn = try await post("/v1/authentication/finish", FinishAuthentication(credential: sessionAssertion))
            let native = try #require(signedIn.json?["session"])
            let access = try #require(native["accessToken"]?.stringValue)
            let firstRefresh = try #require(native["refreshToken"]?.stringValue)
            let sessionUser = try #require(signedIn.json?["user"]?["id"]?.stringValue)
            let open: HTTPFields = [:]
            let bearerAccess: HTTPFields = [.authorization: "Bearer \(access)"]
            let jwks = try await call(.get, "/.well-known/jwks.json", headers: open)
            #expect(jwks.status == 200 && jwks.contentType == "application/jwk-set+json")
            if case .array(let keys)? = jwks.json?["keys"] { #expect(!keys.isEmpty) } else { Issue.record("no keys in the JWKS") }

            let active = try await call(.post, "/v1/sessions/introspect", #"{"token":"\#(access)"}"#)
            #expect(active.status == 200 && active.json?["active"] == .bool(true) && active.json?["sub"]?.stringValue == sessionUser)
            #expect(try await call(.post, "/v1/sessions/introspect", #"{"token":"\#(firstRefresh)"}"#).json?["active"] == .bool(false))
            #expect(try await call(.post, "/v1/sessions/introspect", "{}").status == 400)
            #expect(try await call(.post, "/v1/sessions/introspect", #"{"token":"x"}"#, headers: open).status == 401)

            // Handoff from the app (bearer access token) with PKCE, exchanged into a cookie; without PKCE; from the backend.
            let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            let bound = try await call(
                .post, "/v1/handoff", #"{"codeChallenge":"\#(PKCE.challenge(for: verifier))","codeChallengeMethod":"S256"}"#,
                headers: bearerAccess)
            #expect(bound.status == 201)
            let boundCode = try #require(bound.json?["code"]?.stringValue)
            let intoCookie = try await call(
                .post, "/v1/handoff/exchange", #"{"code":"\#(boundCode)","codeVerifier":"\#(verifier)","cookie":true}"#, headers: open)
            #expect(intoCookie.status == 200 && intoCookie.json?["session"]?["refreshToken"] == nil)
            let cookie = try #require(intoCookie.setCookie?.split(separator: ";").first.map(String.init))
            #expect(cookie.hasPrefix("passkeyd_refresh=pkd_rt_"))
            let plain = try await call(.post, "/v1/handoff", nil, headers: bearerAccess)
            let plainCode = try #require(plain.json?["code"]?.stringValue)
            let web = try await call(.post, "/v1/handoff/exchange", #"{"code":"\#(plainCode)"}"#, headers: open)
            #expect(web.status == 200 && web.setCookie == nil)
            let webSession = try #require(web.json?["session"])
            #expect(try await call(.post, "/v1/handoff/exchange", #"{"code":"\#(plainCode)"}"#, headers: open).errorCode == "handoff_code_unknown")
            let another = try await call(
                .post, "/v1/handoff", #"{"codeChallenge":"\#(PKCE.challenge(for: verifier))"}"#, headers: bearerAccess)
            let anotherCode = try #require(another.json?["code"]?.stringValue)
            let missing = try await call(.post, "/v1/handoff/exchange", #"{"code":"\#(anotherCode)"}"#, headers: open)
            #expect(missing.errorCode == "handoff_verifier_required")
            #expect(try await call(.post, "/v1/handoff/exchange", #"{"code":"nope"}"#, headers: open).errorCode == "handoff_code_malformed")
            #expect(try await call(.post, "/v1/handoff/exchange", #"{"code":1}"#, headers: open).errorCode == "malformed_json")
            #expect(try await call(.post, "/v1/handoff", #"{"userId":"\#(sessionUser)"}"#).status == 201)
            #expect(try await call(.post, "/v1/handoff", #"{"userId":"\#(sessionUser)"}"#, headers: open).errorCode == "unauthorized")
            #expect(try await call(.post, "/v1/handoff", #"{"userId":"\#(Base64URL.encode([1, 2, 3]))"}"#).errorCode == "user_unknown")
            #expect(try await call(.post, "/v1/handoff", #"{"codeChallenge":"short"}"#, headers: bearerAccess).errorCode == "handoff_verifier_malformed")
            #expect(try await call(.post, "/v1/handoff", #"{"codeChallengeMethod":"plain"}"#, headers: bearerAccess).errorCode == "malformed_json")
            #expect(try await call(.post, "/v1/handoff", "{}", headers: open).errorCode == "unauthorized")
            #expect(try await call(.post, "/v1/handoff", "{}", headers: [.authorization: "Bearer x.y.z"]).errorCode == "access_token_malformed")

            // Self-service with the access token: list, rename, an automatic upgrade through /v1/me, its deletion,
            // identities; a user created without a sign-in method, then upgraded by id.
            let mine = try await call(.get, "/v1/me/credentials", headers: bearerAccess)
            #expect(mine.status == 200)
            let ownID = try #require(mine.json?["credentials"]?.asArray?.first?["id"]?.stringValue)
            #expect(try await call(.patch, "/v1/me/credentials/\(ownID)", #"{"nickname":"desk"}"#, headers: bearerAccess).status == 200)
            #expect(try await call(.get, "/v1/me/credentials", headers: open).errorCode == "unauthorized")
            let meBegin = try await call(.post, "/v1/me/registration/begin", #"{"mediation":"conditional","extensions":{"credProps":true}}"#, headers: bearerAccess)
            #expect(meBegin.status == 200 && meBegin.json?["mediation"]?.stringValue == "conditional")
            let upgradeOptions = try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(meBegin.body)).publicKey
            var silent = RegistrationKnobs(origin: OpenAPIHarness.origin)
            silent.userPresent = false
            silent.userVerified = false
            let upgrade = try SoftAuthenticator.register(options: upgradeOptions, knobs: silent).response
            let meFinish = try await call(
                .post, "/v1/me/registration/finish", String(decoding: try JSONEncoder().encode(FinishRegistration(credential: upgrade, nickname: nil)), as: UTF8.self),
                headers: bearerAccess)
            #expect(meFinish.status == 201 && meFinish.json?["credential"]?["createdBy"]?.stringValue == "conditional")
            #expect(try await call(.get, "/v1/me/identities", headers: bearerAccess).status == 200)
            #expect(try await call(.delete, "/v1/me/identities/\(Base64URL.encode([9, 9, 9]))", headers: bearerAccess).errorCode == "identity_unknown")
            #expect(try await call(.delete, "/v1/me/credentials/\(upgrade.id)", headers: bearerAccess).status == 204)
            #expect(try await call(.delete, "/v1/me/credentials/\(upgrade.id)", headers: bearerAccess).errorCode == "credential_unknown")
            let created = try await call(.post, "/v1/users", #"{"name":"hopper","displayName":"Grace Hopper"}"#)
            #expect(created.status == 201)
            #expect(try await call(.post, "/v1/users", #"{"name":"hopper"}"#).errorCode == "user_exists")
            #expect(try await call(.post, "/v1/users", #"{"id":"AAAA"}"#).errorCode == "malformed_json")
            let createdID = try #require(created.json?["user"]?["id"]?.stringValue)
            let byID = try await call(.post, "/v1/registration/begin", #"{"user":{"id":"\#(createdID)"},"mediation":"conditional"}"#)
            #expect(byID.status == 200 && byID.json?["mediation"]?.stringValue == "conditional")

            // Refresh with the body, then the retired token again: the session is revoked; its access token no longer
            // makes handoffs and introspects inactive.
            let refreshed = try await call(.post, "/v1/sessions/refresh", #"{"refreshToken":"\#(firstRefresh)"}"#, headers: open)
            #expect(refreshed.status == 200 && refreshed.setCookie == nil)
            let reused = try await call(.post, "/v1/sessions/refresh", #"{"refreshToken":"\#(firstRefresh)"}"#, headers: open)
            #expect(reused.status == 401 && reused.errorCode == "refresh_token_reused")
            let current = try #require(refreshed.json?["session"]?["refreshToken"]?.stringValue)
            #expect(try await call(.post, "/v1/sessions/refresh", #"{"refreshToken":"\#(current)"}"#, headers: open).errorCode == "session_inactive")
            #expect(try await call(.post, "/v1/handoff", "{}", headers: bearerAccess).errorCode == "session_revoked")
            #expect(try await call(.post, "/v1/sessions/introspect", #"{"token":"\#(access)"}"#).json?["active"] == .bool(false))
            let unknownToken = "pkd_rt_" + String(repeating: "A", count: 43)
            #expect(try await call(.post, "/v1/sessions/refresh", #"{"refreshToken":"\#(unknownToken)"}"#, headers: open).errorCode == "refresh_token_unknown")
            #expect(try await call(.post, "/v1/sessions/refresh", #"{"refreshToken":"nope"}"#, headers: open).errorCode == "refresh_token_malformed")
            #expect(try await call(.post, "/v1/sessions/refresh", "{}", headers: open).errorCode == "malformed_json")

            // The cookie: refresh (a new cookie, no refresh token in the body), sign out (cleared), refresh again (401, cleared).
            let byCookie = try await call(.post, "/v1/sessions/refresh", nil, headers: [.cookie: cookie])
            #expect(byCookie.status == 200 && byCookie.json?["session"]?["refreshToken"] == nil)
            let renewed = try #require(byCookie.setCookie?.split(separator: ";").first.map(String.init))
            let signedOut = try await call(.post, "/v1/sessions/revoke", nil, headers: [.cookie: renewed])
            #expect(signedOut.status == 204 && signedOut.setCookie?.contains("Max-Age=0") == true)
            let afterSignOut = try await call(.post, "/v1/sessions/refresh", nil, headers: [.cookie: renewed])
            #expect(afterSignOut.errorCode == "session_inactive" && afterSignOut.setCookie?.contains("Max-Age=0") == true)

            // Sign-out with the access token and with the refresh token; the failures.
            let webAccess = try #require(webSession["accessToken"]?.stringValue)
            #expect(try await call(.post, "/v1/sessions/revoke", nil, headers: [.authorization: "Bearer \(webAccess)"]).status == 204)
            #expect(try await call(.post, "/v1/sessions/revoke", #"{"refreshToken":"\#(current)"}"#, headers: open).status == 204)
            #expect(try await call(.post, "/v1/sessions/revoke", "{}", headers: [.authorization: "Bearer x.y.z"]).errorCode == "access_token_malformed")
            #expect(try await call(.post, "/v1/sessions/revoke", #"{"refreshToken":"nope"}"#, headers: open).errorCode == "refresh_token_malformed")
            #expect(try await call(.post, "/v1/sessions/revoke", #"{"refreshToken":1}"#, headers: open).errorCode == "malformed_json")

            // Admin: the user's sessions (active and ended), revoke one, revoke all.
            let listed = try await call(.get, "/v1/admin/users/\(sessionUser)/sessions", headers: Self.bearerAdmin)
            let infos = try #require(listed.json?["sessions"])
            guard case .array(let entries) = infos else { Issue.record("sessions is not an array"); return }
            #expect(entries.count >= 5 && !String(decoding: listed.body, as: UTF8.self).contains("pkd_rt_"))
            let activeIds = entries.filter { $0["active"] == .bool(true) }.compactMap { $0["id"]?.stringValue }
            let one = try #require(activeIds.first)
            #expect(try await call(.delete, "/v1/admin/users/\(sessionUser)/sessions/\(one)", headers: Self.bearerAdmin).status == 204)
            #expect(try await call(.delete, "/v1/admin/users/\(sessionUser)/sessions/\(one)", headers: Self.bearerAdmin).errorCode == "session_unknown")
            let all = try await call(.delete, "/v1/admin/users/\(sessionUser)/sessions", headers: Self.bearerAdmin)
            #expect(all.status == 200 && all.json?["revoked"] == .number(Double(activeIds.count - 1)))
            #expect(try await call(.get, "/v1/admin/users/\(Base64URL.encode([9, 9]))/sessions", headers: Self.bearerAdmin).errorCode == "user_unknown")
            #expect(try await call(.delete, "/v1/admin/users/\(Base64URL.encode([9, 9]))/sessions", headers: Self.bearerAdmin).errorCode == "user_unknown")
            #expect(try await call(.get, "/v1/admin/users/!!/sessions", headers: Self.bearerAdmin).status == 400)

            // An ID-token sign-in answers a session too.
            let idBegin = try await call(.post, "/v1/idtoken/begin", #"{"provider":"apple"}"#)
            let providerNonce = try #require(idBegin.json?["providerNonce"]?.stringValue)
            let idFinish = try await call(
                .post, "/v1/idtoken/finish",
                #"{"session":"\#(try #require(idBegin.json?["session"]?.stringValue))","provider":"apple","idToken":"\#(TestIDP.shared.token(nonce: providerNonce))"}"#)
            #expect(idFinish.status == 201 && idFinish.json?["session"]?["refreshToken"]?.stringValue != nil)
            #expect(finish.json?["session"]?["accessToken"]?.stringValue != nil, "sessions on registration")

            // Ceremony errors: no key, malformed, too large.
            #expect(try await call(.post, "/v1/authentication/begin", "{}", headers: [:]).status == 401)
            #expect(try await call(.post, "/v1/registration/begin", "[]").status == 400)
            #expect(try await call(.post, "/v1/registration/finish", #"{"credential":1}"#).errorCode == "malformed_response")
            let large = "{\"pad\":\"" + String(repeating: "x", count: 70 * 1024) + "\"}"
            #expect(try await call(.post, "/v1/authentication/begin", large).status == 413)

            // App Store: a purchase posted for ada, her entitlements, renewal information, a notification and its
            // replay, refusals.
            let kit = StoreKitVectors.kit
            let ada = creation.user.id
            let token = AppAccountToken.derive(userHandle: try #require(Base64URL.decodeStrict(ada)))
            let millis = Int64(Date().timeIntervalSince1970 * 1000)
            let bought = try kit.sign(kit.transaction(id: "9001", purchase: millis - 1000, expires: millis + 86_400_000, ["appAccountToken": token]))
            let posted = try await call(.post, "/v1/appstore/transactions", #"{"userId":"\#(ada)","signedTransaction":"\#(bought)"}"#)
            #expect(posted.status == 201)
            #expect(try await call(.post, "/v1/appstore/transactions", #"{"userId":"\#(ada)","signedTransaction":"\#(bought)"}"#).status == 200)
            let renewal = try kit.sign(kit.renewal(original: "9001", signed: millis))
            #expect(try await call(.post, "/v1/appstore/renewals", #"{"signedRenewalInfo":"\#(renewal)"}"#).status == 200)
            let notice = try kit.sign(kit.notification(type: "DID_RENEW", signed: millis, transaction: bought, renewal: renewal))
            #expect(try await call(.post, "/v1/appstore/notifications", #"{"signedPayload":"\#(notice)"}"#, headers: [:]).status == 200)
            #expect(try await call(.post, "/v1/appstore/notifications", #"{"signedPayload":"\#(notice)"}"#, headers: [:]).json?["duplicate"] == .bool(true))
            let owned = try await call(.get, "/v1/users/\(ada)/entitlements")
            #expect(owned.status == 200 && owned.json?["entitlements"]?.asArray?.count == 1)
            #expect(try await call(.get, "/v1/users/!!/entitlements").status == 400)
            #expect(try await call(.post, "/v1/appstore/transactions", #"{"userId":"\#(ada)","signedTransaction":"a.b"}"#).status == 400)
            let vector = try StoreKitVectors.text("generated/wrong-bundle.jws")
            #expect(try await call(.post, "/v1/appstore/transactions", #"{"userId":"\#(ada)","signedTransaction":"\#(vector)"}"#).status == 422)

            // Admin API.
            let admin = Self.bearerAdmin
            let userId = creation.user.id
            let credentialId = Base64URL.encode(credential.id)
            #expect(try await call(.get, "/v1/admin/users", headers: [:]).status == 401)
            #expect(try await call(.get, "/v1/admin/users?limit=1", headers: admin).json?["next"]?.stringValue != nil)
            #expect(try await call(.get, "/v1/admin/users?name=ad&limit=200", headers: admin).status == 200)
            #expect(try await call(.get, "/v1/admin/users?limit=0", headers: admin).status == 400)
            #expect(try await call(.get, "/v1/admin/users/\(userId)", headers: admin).status == 200)
            #expect(try await call(.get, "/v1/admin/users/\(userId)/credentials", headers: admin).status == 200)
            #expect(try await call(.get, "/v1/admin/users/!!/credentials", headers: admin).status == 400)
            #expect(try await call(.get, "/v1/admin/credentials/\(credentialId)", headers: admin).status == 200)
            #expect(try await call(.patch, "/v1/admin/credentials/\(credentialId)", #"{"nickname":"desk"}"#, headers: admin).status == 200)
            #expect(try await call(.patch, "/v1/admin/credentials/\(credentialId)", #"{"nickname":null}"#, headers: admin).status == 200)
            #expect(try await call(.patch, "/v1/admin/credentials/\(credentialId)", #"{"name":"x"}"#, headers: admin).status == 400)
            #expect(try await call(.delete, "/v1/admin/credentials/\(credentialId)", headers: admin).status == 204)
            #expect(try await call(.delete, "/v1/admin/credentials/\(credentialId)", headers: admin).status == 404)
            #expect(try await call(.delete, "/v1/admin/users/\(userId)", headers: admin).status == 204)
            #expect(try await call(.delete, "/v1/admin/users/\(userId)", headers: admin).status == 404)
            let trail = try await call(.get, "/v1/admin/audit-events?user=\(userId)&limit=2", headers: admin)
            #expect(trail.status == 200 && trail.json?["next"]?.stringValue != nil)
            #expect(try await call(.get, "/v1/admin/audit-events?since=2026-01-01T00:00:00Z", headers: admin).status == 200)
            #expect(try await call(.get, "/v1/admin/audit-events?until=soon", headers: admin).status == 400)

            // Operations.
            #expect(try await call(.get, "/healthz", headers: [:]).status == 200)
            #expect(try await call(.get, "/readyz", headers: [:]).status == 200)
            #expect(try await call(.get, "/metrics", headers: [:]).status == 200)
        }
    }
}

@Suite("Error bodies")
struct ErrorBodyTests {
    @Test("an error body is valid JSON whatever its code and message contain")
    func escaping() throws {
        let nasty = "quote \" backslash \\ newline \n tab \t nul \u{0} del \u{7F} sep \u{2028} é 🔑"
        let body = APIError(status: 400, code: "odd\"code", message: nasty).jsonBody
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let error = try #require(object["error"] as? [String: String])
        #expect(error["code"] == "odd\"code")
        #expect(error["message"] == nasty)
        #expect(!body.contains(0x0A), "no raw control characters")

        let unknown = APIError.credentialUnknown(rpID: nasty, credentialID: [0xFB, 0xFF, 0x00]).jsonBody
        let withSignal = try #require(try JSONSerialization.jsonObject(with: Data(unknown)) as? [String: Any])
        #expect((withSignal["error"] as? [String: String])?["code"] == "credential_unknown")
        #expect(withSignal["signal"] as? [String: String] == ["rpId": nasty, "credentialId": "-_8A"])
    }
}

@Suite("Response JSON helpers")
struct ResponseJSONHelperTests {
    @Test("AAGUIDs are written in Foundation's UUID form, lowercased; other lengths as an empty string")
    func aaguidText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            #expect(CredentialJSON.uuid(bytes) == foundation.uuidString.lowercased())
        }
        #expect(CredentialJSON.uuid(Array(repeating: 0, count: 16)) == "00000000-0000-0000-0000-000000000000")
        #expect(CredentialJSON.uuid([1, 2, 3]) == "" && CredentialJSON.uuid([]) == "")
    }
}

@Suite("Finish responses written without JSONEncoder")
struct JSONWriterTests {
    static let nasty = ["", "plain", "quote \" back \\ slash /", "new\nline\ttab\r", "\u{0}\u{1}\u{1F}\u{7F}", "line\u{2028}sep\u{2029}",
                        "é ☕ 🔑", "\u{E2}\u{80}", "e2 80 a9 broken: \u{2027}\u{202A}"]

    static func credential(_ index: Int) -> StoredCredential {
        var generator = SystemRandomNumberGenerator()
        let pick = { (options: [String]) in options[Int.random(in: 0..<options.count, using: &generator)] }
        let record = CredentialRecord(
            id: (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) },
            userHandle: Array(repeating: UInt8(index & 0xFF), count: 32), publicKey: [1], signCount: UInt32.random(in: 0...UInt32.max, using: &generator),
            backupEligible: Bool.random(using: &generator), backupState: Bool.random(using: &generator), uvInitialized: Bool.random(using: &generator),
            transports: Array(["internal", "hybrid", pick(nasty)].prefix(index % 4)), attestationFormat: pick(["none", "packed", pick(nasty)]))
        let verdictOptional: String? = index % 3 == 0 ? nil : pick(nasty)
        return StoredCredential(
            record: record, algorithm: [-7, -257, -8, -35][index % 4],
            aaguid: index % 5 == 0 ? [] : (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) },
            nickname: index % 2 == 0 ? nil : pick(nasty),
            createdAt: Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &generator)),
            lastUsedAt: index % 4 == 0 ? nil : Date(timeIntervalSince1970: Double.random(in: 1_700_000_000...1_800_000_000, using: &generator)),
            attestationObject: nil, clientDataJSON: nil,
            attestation: StoredAttestation(type: pick(["none", "basic", pick(nasty)]), trust: pick(["none", "trusted", "untrusted"]),
                                           trustAnchor: verdictOptional, authenticatorDescription: index % 2 == 0 ? pick(nasty) : nil))
    }

    @Test("strings: byte for byte the escapes of JSONString (quotes, backslashes, controls, DEL, U+2028/9), unescaped text copied")
    func stringsEscapedLikeJSONString() {
        let extra = ["\u{2028}", "x\u{2029}", "\u{E2}", "☕\u{2028}☕", "ends in e2 \u{2027}", String(repeating: "a-_Z09", count: 50)]
        for text in Self.nasty + extra {
            var writer = JSONWriter()
            writer.string(text)
            var expected = ""
            JSONString.append(text, to: &expected)
            #expect(writer.bytes == Array(expected.utf8), "\(text.debugDescription)")
            // Bridged (non-native) strings take the same path.
            var bridged = JSONWriter()
            bridged.string(String(describing: NSString(string: text)))
            #expect(bridged.bytes == writer.bytes)
        }
        var list = JSONWriter()
        list.beginArray(); list.bool(true); list.bool(false); list.null(); list.string("k"); list.endArray()
        #expect(list.bytes == Array("[true,false,null,\"k\"]".utf8))
    }

    @Test("finish responses: the same JSON value as JSONEncoder, for random credentials, users and nasty strings")
    func sameAsJSONEncoder() throws {
        for index in 0..<300 {
            let credential = Self.credential(index)
            let user = StoredUser(
                handle: credential.record.userHandle, name: Self.nasty[index % Self.nasty.count],
                displayName: Self.nasty[(index + 3) % Self.nasty.count], createdAt: Date(timeIntervalSince1970: Double(index) * 86_399.999))
            let providers: [ProviderNames.Provider?] = [
                nil, ProviderNames.Provider(name: Self.nasty[index % Self.nasty.count], iconLight: nil, iconDark: nil),
                ProviderNames.Provider(name: "iCloud Keychain", iconLight: "data:image/svg+xml;base64,PHN2Zz4=", iconDark: "https://icons.example/\"d\""),
            ]
            let provider = providers[index % providers.count]
            let authentication = AuthenticationResult(
                user: index % 3 == 0 ? nil : UserJSON(user), credential: CredentialJSON(credential, verified: nil, provider: provider),
                userVerified: index % 2 == 0, signCountStatus: ["increased", "not_supported", "regressed_allowed"][index % 3],
                signal: index % 3 == 0 ? nil : AcceptedCredentialsSignal(
                    rpID: Self.nasty[(index + 1) % Self.nasty.count], user: user,
                    credentialIDs: (0..<(index % 4)).map { Array(repeating: UInt8($0), count: 16 + index) }))
            let registration = RegistrationResult(user: UserJSON(user), credential: CredentialJSON(credential, verified: nil, provider: provider))
            let admin = CredentialJSON(admin: credential, authenticatorIcon: index % 2 == 0 ? nil : "data:image/png;base64,AAAA", provider: provider)
            var adminWriter = JSONWriter()
            admin.write(to: &adminWriter)
            for (ours, encodable) in [
                (authentication.jsonBytes, try API.encoder.encode(authentication)),
                (registration.jsonBytes, try API.encoder.encode(registration)),
                (adminWriter.bytes, try API.encoder.encode(admin)),
            ] {
                let reference = Array(encodable)
                #expect(try JSONReader.parse(ours) == JSONReader.parse(reference), "\(String(decoding: ours, as: UTF8.self))")
                // Same key order as the sorted encoder: the member names appear in the same sequence.
                #expect(Self.memberNames(ours) == Self.memberNames(reference))
            }
        }
    }

    @Test("begin responses: the same JSON value and member order as JSONEncoder, for random options and extension inputs")
    func beginAnswersSameAsJSONEncoder() throws {
        var generator = SystemRandomNumberGenerator()
        func maybe<T>(_ index: Int, _ value: T) -> T? { index % 3 == 0 ? nil : value }
        let extensionSets: [[String: JSONValue]?] = [
            nil, [:], ["credProps": .bool(true)],
            ["prf": .object(["eval": .object(["first": .string("AAEC-_"), "second": .null])]), "largeBlob": .object(["support": .string("preferred")])],
            ["appid": .string(Self.nasty[2]), "numbers": .array([.number(0), .number(-1), .number(1.5), .number(1e-7), .number(9_007_199_254_740_993), .number(3e300)])],
            [Self.nasty[3]: .array([.bool(false), .object([:]), .array([])]), "Zeta": .number(42), "alpha": .null],
        ]
        for index in 0..<200 {
            let descriptors = (0..<(index % 4)).map { number in
                CredentialDescriptorJSON(
                    id: Base64URL.encode((0..<(16 + number)).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                    transports: number % 2 == 0 ? nil : Array(["internal", "hybrid", Self.nasty[index % Self.nasty.count]].prefix(number)))
            }
            let extensions = extensionSets[index % extensionSets.count]
            let request = RequestOptionsJSON(
                challenge: Base64URL.encode((0..<55).map { _ in UInt8.random(in: 0...255, using: &generator) }), timeout: maybe(index, 300_000),
                rpId: maybe(index + 1, Self.nasty[index % Self.nasty.count]), allowCredentials: descriptors,
                userVerification: maybe(index + 2, ["required", "preferred", "discouraged"][index % 3]),
                hints: maybe(index, Array(["security-key", "client-device", "hybrid"].prefix(index % 4))), extensions: extensions)
            let creation = CreationOptionsJSON(
                rp: RelyingPartyEntityJSON(id: maybe(index, "example.com"), name: Self.nasty[(index + 4) % Self.nasty.count]),
                user: UserEntityJSON(id: "dXNlcg", name: Self.nasty[index % Self.nasty.count], displayName: Self.nasty[(index + 1) % Self.nasty.count]),
                challenge: request.challenge, pubKeyCredParams: [CredentialParametersJSON(alg: -7), CredentialParametersJSON(alg: -257), CredentialParametersJSON(alg: -8)],
                timeout: maybe(index + 1, 600_000), excludeCredentials: descriptors,
                authenticatorSelection: maybe(index, AuthenticatorSelectionJSON(
                    authenticatorAttachment: maybe(index + 1, "platform"), residentKey: maybe(index + 2, "required"),
                    requireResidentKey: maybe(index, index % 2 == 0), userVerification: maybe(index + 1, "preferred"))),
                hints: maybe(index + 2, ["client-device"]), attestation: maybe(index, ["none", "direct"][index % 2]),
                attestationFormats: maybe(index + 1, ["packed", "apple"]), extensions: extensions)
            struct Conditional: Encodable { let publicKey: CreationOptionsJSON; let mediation: String }
            for (ours, encodable) in [
                (request.answerBytes, try API.encoder.encode(["publicKey": request])),
                (creation.answerBytes(mediation: nil), try API.encoder.encode(["publicKey": creation])),
                (creation.answerBytes(mediation: "conditional"), try API.encoder.encode(Conditional(publicKey: creation, mediation: "conditional"))),
            ] {
                let reference = Array(encodable)
                #expect(try JSONReader.parse(ours) == JSONReader.parse(reference), "\(String(decoding: ours, as: UTF8.self))")
                #expect(Self.memberNames(ours) == Self.memberNames(reference), "\(String(decoding: ours, as: UTF8.self))")
            }
        }
    }

    /// The `"name":` tokens of a document in order (strings followed by a colon).
    static func memberNames(_ bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        var names: [String] = []
        var current = ""
        var inString = false
        var escaped = false
        var last = ""
        for character in text {
            if inString {
                if escaped { escaped = false; current.append(character); continue }
                if character == "\\" { escaped = true; current.append(character); continue }
                if character == "\"" { inString = false; last = current; continue }
                current.append(character)
            } else if character == "\"" {
                inString = true
                current = ""
            } else if character == ":" {
                names.append(last)
            }
        }
        return names
    }
}
