import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import NIOCore
import Synchronization
import WebAuthnModel

/// The routes of ``TestProviderServer``.
enum Routes {
    static func install(
        on router: Router<BasicRequestContext>, provider: TestIdentityProvider, shared: SharedState,
        base: @escaping @Sendable () -> String
    ) {
        router.get("/jwks") { _, _ -> Response in
            let behaviour = shared.mutex.withLock { state in
                state.record.jwksRequests += 1
                return state.behaviour
            }
            switch behaviour.jwksMode {
            case .serve:
                break
            case .fail(let status):
                return json(status: status, body: JSONText.bytes(of: .object(["error": .string("test failure")])))
            case .hang(let seconds):
                try await Task.sleep(for: .seconds(seconds))
            }
            var response = json(status: 200, body: behaviour.jwksBody ?? provider.jwksJSON())
            if let cacheControl = behaviour.cacheControl { response.headers[.cacheControl] = cacheControl }
            return response
        }

        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let behaviour = shared.mutex.withLock { state in
                state.record.discoveryRequests += 1
                return state.behaviour
            }
            if let body = behaviour.discoveryBody { return json(status: 200, body: body) }
            let root = base()
            let algorithms = Array(Set(provider.signingKeys.map(\.algorithm.rawValue))).sorted()
            let document: JSONValue = .object([
                "issuer": .string(behaviour.issuer ?? root),
                "jwks_uri": .string(behaviour.jwksURI ?? root + "/jwks"),
                "authorization_endpoint": .string(root + "/auth/authorize"),
                "token_endpoint": .string(root + "/auth/token"),
                "revocation_endpoint": .string(root + "/auth/revoke"),
                "response_types_supported": .array([.string("code"), .string("id_token")]),
                "subject_types_supported": .array([.string("pairwise"), .string("public")]),
                "id_token_signing_alg_values_supported": .array(algorithms.map(JSONValue.string)),
            ])
            return json(status: 200, body: JSONText.bytes(of: document))
        }

        router.post("/auth/token") { request, _ -> Response in
            let form = try await received(request, path: "/auth/token")
            let answer = shared.mutex.withLock { state in
                state.record.tokenRequests.append(form)
                return state.behaviour.tokenResponse
            }
            return json(status: answer.status, body: answer.body)
        }

        router.post("/auth/revoke") { request, _ -> Response in
            let form = try await received(request, path: "/auth/revoke")
            let answer = shared.mutex.withLock { state in
                state.record.revokeRequests.append(form)
                return state.behaviour.revokeResponse
            }
            return json(status: answer.status, body: answer.body)
        }
    }

    private static func json(status: Int, body: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func received(_ request: Request, path: String) async throws -> TestProviderServer.ReceivedForm {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        let body = String(decoding: buffer.readableBytesView, as: UTF8.self)
        return TestProviderServer.ReceivedForm(
            path: path, fields: FormFields.decode(body), contentType: request.headers[.contentType], body: body)
    }
}

/// `application/x-www-form-urlencoded` decoding (WHATWG URL "application/x-www-form-urlencoded parser").
public enum FormFields {
    /// The fields of `body`; a repeated name keeps its last value; undecodable percent escapes are kept as written.
    public static func decode(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            fields[unescape(parts[0])] = parts.count > 1 ? unescape(parts[1]) : ""
        }
        return fields
    }

    /// Encodes `fields` (sorted by name, so the output is stable), escaping all but unreserved characters.
    public static func encode(_ fields: [String: String]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return fields.sorted { $0.key < $1.key }.map { name, value in
            let n = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
            let v = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(n)=\(v)"
        }.joined(separator: "&")
    }
}
