public import Foundation
public import Logging
import PasskeyStore

extension AppStoreService {
    /// At start and then every hour: App Store notification UUIDs older than `retention` are purged (replays older
    /// than that are refused by Apple's own signedDate anyway).
    public func notificationPurge(retention: TimeInterval, logger: Logger) -> BackgroundService {
        BackgroundService("App Store notification purge", every: .seconds(3600), runsAtStart: true) {
            do {
                let purged = try await store.purgeAppStoreNotifications(before: Date() - retention)
                if purged > 0 { logger.debug("purged App Store notification ids", metadata: ["count": .stringConvertible(purged)]) }
            } catch {
                logger.backgroundFailure("purging App Store notification ids failed", error)
            }
        }
    }
}
