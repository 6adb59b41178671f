public import PasskeyStore
import SessionCore
public import WebAuthnCore
public import WebAuthnModel

/// Signing in with a passkey: a ceremony's finish (``CeremonyService``), then the session it starts when sessions
/// are on (``SessionService``). Which finishes start one is decided here:
///
/// - every authentication that names its user (`origin` `passkey`);
/// - a registration (`origin` `registration`) only with ``SessionService/issueOnRegistration``, and never for an
///   automatic upgrade (made without a gesture: no sign-in happened; the person signed in by the method that preceded
///   it) nor for a ceremony finished for a required user (the self-service API: the person is already signed in).
///
/// The session records how the person signed in (`amr` from ``SessionCore/SignInMethod``) and the passkey used.
/// The ceremony commits before the session starts; a session that fails to start leaves the ceremony's outcome
/// standing, so it is reported apart (``Registered/session()``, ``Authenticated/session()``).
public struct PasskeySignIn: Sendable {
    public let ceremonies: CeremonyService
    /// nil: sessions are off (no outcome carries a session).
    public let sessions: SessionService?

    public init(ceremonies: CeremonyService, sessions: SessionService?) {
        self.ceremonies = ceremonies
        self.sessions = sessions
    }

    /// A registration that finished (stored and audited), and the session it started, if one was due.
    public struct Registered: Sendable {
        public let user: StoredUser
        public let credential: StoredCredential
        public let verified: VerifiedRegistration
        /// Whether this finish created the user (a sign-up).
        public let createdUser: Bool
        let started: Result<SessionService.Issued, any Error>?

        /// The session this registration started; nil when none was due. Throws what starting it threw: the passkey
        /// is stored either way, so a caller records the registration first, then asks.
        public func session() throws -> SessionService.Issued? { try started?.get() }
    }

    /// An authentication that finished (the credential's counter and backup state updated), and its session.
    public struct Authenticated: Sendable {
        /// The credential's owner (nil only if the store could not name one).
        public let user: StoredUser?
        /// The credential as updated by this sign-in.
        public let credential: StoredCredential
        public let verified: VerifiedAuthentication
        /// The ids of every credential the user holds now (the Signal API's accepted credentials).
        public let userCredentialIDs: [[UInt8]]
        /// Whether this is an automatic upgrade's passkey's first sign-in with the user verified.
        public let establishedUpgradeUV: Bool
        let started: Result<SessionService.Issued, any Error>?

        /// The session this sign-in started; nil with sessions off. Throws what starting it threw (the sign-in itself
        /// is applied either way).
        public func session() throws -> SessionService.Issued? { try started?.get() }
    }

    /// Finishes a registration (``CeremonyService/finishRegistration(_:nickname:audit:requiredUser:)``), then starts
    /// a session when one is due (see the type's rules).
    /// - Parameter requiredUser: finish only a ceremony begun for this user (the self-service API); never a session.
    public func finishRegistration(
        _ response: RegistrationResponseJSON, nickname: String?, audit: AuditContext, requiredUser: [UInt8]? = nil
    ) async throws -> Registered {
        let (user, credential, verified, createdUser) = try await ceremonies.finishRegistration(
            response, nickname: nickname, audit: audit, requiredUser: requiredUser)
        var started: Result<SessionService.Issued, any Error>?
        if let sessions, sessions.issueOnRegistration, requiredUser == nil, verified.mediation != .conditional {
            started = await sessions.start(
                signedInWith: .passkey(userVerified: credential.record.uvInitialized, backupEligible: credential.record.backupEligible),
                user: user.handle, origin: .registration, credentialID: credential.record.id)
        }
        return Registered(user: user, credential: credential, verified: verified, createdUser: createdUser, started: started)
    }

    /// Finishes an authentication (``CeremonyService/finishAuthentication(_:)``), then starts a session for the
    /// credential's owner when sessions are on.
    public func finishAuthentication(_ response: UnverifiedAuthenticationResponse) async throws -> Authenticated {
        let (user, credential, verified, userCredentialIDs, establishedUpgradeUV) = try await ceremonies.finishAuthentication(response)
        var started: Result<SessionService.Issued, any Error>?
        if let sessions, let user {
            started = await sessions.start(
                signedInWith: .passkey(userVerified: verified.userVerified, backupEligible: credential.record.backupEligible),
                user: user.handle, origin: .passkey, credentialID: credential.record.id)
        }
        return Authenticated(
            user: user, credential: credential, verified: verified, userCredentialIDs: userCredentialIDs,
            establishedUpgradeUV: establishedUpgradeUV, started: started)
    }
}
