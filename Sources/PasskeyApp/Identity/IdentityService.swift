public import COSECrypto
public import Foundation
public import IdentityCore
import JOSE
public import PasskeyStore
public import SealedState

/// One configured identity provider: its profile (what its tokens must look like) and where its keys come from.
public struct IdentityProvider: Sendable {
    public let profile: ProviderProfile
    public let keys: any ProviderKeySource

    public init(profile: ProviderProfile, keys: any ProviderKeySource) {
        self.profile = profile
        self.keys = keys
    }
}

/// What the calling backend asks for a first sign-in of an identity (a returning identity just signs in).
public enum IdentityLinkRequest: Sendable, Hashable {
    /// Create a user for it: named `name` (taken: `user_exists`, never a link), or `provider:subject` with a random
    /// suffix if that is taken; the display name defaults to the token's `name`, then its e-mail, then the name.
    case create(name: String?, displayName: String?)
    /// Attach it to this existing user (by handle), whom the backend has authenticated.
    case attach([UInt8])
}

/// ID-token sign-in as the API runs it: the pure core, the provider keys and the store; no HTTP.
///
/// Begin saves a session as a ceremony of kind `idtoken` (single use, expiring, capped and purged like passkey
/// ceremonies), or, with ceremony keys (``keyRing``), seals it into the session id and writes nothing. Finish takes the session first (so it is used up whatever happens next), checks that the named provider
/// is configured and that the session is known and was begun for it, verifies the token with the provider's keys, then signs the identity in (returning, new user, or attached to the user the
/// backend named by id).
public struct IdentityService: Sendable {
    public let providers: [String: IdentityProvider]
    public let ceremonies: any PasskeyStore
    public let identities: any IdentityStore
    /// How long a begun session lives.
    public let sessionTimeout: TimeInterval
    /// Sign in with Apple's authorization-code exchange; `nil`: an `authorizationCode` is accepted and ignored.
    public let appleCodeExchange: AppleCodeExchange?
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date
    let random: @Sendable (Int) -> [UInt8]
    /// The ceremony keys (issue 29); with a ring, begin seals the session into its id (``SealedIDTokenSession``) and
    /// writes nothing, and finish opens any id that is not 16 bytes. `nil` (or a closure answering nil): every
    /// session is a `ceremonies` row. Finish takes 16-byte ids from the table in any case (rolling upgrades).
    public var keyRing: (@Sendable () -> CeremonyKeyRing?)?
    /// The ring begins seal with, when set (the executable's ``CeremonyKeys/sealingRing()``: refreshed first when it
    /// went stale); nil: ``keyRing``.
    public var sealingKeyRing: (@Sendable () async -> CeremonyKeyRing?)?
    /// How far another instance's clock may be behind when a sealed session's expiry is judged.
    public var clockSkew: TimeInterval = 30

    public init(
        providers: [IdentityProvider], ceremonies: any PasskeyStore, identities: any IdentityStore, sessionTimeout: TimeInterval = 300,
        appleCodeExchange: AppleCodeExchange? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, random: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes(count:)
    ) {
        self.appleCodeExchange = appleCodeExchange
        self.providers = Dictionary(providers.map { ($0.profile.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.ceremonies = ceremonies
        self.identities = identities
        self.sessionTimeout = sessionTimeout
        self.now = now
        self.random = random
    }

    /// The configured provider called `name`.
    /// - Throws: ``IdentityError/Code/providerUnknown``.
    public func provider(_ name: String) throws(IdentityError) -> IdentityProvider {
        guard let provider = providers[name] else {
            throw IdentityError(.providerUnknown, "provider \(name.prefix(32).debugDescription) is not configured")
        }
        return provider
    }

    /// Begins a sign-in with `provider`: a session with a fresh nonce, saved until it expires or is finished (with a
    /// ring: sealed into the session id, the nonce derived from it; nothing saved).
    public func begin(provider name: String) async throws -> IDTokenBeginResult {
        let provider = try provider(name)
        if let ring = await sealingKeyRing?() ?? keyRing?() { return try beginSealed(profile: provider.profile, ring: ring) }
        let result = IDTokenSignIn.begin(profile: provider.profile, timeout: sessionTimeout, now: now(), random: random)
        let session = result.session
        try await ceremonies.saveCeremony(PendingCeremony(
            challenge: session.id, kind: .idToken, userHandle: nil, state: session.encodedState, expiresAt: session.expiresAt))
        return result
    }

    /// Finishes a sign-in: takes the session, verifies the token, signs the identity in under `link`.
    /// - Parameters:
    ///   - sessionID: the session id from begin.
    ///   - provider: the provider the client says the token is from (must be the session's).
    ///   - token: the ID token as received.
    ///   - link: what to do with a first sign-in of this identity (the backend's choice, never the token's).
    ///   - authorizationCode: Apple's authorization code; redeemed (after the token verified, before the sign-in)
    ///     when the provider is `apple` and ``appleCodeExchange`` is configured, ignored otherwise.
    /// - Throws: ``IdentityError`` (one code per check), ``ProviderKeyError`` (no keys: 503), ``ProviderTokenError``
    ///   (the code refused: 422, Apple unreachable: 503; the session is used up either way), ``StoreError``.
    public func finish(
        sessionID: [UInt8], provider name: String, token: [UInt8], link: IdentityLinkRequest, authorizationCode: String? = nil,
        audit: AuditContext
    ) async throws -> IdentitySignInResult {
        // The session is taken first, so that every finish that names it uses it up, whatever is refused next (an
        // unconfigured provider included). Session ids are 16 bytes; anything else was never one (nothing is taken).
        var pending: PendingIDTokenSession?
        if sessionID.count == IDTokenSignIn.sessionIDLength,
           let ceremony = try await ceremonies.takeCeremony(challenge: sessionID, kind: .idToken) {
            pending = PendingIDTokenSession(id: sessionID, encodedState: ceremony.state, expiresAt: ceremony.expiresAt)
        } else if sessionID.count != IDTokenSignIn.sessionIDLength, let ring = keyRing?() {
            pending = try await takeSealed(sessionID, ring: ring)
        }
        let provider = try provider(name)
        let current = now()
        let session = try IDTokenSignIn.checkSession(pending, provider: name, now: current)
        let unverified = try UnverifiedIDToken(token, profile: provider.profile)
        let keys = try await provider.keys.keys(for: unverified.keyID)
        let identity = try IDTokenSignIn.verify(unverified, session: session, profile: provider.profile, keys: keys, now: current)
        let storeLink: IdentityLink
        switch link {
        case .attach(let handle):
            storeLink = .attach(toUser: handle)
        case .create(let name, let displayName):
            let chosen = name ?? "\(identity.provider):\(identity.subject)"
            storeLink = .signInOrCreate(
                handle: random(32), name: chosen, displayName: displayName ?? identity.name ?? identity.email ?? chosen,
                nameIsDefault: name == nil)
        }
        // The code first: a refused code signs nobody in and creates nobody.
        var grant: ProviderTokenGrant?
        if let authorizationCode, identity.provider == "apple", let exchange = appleCodeExchange {
            grant = try await exchange.redeem(code: authorizationCode, for: identity)
        }
        let result = try await identities.signIn(identity, link: storeLink, identityID: random(16), audit: audit)
        if let grant, let exchange = appleCodeExchange {
            try await exchange.keep(
                grant.refreshToken, identityID: result.identity.id, provider: identity.provider, clientID: identity.audience)
        }
        return result
    }

    /// Begin with ceremony keys: the session sealed into its id, the nonce derived from it, nothing written.
    func beginSealed(profile: ProviderProfile, ring: CeremonyKeyRing) throws -> IDTokenBeginResult {
        let current = now()
        // Whole seconds, as the box keeps them: begin reports the expiry finish enforces.
        let expiresAt = Date(timeIntervalSince1970: current.addingTimeInterval(sessionTimeout).timeIntervalSince1970.rounded(.up))
        let box: [UInt8]
        do {
            box = try SealedState.seal(
                SealedIDTokenSession.payload(provider: profile.name), kind: .idTokenSession, rpID: SealedIDTokenSession.scope,
                expiresAt: expiresAt, ring: ring, now: current, random: random)
        } catch {
            // No active key: a server fault (503, as a store that cannot be reached).
            throw StoreError(.unavailable, "cannot seal the session: \(error)")
        }
        let nonce = SealedIDTokenSession.nonce(box: box)
        return IDTokenBeginResult(
            session: PendingIDTokenSession(id: box, provider: profile.name, nonce: nonce, expiresAt: expiresAt),
            providerNonce: IDTokenSignIn.providerNonce(for: nonce, rule: profile.nonceRule))
    }

    /// Opens a sealed session and uses it up (its fingerprint recorded) before anything else is checked; nil when it
    /// does not open (unknown, another kind, expired past the skew) or was used already: `idtoken_session_unknown`.
    func takeSealed(_ box: [UInt8], ring: CeremonyKeyRing) async throws -> PendingIDTokenSession? {
        let opened: OpenedState
        do {
            opened = try SealedState.open(
                box, kind: .idTokenSession, rpID: SealedIDTokenSession.scope, ring: ring, now: now(), skew: clockSkew)
        } catch {
            return nil
        }
        guard try await ceremonies.consumeChallenge(opened.fingerprint),
              let provider = SealedIDTokenSession.provider(opened.payload)
        else { return nil }
        // The box enforced the expiry (with the skew); checkSession must not refuse inside the skew.
        return PendingIDTokenSession(
            id: box, provider: provider, nonce: SealedIDTokenSession.nonce(box: box),
            expiresAt: opened.expiresAt.addingTimeInterval(clockSkew + 1))
    }
}
