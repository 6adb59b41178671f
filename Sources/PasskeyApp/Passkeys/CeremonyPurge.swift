public import Logging
public import PasskeyStore
import Synchronization

/// Purges expired ceremonies in the background (requests never wait for it): every 60 s, or every 5 s while the
/// table holds at least half of the configured total (a begin flood). The count that decides it (and switches a
/// store's save statement to counting the whole table near the cap) is refreshed every 5 s by `refreshCount`.
public final class CeremonyPurge: Sendable {
    let store: any PasskeyStore
    let refreshCount: @Sendable () async throws -> Int
    let total: Int?
    let logger: Logger
    /// Seconds since the last purge; the first check purges (rows may have expired while no instance ran).
    private let sincePurge = Atomic<Int>(60)

    public init(store: any PasskeyStore, total: Int?, logger: Logger, refreshCount: @escaping @Sendable () async throws -> Int) {
        self.store = store
        self.total = total
        self.logger = logger
        self.refreshCount = refreshCount
    }

    /// The loop: one check every 5 s.
    public var service: BackgroundService {
        BackgroundService("ceremony purge", every: .seconds(5)) { await self.check() }
    }

    func check() async {
        let since = sincePurge.add(5, ordering: .relaxed).newValue
        do {
            let count = try await refreshCount()
            let busy = total.map { count * 2 >= $0 } ?? false
            guard busy || since >= 60 else { return }
            sincePurge.store(0, ordering: .relaxed)
            let purged = try await store.purgeExpiredCeremonies()
            if purged > 0 { logger.debug("purged expired ceremonies", metadata: ["count": .stringConvertible(purged)]) }
        } catch {
            let reason = (error as? StoreError).map { "\($0.code): \($0.reason)" } ?? String(reflecting: type(of: error))
            logger.warning("purging expired ceremonies failed", metadata: ["reason": .string(reason)])
        }
    }
}
