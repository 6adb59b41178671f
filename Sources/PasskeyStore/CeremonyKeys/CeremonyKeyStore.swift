public import Foundation

/// One ceremony key as kept in the store: its secret sealed with AES-256-GCM under the key-encryption key, the key id
/// bound as associated data (PasskeyApp's `CeremonyKeys` seals and opens it; the store never sees the secret). Schema:
/// `Migrations/0014_ceremony_keys.sql`.
public struct StoredCeremonyKey: Sendable, Hashable {
    /// The 32-bit id every box sealed under the key carries.
    public let id: UInt32
    /// `nonce(12) ‖ ciphertext(32) ‖ tag(16)`.
    public let sealedSecret: [UInt8]
    /// Seals from this time on (until a newer key activates); the key's activation slot, unique in the store.
    public let activatesAt: Date
    /// Neither seals nor opens from this time on (every box it sealed has expired).
    public let retiresAt: Date
    public let createdAt: Date

    public init(id: UInt32, sealedSecret: [UInt8], activatesAt: Date, retiresAt: Date, createdAt: Date) {
        self.id = id
        self.sealedSecret = sealedSecret
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
        self.createdAt = createdAt
    }
}

/// The outcome of ``CeremonyKeyStore/addCeremonyKey(_:)``.
public enum CeremonyKeyAddition: Sendable, Hashable {
    /// The key was added: it holds its activation slot.
    case added
    /// Another key already holds the slot (another instance added it first): that key, to be used instead.
    case slotTaken(by: StoredCeremonyKey)
    /// The slot is free but a key with this id exists: draw another id and add again.
    case keyIDTaken
}

/// The ceremony keys every instance shares (stateless ceremonies, issue 29). Implemented by ``InMemoryPasskeyStore``
/// and the PostgreSQL store. Every time is the caller's.
public protocol CeremonyKeyStore: Sendable {
    /// The keys not retired at `now` (`now < retiresAt`), by activation, oldest first.
    func ceremonyKeys(unretiredAt now: Date) async throws(StoreError) -> [StoredCeremonyKey]
    /// Adds `key` to its activation slot (``StoredCeremonyKey/activatesAt``) unless a key holds that slot already:
    /// of concurrent additions to one slot exactly one is ``CeremonyKeyAddition/added``, the others get the winner.
    func addCeremonyKey(_ key: StoredCeremonyKey) async throws(StoreError) -> CeremonyKeyAddition
    /// Deletes the keys retired before `before` (`retiresAt < before`); how many.
    func deleteRetiredCeremonyKeys(before: Date) async throws(StoreError) -> Int
}
