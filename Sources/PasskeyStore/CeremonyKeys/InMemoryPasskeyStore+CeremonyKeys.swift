public import Foundation

extension InMemoryPasskeyStore: CeremonyKeyStore {
    public func ceremonyKeys(unretiredAt now: Date) -> [StoredCeremonyKey] {
        ceremonyKeyRecords.values.filter { now < $0.retiresAt }.sorted { ($0.activatesAt, $0.id) < ($1.activatesAt, $1.id) }
    }

    public func addCeremonyKey(_ key: StoredCeremonyKey) -> CeremonyKeyAddition {
        // The slot first, as the PostgreSQL store's statement reports it: a taken slot wins over a taken id.
        if let holder = ceremonyKeyRecords.values.first(where: { $0.activatesAt == key.activatesAt }) { return .slotTaken(by: holder) }
        guard ceremonyKeyRecords[key.id] == nil else { return .keyIDTaken }
        ceremonyKeyRecords[key.id] = key
        return .added
    }

    public func deleteRetiredCeremonyKeys(before: Date) -> Int {
        let retired = ceremonyKeyRecords.values.filter { $0.retiresAt < before }
        for key in retired { ceremonyKeyRecords[key.id] = nil }
        return retired.count
    }
}
