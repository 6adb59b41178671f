public import COSECrypto
public import Foundation
public import IdentityCore
import JOSE
public import Logging
public import Metrics
public import PasskeyStore
import WebAuthnModel

/// Sign in with Apple's authorization-code part, when configured: the code the app sends with the ID token is
/// redeemed at Apple for a refresh token, which is kept sealed (AES-256-GCM under the key-encryption key, the
/// identity's id as associated data) so it can be revoked when the account goes, as Apple requires.
public struct AppleCodeExchange: Sendable {
    /// Makes the `client_secret` (ES256 JWT with the team id, key id and `.p8` key).
    public let clientSecret: AppleClientSecret
    /// Apple's token and revoke endpoints.
    public let endpoint: any ProviderTokenEndpoint
    /// Where the sealed tokens and the revocation queue live.
    public let tokens: any ProviderTokenStore
    let keyEncryptionKey: [UInt8]
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date

    /// - Throws: ``CryptoError/Code/malformedKey`` when the key-encryption key is not 32 bytes.
    public init(
        clientSecret: AppleClientSecret, endpoint: any ProviderTokenEndpoint, tokens: any ProviderTokenStore,
        keyEncryptionKey: [UInt8], now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CryptoError) {
        guard keyEncryptionKey.count == AEAD.keyLength else {
            throw CryptoError(code: .malformedKey, reason: "the key-encryption key must be 32 bytes")
        }
        self.clientSecret = clientSecret
        self.endpoint = endpoint
        self.tokens = tokens
        self.keyEncryptionKey = keyEncryptionKey
        self.now = now
    }

    /// Redeems `code` (issued to `identity.audience`). When Apple's answer carries an ID token, its `sub` must be the
    /// verified identity's: a code from someone else's sign-in is refused like an invalid one.
    /// - Throws: ``ProviderTokenError``.
    func redeem(code: String, for identity: VerifiedIdentity) async throws -> ProviderTokenGrant {
        let secret = try clientSecret.secret(clientID: identity.audience, now: now())
        let grant = try await endpoint.exchange(code: code, clientID: identity.audience, clientSecret: secret)
        if let idToken = grant.idToken {
            // Straight from Apple over TLS: only read, to compare the subject.
            guard let jws = try? CompactJWS(compact: Array(idToken.utf8), maxLength: 16 * 1024),
                  case .object(let claims)? = try? JSONReader.parse(jws.payload, maxDepth: 16),
                  case .string(let subject)? = claims["sub"]
            else {
                throw ProviderTokenError(.unavailable, "Apple's token answer carries an unreadable id_token")
            }
            guard subject == identity.subject else {
                throw ProviderTokenError(.invalidGrant, "the authorization code belongs to another Apple account")
            }
        }
        return grant
    }

    /// Seals `refreshToken` for the identity `identityID` and keeps it.
    func keep(_ refreshToken: String, identityID: [UInt8], provider: String, clientID: String) async throws {
        let sealed = try AEAD.seal(Array(refreshToken.utf8), key: keyEncryptionKey, associatedData: identityID)
        _ = try await tokens.saveProviderToken(
            SealedProviderToken(identityID: identityID, provider: provider, clientID: clientID, sealedToken: sealed))
    }

    /// The plaintext of a kept token.
    /// - Throws: ``CryptoError/Code/decryptionFailed`` under another key (or a moved row).
    public func open(_ token: SealedProviderToken) throws(CryptoError) -> String {
        String(decoding: try AEAD.open(token.sealedToken, key: keyEncryptionKey, associatedData: token.identityID), as: UTF8.self)
    }
}

/// Drains the revocation queue: claims due tokens, revokes each at Apple, deletes it on success (or when Apple says
/// the grant is already invalid), otherwise retries later with exponential back-off, and gives up after
/// ``maxAttempts`` (logged as an error). Several instances may drain at once: a claim is a lease (``lease``).
public struct TokenRevocationDrain: Sendable {
    public let exchange: AppleCodeExchange
    public var batchSize = 20
    public var maxAttempts = 10
    /// How long a claimed row is hidden from other drainers.
    public var lease: TimeInterval = 300
    /// The first retry delay; doubled per failed attempt up to ``maxDelay``.
    public var baseDelay: TimeInterval = 60
    public var maxDelay: TimeInterval = 6 * 3600
    let logger: Logger
    private let revoked, retrying, givenUp: Counter
    private let pending: Gauge

    /// - Parameters:
    ///   - metricsFactory: where the drain's metrics go:
    ///
    ///         passkeyd_provider_token_revocations_total{outcome="revoked"|"retrying"|"given_up"}  counter
    ///         passkeyd_provider_token_revocations_pending                                     gauge (after each pass)
    public init(exchange: AppleCodeExchange, logger: Logger, metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.exchange = exchange
        self.logger = logger
        let name = "passkeyd_provider_token_revocations_total"
        revoked = Counter(label: name, dimensions: [("outcome", "revoked")], factory: metricsFactory)
        retrying = Counter(label: name, dimensions: [("outcome", "retrying")], factory: metricsFactory)
        givenUp = Counter(label: name, dimensions: [("outcome", "given_up")], factory: metricsFactory)
        pending = Gauge(label: "passkeyd_provider_token_revocations_pending", factory: metricsFactory)
    }

    /// Drains at start and then every `interval` until the service group shuts down: passes back to back while they
    /// come back full, then a pause. A failed pass (the database unreachable) is logged and tried again after the
    /// pause; the queue is in the database, so what a stopped instance left is revoked by the next one.
    public func service(every interval: Duration) -> BackgroundService {
        BackgroundService("provider token revocation drain", every: interval, runsAtStart: true) {
            do {
                while try await drainOnce().claimed >= batchSize, !Task.isCancelled {}
            } catch {
                let reason = (error as? StoreError).map { "\($0.code): \($0.reason)" } ?? String(reflecting: type(of: error))
                logger.warning("provider token revocation pass failed", metadata: ["reason": .string(reason)])
            }
        }
    }

    /// What one pass did.
    public struct Outcome: Sendable, Hashable {
        public var revoked = 0
        public var retrying = 0
        public var givenUp = 0
        /// Revocations claimed in the pass.
        public var claimed: Int { revoked + retrying + givenUp }
    }

    /// One pass over the due revocations (at most ``batchSize``).
    public func drainOnce() async throws(StoreError) -> Outcome {
        var outcome = Outcome()
        let store = exchange.tokens
        for pending in try await store.claimTokenRevocations(limit: batchSize, lease: lease) {
            let identity = Base64URL.encode(pending.token.identityID)
            let token: String
            do {
                token = try exchange.open(pending.token)
            } catch {
                // Sealed under another key-encryption key: it can never be opened here.
                logger.error("provider token revocation given up: the token does not decrypt",
                             metadata: ["identity_id": .string(identity), "reason": .string(error.debugDescription)])
                try await store.completeTokenRevocation(id: pending.id)
                outcome.givenUp += 1
                continue
            }
            do {
                let secret = try exchange.clientSecret.secret(clientID: pending.token.clientID, now: exchange.now())
                try await exchange.endpoint.revoke(token: token, clientID: pending.token.clientID, clientSecret: secret)
                try await store.completeTokenRevocation(id: pending.id)
                outcome.revoked += 1
                logger.info("provider token revoked", metadata: ["identity_id": .string(identity), "provider": .string(pending.token.provider)])
            } catch let error as ProviderTokenError where error.kind == .invalidGrant {
                // Apple no longer knows the token: nothing is left to revoke.
                try await store.completeTokenRevocation(id: pending.id)
                outcome.revoked += 1
                logger.info("provider token already invalid at the provider", metadata: ["identity_id": .string(identity)])
            } catch let error as StoreError {
                throw error
            } catch {
                let reason = (error as? ProviderTokenError)?.reason ?? String(describing: error).prefix(200).description
                if pending.attempts >= maxAttempts {
                    try await store.completeTokenRevocation(id: pending.id)
                    outcome.givenUp += 1
                    logger.error("provider token revocation given up after \(pending.attempts) attempts",
                                 metadata: ["identity_id": .string(identity), "reason": .string(reason)])
                } else {
                    let delay = min(maxDelay, baseDelay * pow(2, Double(max(0, pending.attempts - 1))))
                    try await store.deferTokenRevocation(id: pending.id, retryAfter: delay, error: reason)
                    outcome.retrying += 1
                    logger.warning("provider token revocation failed; retrying",
                                   metadata: ["identity_id": .string(identity), "attempts": .stringConvertible(pending.attempts),
                                              "retry_in_seconds": .stringConvertible(Int(delay)), "reason": .string(reason)])
                }
            }
        }
        if outcome.revoked > 0 { revoked.increment(by: outcome.revoked) }
        if outcome.retrying > 0 { retrying.increment(by: outcome.retrying) }
        if outcome.givenUp > 0 { givenUp.increment(by: outcome.givenUp) }
        pending.record(try await store.pendingTokenRevocationCount())
        return outcome
    }
}
