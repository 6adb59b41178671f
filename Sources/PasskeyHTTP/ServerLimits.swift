public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
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
                additionalChannelHandlers: [RequestReadDeadline(timeout: limits.readTimeout)],
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
final class RequestReadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: Duration) {
        self.timeout = TimeAmount(timeout)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        case .body:
            break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension RequestReadDeadline: Sendable {}
