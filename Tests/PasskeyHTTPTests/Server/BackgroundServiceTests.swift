import Foundation
import Logging
import PasskeyApp
import ServiceLifecycle
import Synchronization
import Testing

/// The background loops run as swift-service-lifecycle services: a step at start when asked, then one per interval,
/// and a graceful shutdown of their group ends them cleanly (no error) even in the middle of a wait.
@Suite("Background services")
struct BackgroundServiceTests {
    /// A service the test ends by returning: a graceful shutdown of the group follows.
    struct Stopper: Service {
        let after: Duration
        func run() async throws { try await Task.sleep(for: after) }
    }

    @Test("steps at start and per interval; the group's graceful shutdown ends the loop without an error")
    func loopAndShutdown() async throws {
        let steps = Atomic<Int>(0)
        let loop = BackgroundService("test loop", every: .milliseconds(40), runsAtStart: true) {
            steps.add(1, ordering: .relaxed)
        }
        var logger = Logger(label: "background-test")
        logger.logLevel = .critical
        // When the stopper returns, the group shuts the others down gracefully.
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: loop), .init(service: Stopper(after: .milliseconds(300)), successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        let started = ContinuousClock.now
        try await ServiceGroup(configuration: configuration).run()
        let elapsed = ContinuousClock.now - started
        let count = steps.load(ordering: .relaxed)
        #expect(count >= 3 && count <= 9, "1 at start + about 7 in 300 ms at 40 ms: \(count)")
        #expect(elapsed < .seconds(2), "the loop stopped at the shutdown, not after a further wait: \(elapsed)")
    }

    @Test("a long wait is cut short by the shutdown")
    func longWait() async throws {
        let steps = Atomic<Int>(0)
        let loop = BackgroundService("hourly", every: .seconds(3600)) { steps.add(1, ordering: .relaxed) }
        var logger = Logger(label: "background-test")
        logger.logLevel = .critical
        let configuration = ServiceGroupConfiguration(
            services: [.init(service: loop), .init(service: Stopper(after: .milliseconds(100)), successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: logger)
        let started = ContinuousClock.now
        try await ServiceGroup(configuration: configuration).run()
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(steps.load(ordering: .relaxed) == 0, "no step before the first interval")
    }
}
