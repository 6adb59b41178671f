public import Foundation
public import PasskeyStore
import SessionCore
import WebAuthnCore

/// The self-service API's rules.
public struct SelfServicePolicy: Sendable, Hashable {
    /// How recent the access token's `auth_time` must be to add or remove a sign-in method
    /// (`PASSKEYD_REAUTHENTICATION_WINDOW`, default 5 minutes): a stolen access token alone cannot add an attacker's
    /// passkey. Past it: ``SelfServiceError/Code/reauthenticationRequired``.
    public var reauthenticationWindow: Duration = .seconds(300)
    /// Whether a person may remove their last way to sign in (`PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD`); off:
    /// ``SelfServiceError/Code/lastSignInMethod``.
    public var allowRemovingLastSignInMethod = false

    public init(reauthenticationWindow: Duration = .seconds(300), allowRemovingLastSignInMethod: Bool = false) {
        self.reauthenticationWindow = reauthenticationWindow
        self.allowRemovingLastSignInMethod = allowRemovingLastSignInMethod
    }

    /// Whether a sign-in at `authTime` (whole seconds since 1970) is recent enough at `now`: at most the window ago.
    public func isRecent(authTime: Int64, now: Date) -> Bool {
        let (seconds, attoseconds) = reauthenticationWindow.components
        return now.timeIntervalSince1970 - Double(authTime) <= Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The signed-in person's own sign-in methods, authorized by passkeyd's access token: list, rename and remove their
/// passkeys, list and unlink their identities. Another user's id is unknown exactly as a made-up one. Adding a
/// passkey goes through ``CeremonyService`` for the user ``signedIn(accessToken:recent:)`` returns.
public struct SelfService: Sendable {
    public let policy: SelfServicePolicy
    let sessions: SessionService
    let store: any PasskeyStore
    let identities: (any IdentityStore)?

    public init(policy: SelfServicePolicy, sessions: SessionService, store: any PasskeyStore, identities: (any IdentityStore)?) {
        self.policy = policy
        self.sessions = sessions
        self.store = store
        self.identities = identities
    }

    /// The user of `accessToken`, whose session must be active; with `recent`, its `auth_time` must be within the
    /// reauthentication window.
    /// - Throws: ``SessionCore/SessionError`` (the token or its session), ``SelfServiceError/Code/reauthenticationRequired``.
    public func signedIn(accessToken: String, recent: Bool) async throws -> [UInt8] {
        let (claims, session) = try await sessions.verify(accessToken: accessToken, requireActiveSession: true)
        guard let session else { throw SessionError(.sessionRevoked, "no session") }
        if recent, !policy.isRecent(authTime: claims.authTime, now: sessions.now()) {
            throw SelfServiceError(.reauthenticationRequired, "auth_time \(claims.authTime) is older than the window")
        }
        return session.userHandle
    }

    /// The user's passkeys, oldest first.
    public func credentials(ofUser user: [UInt8]) async throws -> [StoredCredential] {
        try await store.credentials(ofUser: user)
    }

    /// Sets or clears (nil) the nickname of one of the user's passkeys.
    /// - Throws: ``SelfServiceError/Code/credentialUnknown``.
    public func renameCredential(_ id: [UInt8], ofUser user: [UInt8], nickname: String?, audit: AuditContext) async throws -> StoredCredential {
        guard let credential = try await store.renameCredential(id: id, ofUser: user, nickname: nickname, audit: audit) else {
            throw SelfServiceError(.credentialUnknown, "the user has no credential with this id")
        }
        return credential
    }

    /// Removes one of the user's passkeys, keeping the last sign-in method unless the policy allows removing it (the
    /// count and the removal are one atomic step in the store).
    /// - Throws: ``SelfServiceError/Code/credentialUnknown``, ``SelfServiceError/Code/lastSignInMethod``.
    public func removeCredential(_ id: [UInt8], ofUser user: [UInt8], audit: AuditContext) async throws {
        let outcome = try await store.removeCredential(
            id: id, ofUser: user, keepingLastSignInMethod: !policy.allowRemovingLastSignInMethod, audit: audit)
        try Self.check(outcome, unknown: .credentialUnknown)
    }

    /// The user's provider identities, oldest first (none without ID-token sign-in).
    public func identities(ofUser user: [UInt8]) async throws -> [StoredIdentity] {
        try await identities?.identities(ofUser: user) ?? []
    }

    /// Unlinks one of the user's identities under the same last-method rule.
    /// - Throws: ``SelfServiceError/Code/identityUnknown``, ``SelfServiceError/Code/lastSignInMethod``.
    public func unlinkIdentity(_ id: [UInt8], ofUser user: [UInt8], audit: AuditContext) async throws {
        guard let identities else { throw SelfServiceError(.identityUnknown, "no identities here") }
        let outcome = try await identities.unlinkIdentity(
            id: id, ofUser: user, keepingLastSignInMethod: !policy.allowRemovingLastSignInMethod, audit: audit)
        try Self.check(outcome, unknown: .identityUnknown)
    }

    static func check(_ outcome: SignInMethodRemoval, unknown: SelfServiceError.Code) throws {
        switch outcome {
        case .removed: return
        case .unknown: throw SelfServiceError(unknown, "the user has none with this id")
        case .lastSignInMethod: throw SelfServiceError(.lastSignInMethod, "it is the account's only way to sign in")
        }
    }
}
