public import Foundation
public import IdentityCore
public import JOSE
public import Logging
import Synchronization

/// A provider's JWK set read from a file: pinned keys, an air-gapped deployment, or the `passkeyd-idp` walkthrough.
///
/// The file is read at init, which throws if it is unreadable or not a JWK set with a usable key. A `kid` not in the set
/// re-reads the file, at most once per `minReloadInterval` (the read at init counts), so a rotated file is picked up
/// without a restart and a flood of made-up `kid`s costs at most one read per interval. A re-read that fails keeps
/// the set already loaded (logged as a warning); it never expires.
public final class FileKeySource: ProviderKeySource {
    /// Counters for tests and metrics.
    public struct Statistics: Sendable, Hashable {
        /// Reads of the file, the one at init included.
        public var reads = 0
        /// Re-reads that failed (the loaded set was kept).
        public var failures = 0
        /// Why the last failed re-read failed.
        public var lastFailure: ProviderKeyFailure?
        /// Keys in the current set.
        public var keyCount = 0

        public init() {}
    }

    /// The file's path.
    public let path: String
    /// The least time between two reads.
    public let minReloadInterval: TimeInterval
    private let maxDocumentBytes: Int
    private let maxKeys: Int
    private let logger: Logger
    private let now: @Sendable () -> Date

    private struct State {
        var set: JWKSet
        var lastRead: Date
        var statistics: Statistics
    }
    private let state: Mutex<State>

    /// Reads the JWK set at `path`.
    /// - Parameters:
    ///   - path: a JSON file `{"keys": [...]}`.
    ///   - minReloadInterval: the least time between two reads (seconds).
    ///   - maxDocumentBytes: the largest accepted file.
    ///   - maxKeys: the most members the set may have.
    ///   - logger: where failed re-reads are reported.
    ///   - now: the clock (injected for tests).
    /// - Throws: ``ProviderKeyFailure/fileUnreadable``, ``ProviderKeyFailure/tooLarge``, ``ProviderKeyFailure/malformed``.
    public init(
        path: String, minReloadInterval: TimeInterval = 60, maxDocumentBytes: Int = 256 * 1024, maxKeys: Int = 64,
        logger: Logger = Logger(label: "passkeyd.provider-keys"), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(ProviderKeyError) {
        self.path = path
        self.minReloadInterval = minReloadInterval
        self.maxDocumentBytes = maxDocumentBytes
        self.maxKeys = maxKeys
        self.logger = logger
        self.now = now
        let set = try Self.read(path: path, maxBytes: maxDocumentBytes, maxKeys: maxKeys)
        var statistics = Statistics()
        statistics.reads = 1
        statistics.keyCount = set.keys.count
        state = Mutex(State(set: set, lastRead: now(), statistics: statistics))
    }

    /// Counters (see ``Statistics``).
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The loaded set; re-read first when `keyID` is not in it and the interval allows.
    public func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet {
        let time = now()
        // Decide under the lock and claim the read, so concurrent callers cannot read twice in one interval.
        let shouldRead: Bool = state.withLock { state in
            guard let keyID, !state.set.contains(keyID: keyID),
                  time.timeIntervalSince(state.lastRead) >= minReloadInterval
            else { return false }
            state.lastRead = time
            state.statistics.reads += 1
            return true
        }
        guard shouldRead else { return state.withLock { $0.set } }
        do throws(ProviderKeyError) {
            let set = try Self.read(path: path, maxBytes: maxDocumentBytes, maxKeys: maxKeys)
            return state.withLock { state in
                state.set = set
                state.statistics.keyCount = set.keys.count
                return set
            }
        } catch {
            logger.warning("JWKS file re-read failed; keeping the loaded set", metadata: ["path": "\(path)", "error": "\(error.reason)"])
            return state.withLock { state in
                state.statistics.failures += 1
                state.statistics.lastFailure = error.failure
                return state.set
            }
        }
    }

    private static func read(path: String, maxBytes: Int, maxKeys: Int) throws(ProviderKeyError) -> JWKSet {
        let bytes: [UInt8]
        do {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ProviderKeyFailure.fileUnreadable.error("cannot open \(path)")
            }
            defer { try? handle.close() }
            bytes = Array(try handle.read(upToCount: maxBytes + 1) ?? Data())
        } catch let error as ProviderKeyError {
            throw error
        } catch {
            throw ProviderKeyFailure.fileUnreadable.error("\(path): \(error)")
        }
        guard bytes.count <= maxBytes else { throw ProviderKeyFailure.tooLarge.error("\(path) is larger than \(maxBytes) bytes") }
        let set: JWKSet
        do {
            set = try JWKSet(json: bytes, maxKeys: maxKeys)
        } catch {
            throw ProviderKeyFailure.malformed.error("\(path): \(error)")
        }
        guard !set.keys.isEmpty else {
            throw ProviderKeyFailure.malformed.error("\(path) holds no usable key (\(set.skipped) skipped)")
        }
        return set
    }
}
