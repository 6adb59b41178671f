public import COSECrypto
public import Foundation
public import Logging
public import Metrics
public import PasskeyStore
public import SessionCore
import WebAuthnModel

/// Sessions after sign-in (`PASSKEYD_SESSIONS=on`): access tokens signed by passkeyd, rotating refresh tokens with
/// reuse detection, and one-time handoff codes from a native app to a web view. The pure rules are SessionCore's;
/// this service adds the store, the keys, the clock and randomness, and the metrics
///
///     passkeyd_sessions_total{event="issued"|"refreshed"|"reused"|"revoked"|"handoff_created"|"handoff_exchanged"}
public struct SessionService: Sendable {
    public let policy: SessionPolicy
    public let store: any SessionStore
    public let keys: SessionKeys
    /// Also start a session on a passkey registration finish.
    public var issueOnRegistration = false
    /// The refresh-token cookie a handoff exchange may set (``SessionCookie``).
    public var cookie = SessionCookie()
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date
    let random: @Sendable (Int) -> [UInt8]
    let logger: Logger
    private let counters: [String: Counter]

    public init(
        policy: SessionPolicy, store: any SessionStore, keys: SessionKeys, logger: Logger,
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> Date = { Date() }, random: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes(count:)
    ) {
        self.policy = policy
        self.store = store
        self.keys = keys
        self.logger = logger
        self.now = now
        self.random = random
        counters = Dictionary(uniqueKeysWithValues: ["issued", "refreshed", "reused", "revoked", "handoff_created", "handoff_exchanged"].map {
            ($0, Counter(label: "passkeyd_sessions_total", dimensions: [("event", $0)], factory: metricsFactory))
        })
    }

    /// What a client receives: `{"accessToken", "tokenType", "expiresIn", "refreshToken", "refreshExpiresIn"}`.
    public struct Issued: Sendable {
        public let accessToken: String
        public let expiresIn: Int
        public let refreshToken: String
        public let refreshExpiresIn: Int
        public let sessionID: [UInt8]
        public let userHandle: [UInt8]
    }

    /// Counts `event` in `passkeyd_sessions_total` (for the use cases of this module).
    package func count(_ event: String, by amount: Int = 1) {
        if amount > 0 { counters[event]?.increment(by: amount) }
    }

    // MARK: issuing

    /// Starts a session (a new refresh family) for a user who just signed in.
    /// - Parameter notAfter: a session from a handoff ends no later than the session it came from.
    public func start(
        user: [UInt8], origin: SessionOrigin, amr: [String], authTime: Date? = nil, credentialID: [UInt8]? = nil, identityID: [UInt8]? = nil,
        notAfter: Date? = nil
    ) async throws -> Issued {
        let time = now()
        let (refreshToken, refreshHash) = OpaqueToken.generate(prefix: OpaqueToken.refreshPrefix, random: random)
        let absolute = min(time + policy.refreshAbsoluteLifetime, notAfter ?? .distantFuture)
        let session = NewSession(
            id: random(16), userHandle: user, refreshHash: refreshHash, origin: origin, amr: amr, authTime: authTime ?? time, createdAt: time,
            idleExpiresAt: min(time + policy.refreshIdleLifetime, absolute), absoluteExpiresAt: absolute,
            credentialID: credentialID, identityID: identityID)
        guard try await store.createSession(session) else { throw StoreError(.userUnknown, "the user, or the passkey or identity used, was deleted before the session started") }
        count("issued")
        return try await issue(
            sessionID: session.id, user: user, amr: amr, authTime: session.authTime, refreshToken: refreshToken,
            refreshExpiresAt: session.idleExpiresAt, now: time)
    }

    /// Starts a session after a sign-in by `method` that has already committed (a passkey ceremony, an ID token):
    /// ``start(user:origin:amr:authTime:credentialID:identityID:notAfter:)`` with the method's `amr`, its failure kept
    /// as a value so the caller can record the sign-in before reporting it.
    func start(
        signedInWith method: SignInMethod, user: [UInt8], origin: SessionOrigin, credentialID: [UInt8]? = nil, identityID: [UInt8]? = nil
    ) async -> Result<Issued, any Error> {
        do {
            return .success(try await start(user: user, origin: origin, amr: method.amr, credentialID: credentialID, identityID: identityID))
        } catch {
            return .failure(error)
        }
    }

    /// Signs an access token for a session.
    func issue(
        sessionID: [UInt8], user: [UInt8], amr: [String], authTime: Date, refreshToken: String, refreshExpiresAt: Date, now time: Date
    ) async throws -> Issued {
        guard let key = try await keys.signer() else {
            throw StoreError(.unavailable, "no session signing key (run passkeyd rotate-session-key or check the key files)")
        }
        let issuedAt = Int64(time.timeIntervalSince1970.rounded(.down))
        let lifetime = Int64(policy.accessTokenLifetime)
        let claims = AccessTokenClaims(
            issuer: policy.issuer, audiences: policy.audiences, subject: Base64URL.encode(user), issuedAt: issuedAt, expiresAt: issuedAt + lifetime,
            tokenID: Base64URL.encode(random(16)), sessionID: Base64URL.encode(sessionID), authTime: Int64(authTime.timeIntervalSince1970.rounded(.down)),
            amr: amr)
        return Issued(
            accessToken: try AccessTokens.issue(claims, key: key), expiresIn: Int(lifetime), refreshToken: refreshToken,
            refreshExpiresIn: max(0, Int(refreshExpiresAt.timeIntervalSince(time).rounded(.down))), sessionID: sessionID, userHandle: user)
    }

    // MARK: refresh and sign-out

    /// Rotates a refresh token: a new access token and refresh token, the presented one retired. A retired token
    /// presented again revokes the whole session (logged as a warning, counted as `reused`).
    public func refresh(_ presented: String, audit: AuditContext = .system) async throws -> Issued {
        guard let hash = OpaqueToken.hash(of: presented, prefix: OpaqueToken.refreshPrefix) else {
            throw SessionError(.refreshTokenMalformed, "not a refresh token")
        }
        let time = now()
        let (replacement, replacementHash) = OpaqueToken.generate(prefix: OpaqueToken.refreshPrefix, random: random)
        switch try await store.rotateRefreshToken(presented: hash, replacement: replacementHash, now: time, idleLifetime: policy.refreshIdleLifetime, audit: audit) {
        case .rotated(let session):
            count("refreshed")
            return try await issue(
                sessionID: session.id, user: session.userHandle, amr: session.amr, authTime: session.authTime, refreshToken: replacement,
                refreshExpiresAt: min(session.idleExpiresAt, session.absoluteExpiresAt), now: time)
        case .reused(let session):
            count("reused")
            logger.warning("refresh token reused: session revoked", metadata: [
                "session_id": .string(Base64URL.encode(session.id)), "user_id": .string(Base64URL.encode(session.userHandle)),
                "generation": .stringConvertible(session.generation),
            ])
            throw SessionError(.refreshTokenReused, "a retired refresh token was presented; the session is revoked")
        case .inactive(let session):
            throw SessionError(.sessionInactive, session.revokedAt != nil ? "revoked (\(session.revokedReason?.rawValue ?? "?"))" : "expired")
        case .unknown:
            throw SessionError(.refreshTokenUnknown, "no session has this refresh token")
        }
    }

    /// Signs out with a refresh token: revokes its session. `false` when no session has it as its current token.
    public func signOut(refreshToken presented: String, audit: AuditContext = .system) async throws -> Bool {
        guard let hash = OpaqueToken.hash(of: presented, prefix: OpaqueToken.refreshPrefix) else {
            throw SessionError(.refreshTokenMalformed, "not a refresh token")
        }
        let revoked = try await store.revokeSession(refreshHash: hash, reason: .signOut, now: now(), audit: audit) != nil
        if revoked { count("revoked") }
        return revoked
    }

    /// Signs out with an access token: revokes its session (the token itself stays valid until its `exp`).
    public func signOut(accessToken: String, audit: AuditContext = .system) async throws -> Bool {
        let (claims, _) = try await verify(accessToken: accessToken, requireActiveSession: false)
        guard let sessionID = Base64URL.decodeStrict(claims.sessionID) else { return false }
        let revoked = try await store.revokeSession(id: sessionID, ofUser: Base64URL.decodeStrict(claims.subject), reason: .signOut, now: now(), audit: audit)
        if revoked { count("revoked") }
        return revoked
    }

    /// Verifies one of passkeyd's access tokens; with `requireActiveSession`, its session must also be active now
    /// (``SessionError/Code/sessionRevoked`` otherwise). An unknown `kid` rereads the keys once (another instance may
    /// have rotated).
    public func verify(accessToken: String, requireActiveSession: Bool) async throws -> (AccessTokenClaims, StoredSession?) {
        let time = now()
        let claims: AccessTokenClaims
        do {
            claims = try AccessTokens.verify(accessToken, keys: try await keys.current(), policy: policy, now: time)
        } catch let error as SessionError where error.code == .accessTokenKeyUnknown {
            claims = try AccessTokens.verify(accessToken, keys: try await keys.current(force: true), policy: policy, now: time)
        }
        guard requireActiveSession else { return (claims, nil) }
        guard let sessionID = Base64URL.decodeStrict(claims.sessionID), let session = try await store.session(id: sessionID),
              session.userHandle == Base64URL.decodeStrict(claims.subject), session.isActive(at: time)
        else { throw SessionError(.sessionRevoked, "the token's session is revoked, expired or gone") }
        return (claims, session)
    }

    /// The public keys of the access tokens as a JWK set (`/.well-known/jwks.json`), as of now.
    public func jwks() async throws -> [UInt8] {
        try await keys.current().jwks(at: now())
    }

    /// RFC 7662 introspection for a backend: the claims and the session of an access token whose session is active
    /// now; nil for anything else. A refresh token is never introspected (it is the client's to present, not a
    /// backend's to inspect), and any refusal (a bad token, an ended session, the store unreachable) is "not active".
    public func introspect(_ token: String) async -> (claims: AccessTokenClaims, session: StoredSession)? {
        if token.hasPrefix(OpaqueToken.refreshPrefix) { return nil }
        guard let (claims, session) = try? await verify(accessToken: token, requireActiveSession: true), let session else { return nil }
        return (claims, session)
    }

    // MARK: handoff

    /// A handoff code for the user of an access token whose session is active: the web view's session will carry
    /// that session's sign-in (`amr`, `auth_time`) and end no later than it.
    /// - Throws: ``SessionCore/SessionError`` (the token, its session, a malformed `codeChallenge`), ``StoreError``.
    public func createHandoff(accessToken: String, codeChallenge: String?) async throws -> (code: String, expiresIn: Int) {
        let (claims, session) = try await verify(accessToken: accessToken, requireActiveSession: true)
        guard let session else { throw SessionError(.sessionRevoked, "no session") }
        return try await createHandoff(
            user: session.userHandle, sessionID: session.id, amr: claims.amr, authTime: Date(timeIntervalSince1970: Double(claims.authTime)),
            codeChallenge: codeChallenge)
    }

    /// A handoff code for `user` on a backend's word (its API key): no session behind it, no `amr`, signed in now.
    /// - Throws: ``SessionCore/SessionError`` (a malformed `codeChallenge`), ``StoreError`` (`user_unknown`).
    public func createHandoff(forUser user: [UInt8], codeChallenge: String?) async throws -> (code: String, expiresIn: Int) {
        try await createHandoff(user: user, sessionID: nil, amr: [], authTime: now(), codeChallenge: codeChallenge)
    }

    /// A one-time code for a web view: `(code, expiresIn)`. Stored as a hash; never logged.
    public func createHandoff(user: [UInt8], sessionID: [UInt8]?, amr: [String], authTime: Date, codeChallenge: String?) async throws -> (code: String, expiresIn: Int) {
        if let codeChallenge, !PKCE.isChallenge(codeChallenge) {
            throw SessionError(.handoffVerifierMalformed, "codeChallenge is not an S256 challenge (43 base64url characters)")
        }
        let time = now()
        let (code, hash) = OpaqueToken.generate(prefix: OpaqueToken.handoffPrefix, random: random)
        let handoff = StoredHandoff(
            codeHash: hash, userHandle: user, sessionID: sessionID, codeChallenge: codeChallenge, amr: amr, authTime: authTime, createdAt: time,
            expiresAt: time + policy.handoffLifetime)
        guard try await store.saveHandoff(handoff) else { throw StoreError(.userUnknown, "no such user") }
        count("handoff_created")
        return (code, Int(policy.handoffLifetime))
    }

    /// Exchanges a handoff code for a new session of its own. The code is used up by this call whatever the outcome.
    public func exchange(code: String, verifier: String?) async throws -> Issued {
        guard let hash = OpaqueToken.hash(of: code, prefix: OpaqueToken.handoffPrefix) else {
            throw SessionError(.handoffCodeMalformed, "not a handoff code")
        }
        guard let handoff = try await store.takeHandoff(codeHash: hash) else {
            throw SessionError(.handoffCodeUnknown, "unknown or already exchanged")
        }
        guard now() < handoff.expiresAt else { throw SessionError(.handoffCodeExpired, "exchanged at or after its expiry") }
        try PKCE.checkExchange(challenge: handoff.codeChallenge, verifier: verifier)
        // A code made from a native session: the web view's session inherits its end (a handoff never extends a
        // session), and what started it (deleting that passkey or identity revokes both); a native session ended
        // since the code was made hands nothing over.
        var parent: StoredSession?
        if let parentID = handoff.sessionID {
            guard let found = try await store.session(id: parentID), found.isActive(at: now()) else {
                throw SessionError(.sessionRevoked, "the session the code was made from has ended")
            }
            parent = found
        }
        let issued = try await start(
            user: handoff.userHandle, origin: .handoff, amr: handoff.amr, authTime: handoff.authTime, credentialID: parent?.credentialID,
            identityID: parent?.identityID, notAfter: parent?.absoluteExpiresAt)
        count("handoff_exchanged")
        return issued
    }
}

/// The refresh-token cookie of web pages that ask for one (`"cookie": true` on a handoff exchange): HttpOnly,
/// Secure, SameSite=Strict, scoped to `/v1/sessions`, so page scripts never read it and only refresh and sign-out
/// receive it.
public struct SessionCookie: Sendable {
    public var name = "passkeyd_refresh"
    public var path = "/v1/sessions"

    public init() {}

    public func set(_ token: String, maxAge: Int) -> String {
        "\(name)=\(token); Path=\(path); Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Strict"
    }

    public func cleared() -> String {
        "\(name)=; Path=\(path); Max-Age=0; HttpOnly; Secure; SameSite=Strict"
    }
}
