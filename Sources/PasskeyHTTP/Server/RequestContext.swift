public import Hummingbird
public import NIOCore

/// The request context of every route: Hummingbird's basic context plus the TCP peer's address (for per-client
/// rate limits; see ``RateLimits/clientAddressHeader`` for what counts as the client's address behind a proxy).
public struct PasskeyRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer; nil in in-process tests.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
