import HTTPTypes
import Hummingbird
import NIOCore

/// What the router does not route, answered in the API's error form instead of Hummingbird's bare 404: a path that
/// some route has, with another method, is 405 `method_not_allowed` with `Allow` listing the methods it has; any
/// other path is 404 `route_unknown`. Added after every route, so it wraps only the router's not-found responder
/// (Hummingbird builds each route's middleware chain when the route is added).
struct RouteFallbackMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each route's path as segments (nil = a parameter, matching any one segment) with its methods.
    private let routes: [(segments: [Substring?], methods: [HTTPRequest.Method])]

    init(routes: [Router<Context>.RouteDescription]) {
        var byPath: [String: [HTTPRequest.Method]] = [:]
        var order: [String] = []
        for route in routes {
            let path = route.path.description
            if byPath[path] == nil { order.append(path) }
            byPath[path, default: []].append(route.method)
        }
        self.routes = order.map { path in
            let segments = path.split(separator: "/").map { segment -> Substring? in
                segment.hasPrefix("{") || segment.hasPrefix(":") || segment == "*" ? nil : segment
            }
            return (segments, byPath[path]!.sorted { $0.rawValue < $1.rawValue })
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let methods = allowed(request.uri.path)
            guard !methods.isEmpty else { return Self.answer(APIError.routeUnknown) }
            var response = Self.answer(APIError.methodNotAllowed)
            response.headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
            return response
        }
    }

    /// The methods of the routes whose path matches `path`.
    func allowed(_ path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        var methods: [HTTPRequest.Method] = []
        for route in routes where route.segments.count == segments.count {
            guard zip(route.segments, segments).allSatisfy({ expected, actual in expected.map { $0 == actual } ?? true }) else { continue }
            for method in route.methods where !methods.contains(method) { methods.append(method) }
        }
        return methods
    }

    static func answer(_ error: APIError) -> Response {
        Response(
            status: HTTPResponse.Status(code: error.status),
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.jsonBody)))
    }
}
