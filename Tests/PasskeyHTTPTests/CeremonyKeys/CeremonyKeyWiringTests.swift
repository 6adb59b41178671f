import COSECrypto
import Foundation
import PasskeyApp
import PasskeyServerSupport
import PasskeyStore
import SealedState
import Testing

/// `buildApplication` and the ceremony keys: without a key-encryption key or key files ceremonies stay stored (no key
/// ring); with a key-encryption key the keys are loaded from the store at start (made on a fresh one), the ceremony
/// service reads them and the clock skew, and their maintenance runs; with key files nothing is stored; a key-encryption
/// key that does not open the stored keys fails the start with a message naming it. The start-up log says which.
@Suite("buildApplication: ceremony keys")
struct CeremonyKeyWiringTests {
    static func key() throws -> String { try TestFiles.write(Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "\n", name: "key") }

    @Test("neither a key-encryption key nor key files: stored ceremonies, no key ring, logged")
    func stored() async throws {
        let logs = LogCapture()
        let passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.settings(["PASSKEYD_CLOCK_SKEW": "12"]), store: InMemoryPasskeyStore(), logger: logs.logger(), ceremonyKeyRing: nil)
        #expect(passkeyd.ceremonyKeys == nil && passkeyd.ceremonies.keyRing == nil && passkeyd.ceremonies.clockSkew == 12)
        #expect(!passkeyd.background.map(\.description).contains("ceremony key refresh and purge"))
        #expect(logs.all.contains { $0.metadata["ceremonies"] == "stored" })
    }

    @Test("a key-encryption key: the keys loaded at start from the store (made on a fresh one), read by the ceremony service")
    func database() async throws {
        let logs = LogCapture()
        let store = InMemoryPasskeyStore()
        let settings = try TestPasskeyd.settings([
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key(), "PASSKEYD_CHALLENGE_TTL": "600", "PASSKEYD_CEREMONY_KEY_ROTATION": "7200",
        ])
        let passkeyd = try await TestPasskeyd.build(settings, store: store, logger: logs.logger(), ceremonyKeyRing: nil)
        let keys = try #require(passkeyd.ceremonyKeys)
        #expect(keys.isDatabase && keys.challengeLifetime == 600 && keys.clockSkew == 30, "the longest lifetime; the default skew")
        let ring = try #require(passkeyd.ceremonies.keyRing?())
        let stored = await store.ceremonyKeys(unretiredAt: Date())
        #expect(ring.keys.map(\.id) == stored.map(\.id) && stored.count >= 1)
        #expect(ring.sealingKey(at: Date()) != nil && passkeyd.ceremonies.clockSkew == 30)
        #expect(stored[0].retiresAt == stored[0].activatesAt.addingTimeInterval(7200 + 600 + 30))
        #expect(passkeyd.background.map(\.description).contains("ceremony key refresh and purge"))
        let line = try #require(logs.all.first { $0.metadata["ceremonies"] == "stateless" })
        #expect(line.metadata["ceremony_keys"] == "database" && line.metadata["sealing_key_id"] == "\(ring.sealingKey(at: Date())?.id ?? 0)")

        // A second instance on the same store shares the keys.
        let second = try await TestPasskeyd.build(settings, store: store, ceremonyKeyRing: nil)
        #expect(second.ceremonies.keyRing?() == ring)
    }

    @Test("key files: the first seals, nothing is stored, no maintenance")
    func files() async throws {
        let store = InMemoryPasskeyStore()
        let passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.settings(["PASSKEYD_CEREMONY_KEY_FILES": "\(try Self.key()),\(try Self.key())", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key()]),
            store: store, ceremonyKeyRing: nil)
        let ring = try #require(passkeyd.ceremonies.keyRing?())
        #expect(ring.keys.count == 2 && ring.sealingKey(at: Date()) != nil)
        #expect(await store.ceremonyKeys(unretiredAt: Date()).isEmpty)
        #expect(passkeyd.ceremonyKeys?.isDatabase == false)
        #expect(!passkeyd.background.map(\.description).contains("ceremony key refresh and purge"))
    }

    @Test("a test ring replaces the configured keys; ceremonyKeysFromSettings false keeps the table (nothing stored either way)")
    func testOverrides() async throws {
        let store = InMemoryPasskeyStore()
        let settings = try TestPasskeyd.settings(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key()])
        let fixed = try await TestPasskeyd.build(settings, store: store, ceremonyKeyRing: TestPasskeyd.ceremonyKeyRing)
        #expect(fixed.ceremonyKeys == nil && fixed.ceremonies.keyRing?() == TestPasskeyd.ceremonyKeyRing)
        let table = try await TestPasskeyd.$ceremonyTable.withValue(true) {
            try await TestPasskeyd.build(settings, store: store, ceremonyKeyRing: nil)
        }
        #expect(table.ceremonyKeys == nil && table.ceremonies.keyRing == nil)
        #expect(await store.ceremonyKeys(unretiredAt: Date()).isEmpty)
    }

    @Test("a key-encryption key that does not open the stored keys fails the start, naming the variable")
    func wrongKeyEncryptionKey() async throws {
        let store = InMemoryPasskeyStore()
        _ = try await TestPasskeyd.build(
            try TestPasskeyd.settings(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key()]), store: store, ceremonyKeyRing: nil)
        do {
            _ = try await TestPasskeyd.build(
                try TestPasskeyd.settings(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key()]), store: store, ceremonyKeyRing: nil)
            Issue.record("the start should have failed")
        } catch {
            let message = String(describing: error)
            #expect(message.contains("PASSKEYD_KEY_ENCRYPTION_KEY_FILE") && message.contains("ceremony_key_does_not_open"), "\(message)")
        }
    }
}
