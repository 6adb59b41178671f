import COSECrypto
import Foundation
import PasskeyStore
import SealedState
import WebAuthnCore
import WebAuthnModel

// Stateless passkey ceremonies (issue 29): a begin seals its state into the challenge and writes nothing (a named
// sign-in reads the user's credentials once, from the read replica when there is one; a discoverable one touches no
// database); a finish opens the challenge, verifies, and records the challenge as used in the same statement as its
// change.
extension CeremonyService {
    func beginSealedAuthentication(
        user lookup: UserLookup?, userVerification: UserVerificationRequirement?, extensions: [String: JSONValue]?,
        relyingParty: RelyingParty, ring: CeremonyKeyRing, now: Date
    ) async throws -> RequestOptionsJSON {
        let service = self
        @Sendable func options(allow: [CredentialDescriptor], handle: [UInt8]?) throws -> RequestOptionsJSON {
            var (options, state) = relyingParty.beginAuthentication(
                allowCredentials: allow, userHandle: handle, userVerification: userVerification, extensions: extensions,
                challengeSource: SealedChallengePlaceholder(), now: now)
            options.challenge = Base64URL.encode(try service.seal(
                SealedAuthentication.payload(state), kind: .authentication, rpID: relyingParty.id,
                expiresAt: state.expiresAt, ring: ring, now: now))
            return options
        }
        guard let lookup else { return try options(allow: [], handle: nil) }
        // A read replica answers a user it knows with at least one credential; anything else is asked of the primary
        // (a user who registered a moment ago; an unknown one still gets the fake options below).
        if case .answered(let found?)? = await replicaReads?.read(lookup, usable: { !($0?.credentials.isEmpty ?? true) }) {
            return try options(
                allow: found.credentials.map { CredentialDescriptor(id: $0.id, transports: $0.record.transports) }, handle: found.user.handle)
        }
        // One read (batched with concurrent begins' on PostgreSQL), nothing saved.
        guard let found = try await store.userWithCredentials(lookup) else {
            // Unknown user: a random handle that owns nothing, and one imaginary credential id (no existence oracle:
            // the options look like a known user's).
            return try options(allow: [CredentialDescriptor(id: SecureRandom.bytes(count: 32))], handle: SecureRandom.bytes(count: 32))
        }
        return try options(
            allow: found.credentials.map { CredentialDescriptor(id: $0.id, transports: $0.record.transports) }, handle: found.user.handle)
    }

    func finishSealedAuthentication(
        _ response: UnverifiedAuthenticationResponse, challenge: [UInt8], relyingParty: RelyingParty, ring: CeremonyKeyRing,
        now: Date
    ) async throws -> (
        user: StoredUser?, credential: StoredCredential, verified: VerifiedAuthentication, userCredentialIDs: [[UInt8]],
        establishedUpgradeUV: Bool
    ) {
        let (opened, _) = try await openReloading(challenge, kinds: [.authentication], rpID: relyingParty.id, ring: ring, now: now)
        // The box enforced the expiry (with the skew); the engine's own check must not refuse inside the skew.
        let state = try SealedAuthentication.state(
            opened.payload, challenge: challenge, appID: relyingParty.legacyAppID,
            expiresAt: opened.expiresAt.addingTimeInterval(clockSkew + 1))
        let keyCache = self.keyCache
        let trace = VerificationTrace(enabled: tracing)
        let (lookup, outcome, applied) = try await store.finishSealedAuthentication(
            consumed: opened.fingerprint, credentialID: response.credentialID
        ) { lookup -> (outcome: Result<VerifiedAuthentication, any Error>, update: CredentialUpdate?) in
            let verified = Result { () throws -> VerifiedAuthentication in
                guard let stored = lookup.credential else {
                    throw CeremonyError.credentialUnknown(rpID: relyingParty.id, credentialID: response.credentialID)
                }
                return try trace.run("webauthn.verify_authentication") {
                    let key = try? keyCache.publicKey(coseBytes: stored.record.publicKey, policy: relyingParty.keyPolicy)
                    return try relyingParty.finishAuthentication(response, state: state, credential: stored.record, publicKey: key, now: now)
                }
            }
            return (verified, try? verified.get().update)
        }
        return try Self.signedIn(
            lookup: lookup, verified: outcome.get(), applied: applied, rpID: relyingParty.id, credentialID: response.credentialID)
    }

    func finishSealedRegistration(
        _ response: RegistrationResponseJSON, challenge: [UInt8], nickname: String?, audit: AuditContext, requiredUser: [UInt8]?,
        relyingParty: RelyingParty, ring: CeremonyKeyRing, now: Date
    ) async throws -> (user: StoredUser, credential: StoredCredential, verified: VerifiedRegistration, createdUser: Bool) {
        let (opened, kind) = try await openReloading(
            challenge, kinds: [.registration, .conditionalCreate], rpID: relyingParty.id, ring: ring, now: now)
        let (state, intent) = try SealedRegistration.state(
            opened.payload, kind: kind, challenge: challenge, expiresAt: opened.expiresAt.addingTimeInterval(clockSkew + 1))
        let trace = VerificationTrace(enabled: tracing)
        let (outcome, stored) = try await store.finishSealedRegistration(
            consumed: opened.fingerprint, nickname: nickname, intent: intent, audit: audit
        ) { () -> (outcome: Result<VerifiedRegistration, any Error>, registration: VerifiedRegistration?) in
            let verified = Result { () throws -> VerifiedRegistration in
                if let requiredUser, state.user.id != requiredUser {
                    throw CeremonyError(.challengeUnknown, "the ceremony was begun for another user")
                }
                return try trace.run("webauthn.verify_registration") { try relyingParty.finishRegistration(response, state: state, now: now) }
            }
            return (verified, try? verified.get())
        }
        let verified = try outcome.get()
        guard let (user, credential) = stored else { throw StoreError(.unavailable, "registration not stored") }
        return (user, credential, verified, intent == .newUser)
    }
}
