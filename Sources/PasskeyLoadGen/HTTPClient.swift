// A minimal HTTP/1.1 keep-alive client on swift-nio: one connection per virtual user, one request in flight per
// connection (closed loop), bodies collected into [UInt8]. Only what the load generator needs.
import NIOCore
import NIOHTTP1
import NIOPosix

struct HTTPResult: Sendable {
    let status: Int
    let body: [UInt8]
}

struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "connection closed before the response ended" }
}

/// No complete answer within the request timeout: the connection is closed (a dead or stuck server must end the run
/// with an error, not hang it).
struct RequestTimedOut: Error, CustomStringConvertible {
    let seconds: Int64
    var description: String { "no answer within \(seconds) s" }
}

/// One request handed to the pipeline together with the promise its response completes.
struct PendingRequest: Sendable {
    let path: String
    let body: ByteBuffer
    let promise: EventLoopPromise<HTTPResult>
}

final class ClientHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = HTTPClientRequestPart

    private let host: String
    private let timeoutSeconds: Int64
    private var pending: EventLoopPromise<HTTPResult>?
    private var deadline: Scheduled<Void>?
    private var status = 0
    private var body: ByteBuffer?

    init(host: String, timeoutSeconds: Int64) {
        self.host = host
        self.timeoutSeconds = timeoutSeconds
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        pending = request.promise
        let seconds = timeoutSeconds
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .seconds(seconds)) {
            let (handler, context) = loopBound.value
            handler.fail(RequestTimedOut(seconds: seconds))
            context.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: request.path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(request.body.readableBytes))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            body = nil
        case .body(var part):
            if body == nil { body = part } else { body!.writeBuffer(&part) }
        case .end:
            let promise = pending
            pending = nil
            deadline?.cancel()
            deadline = nil
            let bytes = body.map { Array($0.readableBytesView) } ?? []
            body = nil
            promise?.succeed(HTTPResult(status: status, body: bytes))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ConnectionClosed())
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        deadline?.cancel()
        deadline = nil
        pending?.fail(error)
        pending = nil
    }
}

/// A keep-alive connection used by one virtual user at a time.
final class HTTPConnection: Sendable {
    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    /// Seconds a request may take before it fails with ``RequestTimedOut`` (the slowest durable benchmark answer is
    /// well under one second; a stuck server must not hang the run).
    static let requestTimeoutSeconds: Int64 = 60

    static func connect(group: any EventLoopGroup, host: String, port: Int) async throws -> HTTPConnection {
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ClientHandler(host: "\(host):\(port)", timeoutSeconds: requestTimeoutSeconds))
                }
            }
            .connect(host: host, port: port).get()
        return HTTPConnection(channel: channel)
    }

    func post(_ path: String, _ body: [UInt8]) async throws -> HTTPResult {
        let promise = channel.eventLoop.makePromise(of: HTTPResult.self)
        channel.writeAndFlush(PendingRequest(path: path, body: ByteBuffer(bytes: body), promise: promise), promise: nil)
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close().get()
    }
}
