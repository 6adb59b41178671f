import Foundation
import Synchronization

/// Watches a file for replacement (e.g. a daily cron download): every `interval` its modification time is read;
/// `tick(changed)` runs each time, with `changed` true when the time differs from the last one seen (the first
/// comparison is against the time at start).
public enum FileReload {
    public static func service(
        _ description: String, path: String, every interval: Duration = .seconds(600),
        tick: @escaping @Sendable (_ changed: Bool) async -> Void
    ) -> BackgroundService {
        let seen = ModificationTime(path: path)
        return BackgroundService(description, every: interval) { await tick(seen.update()) }
    }

    /// The last modification time seen.
    final class ModificationTime: Sendable {
        let path: String
        private let last: Mutex<Date?>

        init(path: String) {
            self.path = path
            last = Mutex(Self.read(path))
        }

        /// Reads the time now; whether it changed since the last read.
        func update() -> Bool {
            let now = Self.read(path)
            return last.withLock { last in
                defer { last = now }
                return last != now
            }
        }

        static func read(_ path: String) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        }
    }
}
