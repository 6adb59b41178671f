public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Limits on HTTP connections, so slow or oversized clients cannot hold the server's connections or memory.
///
/// - The request head (request line and headers) must fit in ``maxHeaderBytes``; larger heads close the connection.
/// - A connection on which no complete request head arrives for ``idleTimeout`` (a keep-alive connection left idle,
///   or a client trickling its headers byte by byte) is closed: the idle clock only restarts when a whole head, a
///   body chunk or the end of a request has been read, never on a partial header line.
/// - A request whose body has not been read completely ``readTimeout`` after its head is closed as well (a client
///   trickling a body slowly to hold a connection).
/// The body size itself is capped by ``HTTPConfiguration/maxBodyBytes`` (413).
public struct ServerLimits: Sendable, Hashable {
    public var idleTimeout: Duration
    public var readTimeout: Duration
    public var maxHeaderBytes: Int

    public init(idleTimeout: Duration = .seconds(30), readTimeout: Duration = .seconds(10), maxHeaderBytes: Int = 16 * 1024) {
        self.idleTimeout = idleTimeout
        self.readTimeout = readTimeout
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// An HTTP/1.1 server with these limits (for ``Hummingbird/Application/init(router:server:configuration:…)``).
    public var server: HTTPServerBuilder {
        let limits = self
        return .http1(
            configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [ProtocolErrorAnswer(), RequestReadDeadline(timeout: limits.readTimeout)],
                idleTimeout: TimeAmount(limits.idleTimeout),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes, maxHeaderFieldCount: 100)))
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Closes a connection whose request body is still incomplete `timeout` after its head was read. One per connection,
/// on its event loop (not Sendable).
///
/// The timer is only scheduled when a read ends with a request still incomplete: a request whose head and end arrive
/// in the same read (nearly every API request: small bodies) never schedules one, so the hot path pays no timer. The
/// deadline then counts from the end of the read that brought the head (the same moment, to within that read).
final class RequestReadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// A head was read and its end not yet.
    private var incomplete = false

    init(timeout: Duration) {
        self.timeout = TimeAmount(timeout)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            cancel()
            incomplete = true
        case .body:
            break
        case .end:
            cancel()
            incomplete = false
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if incomplete, deadline == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    private func cancel() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension RequestReadDeadline: Sendable {}

/// Answers a request that NIO's HTTP parser refuses (a head past `maxHeaderBytes`, a malformed request line, …) in
/// the API's error form, 400 `malformed_request` with `Connection: close`, instead of Hummingbird's bare 400: the
/// parser's error is consumed here, the answer written and the connection closed. Sits right after the HTTP codec.
final class ProtocolErrorAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    static let error = APIError(
        status: 400, code: "malformed_request",
        message: "The request is not well-formed HTTP, or its head is larger than this server accepts.")

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After an answer to a malformed request nothing more is read from this connection.
        guard !answered else { return }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let body = Self.error.jsonBody
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [.contentType: "application/json", .connection: "close", .contentLength: String(body.count)])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}
