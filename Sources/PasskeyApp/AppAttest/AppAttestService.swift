public import AppleSignedData
public import COSECrypto
public import Foundation
public import Metrics
public import PasskeyStore
public import SealedState

/// App Attest for the app's backend (present when `PASSKEYD_APPATTEST_APP_IDS` is set): single-use challenges,
/// attestations verified with AppleSignedData and stored, assertions verified against the stored key with the
/// counter advanced by a conditional update. The pure rules are AppleSignedData's; this adds the store, the clock,
/// randomness and the metrics
///
///     passkeyd_appattest_total{operation="attestation"|"assertion", outcome="accepted"|<error code>}
public struct AppAttestService: Sendable {
    /// Apps, environments and the root.
    public let configuration: AppAttestConfiguration
    /// Challenges (ceremonies of kind `appattest`) and keys.
    public let store: any PasskeyStore & AppAttestStore
    /// How long a challenge stays usable.
    public let challengeTimeout: TimeInterval
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date
    let random: @Sendable (Int) -> [UInt8]
    private let counters: [String: Counter]
    /// The ceremony keys (issue 29); with a ring, a challenge is a sealed box (kind ``SealedStateKind/appAttest``,
    /// empty payload: 53 bytes) and nothing is written; attest and assert open any challenge that is not
    /// ``challengeLength`` bytes and record its fingerprint (single use). `nil`: every challenge is a `ceremonies`
    /// row. A 32-byte challenge is taken from the table in any case (rolling upgrades).
    public var keyRing: (@Sendable () -> CeremonyKeyRing?)?
    /// The ring new challenges seal with, when set (the executable's ``CeremonyKeys/sealingRing()``: refreshed first when it
    /// went stale); nil: ``keyRing``.
    public var sealingKeyRing: (@Sendable () async -> CeremonyKeyRing?)?
    /// How far another instance's clock may be behind when a sealed challenge's expiry is judged.
    public var clockSkew: TimeInterval = 30
    /// Sealed challenges are bound to this in place of a relying party (the kind keeps them from opening as anything
    /// else).
    static let sealedScope = "passkeyd.appattest"

    /// Challenge length in bytes.
    public static let challengeLength = 32

    public init(
        configuration: AppAttestConfiguration, store: any PasskeyStore & AppAttestStore, challengeTimeout: TimeInterval = 300,
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> Date = { Date() }, random: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes(count:)
    ) {
        self.configuration = configuration
        self.store = store
        self.challengeTimeout = challengeTimeout
        self.now = now
        self.random = random
        let outcomes = ["accepted", "error"] + AppAttestError.Code.all.map(\.rawValue)
        var counters: [String: Counter] = [:]
        for operation in ["attestation", "assertion"] {
            for outcome in outcomes {
                counters["\(operation)/\(outcome)"] = Counter(
                    label: "passkeyd_appattest_total", dimensions: [("operation", operation), ("outcome", outcome)],
                    factory: metricsFactory)
            }
        }
        self.counters = counters
    }

    /// A new challenge, saved until it expires or is used.
    public func challenge() async throws -> (challenge: [UInt8], expiresAt: Date) {
        if let ring = await sealingKeyRing?() ?? keyRing?() {
            let current = now()
            // Whole seconds, as the box keeps them.
            let expiresAt = Date(timeIntervalSince1970: current.addingTimeInterval(challengeTimeout).timeIntervalSince1970.rounded(.up))
            do {
                return (try SealedState.seal(
                    [], kind: .appAttest, rpID: Self.sealedScope, expiresAt: expiresAt, ring: ring, now: current, random: random), expiresAt)
            } catch {
                // No active key: a server fault (503, as a store that cannot be reached).
                throw StoreError(.unavailable, "cannot seal the challenge: \(error)")
            }
        }
        let challenge = random(Self.challengeLength)
        let expiresAt = now().addingTimeInterval(challengeTimeout)
        try await store.saveCeremony(PendingCeremony(
            challenge: challenge, kind: .appAttest, userHandle: nil, state: [], expiresAt: expiresAt))
        return (challenge, expiresAt)
    }

    /// Verifies and stores an attestation. The challenge is used up first, whatever the outcome.
    /// - Parameters:
    ///   - keyID: the key identifier from `generateKey` (32 bytes).
    ///   - attestationObject: from `attestKey(keyId, clientDataHash: SHA256(challenge))`.
    ///   - challenge: a challenge from ``challenge()``; its SHA-256 is the clientDataHash.
    ///   - userHandle: the user to attach the key to, if any (must exist).
    /// - Throws: ``AppAttestError`` (the check that failed, `challengeInvalid`, `keyExists`), ``StoreError``
    ///   (`userUnknown`, storage).
    public func attest(
        keyID: [UInt8], attestationObject: [UInt8], challenge: [UInt8], userHandle: [UInt8]?, audit: AuditContext = .system
    ) async throws -> StoredAppAttestKey {
        try await counted("attestation") {
            try await take(challenge)
            let verified = try AppAttest.verifyAttestation(
                attestationObject, keyID: keyID, clientDataHash: Digest.sha256(challenge), configuration: configuration, now: now())
            switch try await store.saveAppAttestKey(verified, userHandle: userHandle, audit: audit) {
            case .saved(let key): return key
            case .exists: throw AppAttestError(.keyExists, "the key id is already attested")
            case .userUnknown: throw StoreError(.userUnknown, "no user with this handle")
            }
        }
    }

    /// Verifies an assertion and advances the key's counter. The challenge inside `clientData` is used up first,
    /// whatever the outcome.
    /// - Parameters:
    ///   - keyID: the key identifier.
    ///   - assertion: from `generateAssertion(keyId, clientDataHash: SHA256(clientData))`.
    ///   - clientData: the exact bytes the app hashed: a JSON object whose `challenge` member is a challenge from
    ///     ``challenge()`` (base64url).
    /// - Returns: the key with its new counter.
    /// - Throws: ``AppAttestError``, ``StoreError``.
    public func assert(keyID: [UInt8], assertion: [UInt8], clientData: [UInt8]) async throws -> StoredAppAttestKey {
        try await counted("assertion") {
            let challenge = try AppAttest.clientDataChallenge(clientData)
            try await take(challenge)
            guard let key = try await store.appAttestKey(id: keyID) else {
                throw AppAttestError(.keyUnknown, "no attested key has this id")
            }
            // Configuration may have changed since the attestation: an app no longer listed, or development builds no
            // longer allowed, stops its keys.
            guard configuration.apps.contains(where: { $0.appID == key.appID }) else {
                throw AppAttestError(.rpIDMismatch, "the key's app \(key.appID) is no longer configured")
            }
            guard configuration.environments.contains(key.environment) else {
                throw AppAttestError(.aaguidMismatch, "the key's environment \(key.environment.rawValue) is no longer allowed")
            }
            let counter = try AppAttest.verifyAssertion(assertion, clientData: clientData, key: key.state)
            // The conditional update decides between concurrent assertions: zero rows means another one with this
            // counter or a higher one was stored first.
            guard try await store.advanceAppAttestCounter(keyID: keyID, to: counter) else {
                throw AppAttestError(.counterNotIncreasing, "counter \(counter) was reached concurrently")
            }
            return StoredAppAttestKey(
                keyID: key.keyID, userHandle: key.userHandle, appID: key.appID, environment: key.environment,
                publicKey: key.publicKey, counter: counter, receipt: key.receipt, createdAt: key.createdAt, lastUsedAt: now())
        }
    }

    /// Takes an unexpired, unused challenge of kind `appattest`.
    func take(_ challenge: [UInt8]) async throws {
        // Written as IdentityService takes its sessions, through a plain `any PasskeyStore`: Swift 6.3.1's release
        // optimiser crashed splitting this coroutine when it called through the composition existential in a guard.
        let ceremonies: any PasskeyStore = store
        var taken = false
        if challenge.count == Self.challengeLength {
            taken = try await ceremonies.takeCeremony(challenge: challenge, kind: .appAttest) != nil
        } else if let ring = keyRing?(),
                  let opened = try? SealedState.open(
                      challenge, kind: .appAttest, rpID: Self.sealedScope, ring: ring, now: now(), skew: clockSkew) {
            taken = try await ceremonies.consumeChallenge(opened.fingerprint)
        }
        guard taken else { throw AppAttestError(.challengeInvalid, "the challenge is unknown, expired or already used") }
    }

    /// Runs `body` and counts its outcome.
    func counted<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            counters["\(operation)/accepted"]?.increment()
            return value
        } catch {
            let outcome = (error as? AppAttestError)?.code.rawValue ?? "error"
            counters["\(operation)/\(outcome)"]?.increment()
            throw error
        }
    }
}
