import LibPQ
import Synchronization

/// Requests of concurrent callers run in batches on at most `lanes` pooled connections at a time. No timer: a
/// batch is whatever queued while the lanes were busy (at most `maximumBatch`), so a lone request runs at once and
/// batches grow with the load. `run` gets a batch and a leased connection (on its thread) and returns one outcome
/// per item, in order; if it throws, every item of the batch gets that error.
final class BatchLanes<Item: Sendable, Output: Sendable>: Sendable {
    typealias Run = @Sendable ([Item], PGConnection) throws -> [Result<Output, any Error>]

    private struct Pending: Sendable {
        let item: Item
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct Queue {
        var pending: [Pending] = []
        var busyLanes = 0
    }

    private let queue = Mutex(Queue())
    private let pool: PGPool
    private let run: Run
    let lanes: Int
    let maximumBatch: Int

    init(pool: PGPool, lanes: Int, maximumBatch: Int = 32, run: @escaping Run) {
        self.pool = pool
        self.lanes = max(1, lanes)
        self.maximumBatch = max(1, maximumBatch)
        self.run = run
    }

    func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startLane = queue.withLock { queue -> Bool in
                queue.pending.append(Pending(item: item, continuation: continuation))
                guard queue.busyLanes < lanes else { return false }
                queue.busyLanes += 1
                return true
            }
            if startLane { Task { await self.drain() } }
        }
    }

    /// One lane: runs batches until the queue is empty.
    private func drain() async {
        while true {
            let batch = queue.withLock { queue -> [Pending] in
                guard !queue.pending.isEmpty else {
                    queue.busyLanes -= 1
                    return []
                }
                let count = min(maximumBatch, queue.pending.count)
                let batch = Array(queue.pending.prefix(count))
                queue.pending.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            let items = batch.map(\.item)
            let run = self.run
            do {
                let outcomes = try await pool.withConnection { connection in try run(items, connection) }
                for (pending, outcome) in zip(batch, outcomes) { pending.continuation.resume(with: outcome) }
                if outcomes.count < batch.count {
                    let error = PGError(code: .protocolViolation, message: "a batch answered \(outcomes.count) of \(batch.count) requests")
                    for pending in batch[outcomes.count...] { pending.continuation.resume(throwing: error) }
                }
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }
}
