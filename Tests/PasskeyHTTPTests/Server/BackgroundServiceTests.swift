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

    @Test("a step at start; the group's graceful shutdown ends the loop without an error, and no step follows", .timeLimit(.minutes(2)))
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
        configuration.maximumGracefulShutdownDuration = .seconds(30)
        // Returns without an error: the loop ended at the shutdown (a loop that ignored it would make the group
        // cancel it after the maximum duration, and the run throw).
        try await ServiceGroup(configuration: configuration).run()
        let count = steps.load(ordering: .relaxed)
        #expect(count >= 1, "the step at start ran")
        let after = steps.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(120))
        #expect(steps.load(ordering: .relaxed) == after, "no step after the shutdown")
    }

    @Test("a long wait is cut short by the shutdown", .timeLimit(.minutes(2)))
    func longWait() async throws {
        let steps = Atomic<Int>(0)
        let loop = BackgroundService("hourly", every: .seconds(3600)) { steps.add(1, ordering: .relaxed) }
        var logger = Logger(label: "background-test")
        logger.logLevel = .critical
        let configuration = ServiceGroupConfiguration(
            services: [.init(service: loop), .init(service: Stopper(after: .milliseconds(100)), successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: logger)
        // An hour-long wait that the shutdown did not cut would hang here until the time limit.
        try await ServiceGroup(configuration: configuration).run()
        #expect(steps.load(ordering: .relaxed) == 0, "no step before the first interval")
    }
}
