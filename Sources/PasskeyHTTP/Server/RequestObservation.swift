import HTTPTypes
import Hummingbird
import Logging
import Tracing

extension HTTPField.Name {
    /// The request id every answer carries (``RequestObservationMiddleware``).
    static let requestID = HTTPField.Name("X-Request-Id")!
}

/// Every answer's `X-Request-Id` and, with tracing on, the request's span. Added to the router before any route, so
/// it wraps every route (and, through the router's not-found responder, ``RouteFallbackMiddleware``'s 404 and 405):
/// successes, JSON errors, 404s, 413s and 429s all carry the header.
///
/// The id: an incoming `X-Request-Id` that ``isSane(_:)`` (1 to 128 characters of `A-Z a-z 0-9 . _ : + / = -`), else
/// the one Hummingbird made for the request (`context.id`). Either way it becomes the logger's `hb.request.id`, so the
/// request's log lines, its audit row (``RequestScope/audit``) and the answer's header carry the same id.
///
/// The span (tracing on only: nothing of it is built otherwise): a `server` span named by the route table's operation
/// (`authentication_finish`; the method alone, `POST`, when no route matched), child of the caller's `traceparent`
/// (and `tracestate`) as the configured propagator reads them, with the OpenTelemetry HTTP attributes
/// `http.request.method`, `http.route`, `http.response.status_code` and `passkeyd.request_id`; status error for a 5xx.
/// No body, header value, token or key is recorded.
struct RequestObservationMiddleware: RouterMiddleware {
    typealias Context = PasskeyRequestContext

    let tracing: Bool
    /// The route table's operations by `METHOD route` (the route in Hummingbird's `{name}` form, as
    /// `context.endpointPath` has it): span names. Empty with tracing off.
    let operations: [String: Operation]

    init(tracing: Bool) {
        self.tracing = tracing
        var operations: [String: Operation] = [:]
        if tracing {
            for operation in Operation.all where operations["\(operation.method.rawValue) \(operation.route)"] == nil {
                operations["\(operation.method.rawValue) \(operation.route)"] = operation
            }
        }
        self.operations = operations
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id: String
        if let incoming = request.headers[.requestID], Self.isSane(incoming) {
            id = incoming
            context.logger[metadataKey: "hb.request.id"] = .string(incoming)
        } else {
            id = context.id
        }
        var response: Response
        if tracing {
            response = try await traced(request, context, id: id, next)
        } else {
            response = try await Self.answer(request, context, next)
        }
        response.headers[.requestID] = id
        return response
    }

    /// Whether an incoming request id is taken as it is: 1 to 128 characters of `A-Z a-z 0-9 . _ : + / = -` (no
    /// space, quote or control character can reach a log line or an audit row through it).
    static func isSane(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// The route's answer; a thrown HTTP error as its response, anything else thrown as a 500 `internal_error` (so
    /// that it too carries the request id).
    static func answer(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error_type": .string(String(reflecting: type(of: error)))])
            return RouteFallbackMiddleware<Context>.answer(APIError.internalError)
        }
    }

    func traced(
        _ request: Request, _ context: Context, id: String, _ next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        // Hummingbird has set the matched route's path before the route's middleware runs (nil: no route matched).
        let operation = context.endpointPath.flatMap { operations["\(request.method.rawValue) \($0)"] }
        let span = startSpan(operation?.name ?? request.method.rawValue, context: parent, ofKind: .server)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            if let operation { attributes["http.route"] = operation.route }
            attributes["passkeyd.request_id"] = id
        }
        do {
            let response = try await ServiceContext.$current.withValue(span.context) { try await Self.answer(request, context, next) }
            let status = Int(response.status.code)
            span.attributes["http.response.status_code"] = status
            if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            span.end()
            return response
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`) from a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}

extension Operation {
    /// The path in OpenTelemetry's `http.route` form (and Hummingbird's `endpointPath`): `/v1/users/{userId}`.
    var route: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
        }.joined(separator: "/")
    }
}
