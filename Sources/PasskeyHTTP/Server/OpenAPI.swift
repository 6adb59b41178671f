import Foundation
import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI document kept in the repository (`Sources/PasskeyHTTP/Resources/openapi.json`),
/// cut to the operations this configuration routes, so it describes exactly what this server answers: without an
/// admin key there are no admin operations in it, without `PASSKEYD_FIDO_CONFORMANCE=on` no conformance binding,
/// and so on (the tags left without operations go too). Built once, when the router is built (call this after every
/// other route); open (no key), like `/healthz`.
func addOpenAPIRoute(to router: Router<PasskeyRequestContext>) {
    let routed = Set(router.routes.map { "\($0.method.rawValue) \($0.path)" } + ["GET /openapi.json"])
    let document = OpenAPIResource.bytes.flatMap { OpenAPIResource.served($0, routed: routed) }.map { ByteBuffer(bytes: $0) }
    router.on(.openAPIDocument) { _, _ in
        guard let document else {
            // The resource is part of the module; this is a packaging bug, not a client error.
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: APIError.internalError.jsonBody)))
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: document))
    }
}

enum OpenAPIResource {
    /// The repository document's bytes, or nil when the resource is missing from the bundle.
    static var bytes: [UInt8]? {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return Array(data)
    }

    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// The document with only the operations in `routed` (`"GET /v1/users/{userId}/signals"`, …) and the tags they
    /// use; the repository's bytes unchanged when every operation is routed. nil if the document is not JSON.
    static func served(_ bytes: [UInt8], routed: Set<String>) -> [UInt8]? {
        guard var document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let paths = document["paths"] as? [String: Any]
        else { return nil }
        var kept: [String: Any] = [:]
        var removed = false
        var usedTags: Set<String> = []
        for (path, value) in paths {
            guard var item = value as? [String: Any] else { continue }
            for method in methods where item[method] != nil {
                if routed.contains("\(method.uppercased()) \(path)") {
                    for tag in ((item[method] as? [String: Any])?["tags"] as? [String]) ?? [] { usedTags.insert(tag) }
                } else {
                    item[method] = nil
                    removed = true
                }
            }
            if methods.contains(where: { item[$0] != nil }) { kept[path] = item } else { removed = true }
        }
        guard removed else { return bytes }
        document["paths"] = kept
        if let tags = document["tags"] as? [[String: Any]] {
            document["tags"] = tags.filter { usedTags.contains($0["name"] as? String ?? "") }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return Array(data)
    }
}
