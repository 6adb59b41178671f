import Foundation
import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI document kept in the repository (`Sources/PasskeyHTTP/Resources/openapi.json`).
/// Read once, when the router is built; open (no key), like `/healthz`.
func addOpenAPIRoute(to router: Router<PasskeyRequestContext>) {
    let document = OpenAPIResource.bytes
    router.get("/openapi.json") { _, _ in
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
    /// The document's bytes, or nil when the resource is missing from the bundle.
    static var bytes: ByteBuffer? {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return ByteBuffer(bytes: data)
    }
}
