import Foundation
public import Logging
import PasskeyStore

extension SessionService {
    /// Every 10 minutes: a new signing key when the rotation interval has passed, and ended sessions and retired keys
    /// purged (a day after they ended, so the admin API still shows recent revocations).
    public func maintenance(logger: Logger) -> BackgroundService {
        BackgroundService("session key rotation and purge", every: .seconds(600)) {
            do {
                try await keys.rotateIfDue()
                let now = Date()
                let purged = try await store.purgeSessions(before: now - 86_400)
                _ = try await store.purgeSigningKeys(before: now)
                if purged > 0 { logger.debug("purged ended sessions", metadata: ["count": .stringConvertible(purged)]) }
            } catch {
                logger.backgroundFailure("session key rotation or purge failed", error)
            }
        }
    }
}
