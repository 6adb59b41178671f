public import PasskeyStore
public import WebAuthnCore
public import WebAuthnModel

/// The demo page's finishes (`PASSKEYD_DEMO=on`, a development aid): the passkey ceremonies of ``PasskeySignIn``
/// without passkeyd sessions, and whom the page's own session names afterwards:
///
/// - after an authentication, the credential's owner;
/// - after a registration, its credential's owner when the passkey is their only one (the registration made the
///   account) or they are the person already signed in on the page (`signedIn`); otherwise the page's session is
///   left as it is.
///
/// The owner is read back from the store after the finish (one more read of the credential and the owner's
/// credentials), as the page's session sees the account.
public struct DemoSignIn: Sendable {
    public let passkeys: PasskeySignIn

    /// The demo's ceremonies: `ceremonies` with sessions off.
    public init(ceremonies: CeremonyService) {
        passkeys = PasskeySignIn(ceremonies: ceremonies, sessions: nil)
    }

    /// A finish and the user the page's session names from now on.
    public struct Finished<Ceremony: Sendable>: Sendable {
        public let ceremony: Ceremony
        let signsIn: Result<[UInt8]?, any Error>

        /// The user handle the page's session names from now on; nil: leave it as it is. Throws what reading the
        /// owner threw (the ceremony has committed either way, so a caller records it first, then asks).
        public func signedInUser() throws -> [UInt8]? { try signsIn.get() }
    }

    /// Finishes a registration; its owner is signed in when the passkey is their only one or `signedIn` is them.
    /// - Parameter signedIn: the user the page's session names now, if any.
    public func finishRegistration(
        _ response: RegistrationResponseJSON, nickname: String?, audit: AuditContext, signedIn: [UInt8]?
    ) async throws -> Finished<PasskeySignIn.Registered> {
        let registered = try await passkeys.finishRegistration(response, nickname: nickname, audit: audit)
        let signsIn = await owner(of: registered.credential.id).map { owner -> [UInt8]? in
            guard let (handle, count) = owner else { return nil }
            let isNewAccount = count == 1
            return isNewAccount || signedIn == handle ? handle : nil
        }
        return Finished(ceremony: registered, signsIn: signsIn)
    }

    /// Finishes an authentication; the credential's owner is signed in.
    public func finishAuthentication(_ response: UnverifiedAuthenticationResponse) async throws -> Finished<PasskeySignIn.Authenticated> {
        let authenticated = try await passkeys.finishAuthentication(response)
        let signsIn = await owner(of: authenticated.credential.id).map { $0?.handle }
        return Finished(ceremony: authenticated, signsIn: signsIn)
    }

    /// The owner of a credential and how many credentials they hold (nil: the credential is gone), read now.
    private func owner(of credentialID: [UInt8]) async -> Result<(handle: [UInt8], credentialCount: Int)?, any Error> {
        do {
            return .success(try await passkeys.ceremonies.owner(ofCredential: credentialID))
        } catch {
            return .failure(error)
        }
    }
}
