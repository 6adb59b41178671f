import Foundation
import PasskeyStore

/// The ceremony keys of a store that is down (ObservabilityTests.swift) fail too.
extension DownStore: CeremonyKeyStore {
    func ceremonyKeys(unretiredAt now: Date) async throws(StoreError) -> [StoredCeremonyKey] { throw error }
    func addCeremonyKey(_ key: StoredCeremonyKey) async throws(StoreError) -> CeremonyKeyAddition { throw error }
    func deleteRetiredCeremonyKeys(before: Date) async throws(StoreError) -> Int { throw error }
}
