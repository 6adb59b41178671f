import Logging
public import ServiceLifecycle

/// A background loop as a swift-service-lifecycle `Service`: `step` runs every `interval` (after a first wait of
/// `interval`, or at once with `runsAtStart`) until the service group shuts down. A graceful shutdown cancels the
/// wait or the step in progress (the group shuts services down in reverse order, so the HTTP server, listed last,
/// has closed by then); the loop then returns normally. A step handles its own failures (it logs them).
public struct BackgroundService: Service, CustomStringConvertible {
    /// For logs: what the loop does.
    public let description: String
    let interval: Duration
    let runsAtStart: Bool
    let step: @Sendable () async -> Void

    public init(_ description: String, every interval: Duration, runsAtStart: Bool = false, step: @escaping @Sendable () async -> Void) {
        self.description = description
        self.interval = interval
        self.runsAtStart = runsAtStart
        self.step = step
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                if runsAtStart { await step() }
                while true {
                    try await Task.sleep(for: interval)
                    try Task.checkCancellation()
                    await step()
                }
            }
        } catch is CancellationError {
            return  // shutting down
        }
    }
}

extension Logger {
    /// A warning about a background step that failed (the reason cut to 300 characters; never a secret).
    func backgroundFailure(_ message: Logger.Message, _ error: any Error) {
        warning(message, metadata: ["reason": .string(String(describing: error).prefix(300).description)])
    }
}
