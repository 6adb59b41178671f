public import PasskeyStore
public import WebAuthnModel
import COSECrypto
public import WebAuthnCore

/// The results of the FIDO conformance transport binding (`PASSKEYD_FIDO_CONFORMANCE=on`, off by default): each
/// belongs to the session of its options call, whose challenge the caller read from the session's cookie. Every
/// result that reaches its session ends it, whatever the outcome: the session's ceremony is consumed by the finish,
/// or here when the finish is not reached (a response that could not be read, or whose clientData challenge is not
/// the session's: `challenge_mismatch`). The finishes are ``CeremonyService``'s, exactly as for /v1, without sessions.
public struct ConformanceResults: Sendable {
    public let ceremonies: CeremonyService

    public init(ceremonies: CeremonyService) {
        self.ceremonies = ceremonies
    }

    /// Finishes the registration of the session with challenge `session`.
    /// - Parameter response: the client's response as read, or why it could not be (the session ends either way).
    public func finishRegistration(
        _ response: Result<RegistrationResponseJSON, any Error>, session: [UInt8], audit: AuditContext
    ) async throws -> (user: StoredUser, credential: StoredCredential, createdUser: Bool) {
        let bound: RegistrationResponseJSON
        do {
            bound = try response.get()
            try Self.checkBinding(bound.unverifiedChallenge, session: session)
        } catch {
            await end(session, kind: .registration)
            throw error
        }
        let finished = try await ceremonies.finishRegistration(bound, nickname: nil, audit: audit)
        return (finished.user, finished.credential, finished.createdUser)
    }

    /// Finishes the authentication of the session with challenge `session`.
    /// - Parameter response: the client's response as read, or why it could not be (the session ends either way).
    public func finishAuthentication(_ response: Result<UnverifiedAuthenticationResponse, any Error>, session: [UInt8]) async throws {
        let bound: UnverifiedAuthenticationResponse
        do {
            bound = try response.get()
            try Self.checkBinding(bound.challenge, session: session)
        } catch {
            await end(session, kind: .authentication)
            throw error
        }
        _ = try await ceremonies.finishAuthentication(bound)
    }

    /// Ends a session whose finish is not reached: its ceremony is consumed (best effort: the refusal is what the
    /// client hears about).
    private func end(_ session: [UInt8], kind: CeremonyKind) async {
        _ = try? await ceremonies.store.takeCeremony(challenge: session, kind: kind)
    }

    /// The response's clientData challenge must be the session's.
    static func checkBinding(_ challenge: [UInt8]?, session: [UInt8]) throws {
        guard let challenge else { throw WebAuthnError(.malformedClientData, "no readable challenge") }
        guard constantTimeEquals(challenge, session) else {
            throw WebAuthnError(.challengeMismatch, "clientData challenge is not the one of this session's options")
        }
    }
}
