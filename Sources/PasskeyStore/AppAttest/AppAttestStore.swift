public import AppleSignedData
public import Foundation

/// An attested App Attest key as stored (schema: `Migrations/0010_appattest.sql`, table `app_attest_keys`).
public struct StoredAppAttestKey: Sendable, Hashable {
    /// SHA-256 of the key's uncompressed P-256 point (32 bytes).
    public let keyID: [UInt8]
    /// The user the backend attached the key to, if any.
    public let userHandle: [UInt8]?
    /// `TEAMID.bundle.id` the key was attested for.
    public let appID: String
    /// Production or development.
    public let environment: AppAttestEnvironment
    /// DER SubjectPublicKeyInfo.
    public let publicKey: [UInt8]
    /// The highest assertion counter accepted (0 until the first assertion).
    public let counter: UInt32
    /// Apple's receipt, as received with the attestation.
    public let receipt: [UInt8]
    public let createdAt: Date
    /// The last accepted assertion.
    public let lastUsedAt: Date?

    public init(
        keyID: [UInt8], userHandle: [UInt8]?, appID: String, environment: AppAttestEnvironment, publicKey: [UInt8],
        counter: UInt32, receipt: [UInt8], createdAt: Date, lastUsedAt: Date?
    ) {
        self.keyID = keyID
        self.userHandle = userHandle
        self.appID = appID
        self.environment = environment
        self.publicKey = publicKey
        self.counter = counter
        self.receipt = receipt
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// What an assertion is verified against.
    public var state: AppAttestKeyState { AppAttestKeyState(publicKeySPKI: publicKey, appID: appID, counter: counter) }
}

/// The outcome of storing a newly attested key.
public enum AppAttestKeySave: Sendable, Hashable {
    /// Stored, counter 0.
    case saved(StoredAppAttestKey)
    /// A key with this id is already stored (nothing changed).
    case exists
    /// The named user does not exist (nothing stored).
    case userUnknown
}

/// Persistence for App Attest keys; their challenges are ceremonies of kind ``CeremonyKind/appAttest`` (saved and
/// taken once through ``PasskeyStore``). Every method is atomic.
public protocol AppAttestStore: Sendable {
    /// Stores a verified key with counter 0, attached to `userHandle` when given, with its `appattest.key_registered`
    /// audit event (`details["key_id"]`, base64url) in the same atomic step.
    func saveAppAttestKey(_ key: AttestedAppAttestKey, userHandle: [UInt8]?, audit: AuditContext) async throws(StoreError) -> AppAttestKeySave
    /// The stored key with this id; nil when unknown.
    func appAttestKey(id: [UInt8]) async throws(StoreError) -> StoredAppAttestKey?
    /// Advances the key's counter to `counter` and records the use, only while the stored counter is below it
    /// (`UPDATE ... WHERE counter < $new`): of two concurrent assertions with one counter exactly one gets `true`,
    /// and the counter never goes down.
    /// - Returns: false when the stored counter had already reached `counter`, or the key is gone.
    func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32) async throws(StoreError) -> Bool
}
