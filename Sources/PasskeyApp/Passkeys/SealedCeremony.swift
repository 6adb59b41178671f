import COSECrypto
import Foundation
import PasskeyStore
public import SealedState
import WebAuthnCore

// What a stateless passkey ceremony seals into its challenge (the payload of a ``SealedState`` box) and how the
// finish reads it back. The challenge itself is not inside (the box *is* the challenge), nor the expiry (the box
// carries it), nor allowCredentials: a named sign-in seals the user handle instead, and the engine then accepts only
// a credential of that user (§7.2 step 6), which is what allowCredentials listed at begin, plus any passkey the user
// registered since.

/// A sign-in's sealed payload: `0x01 ‖ user verification (0 discouraged, 1 preferred, 2 required) ‖ user handle
/// (0–64 bytes; none for a discoverable sign-in)`. 2 bytes for a discoverable sign-in, 34 for a named one.
enum SealedAuthentication {
    static func payload(_ state: AuthenticationState) -> [UInt8] {
        var bytes: [UInt8] = [1, uvCode(state.userVerification)]
        if let handle = state.userHandle { bytes += handle }
        return bytes
    }

    /// The state the engine verifies against: `challenge` is the box (what clientDataJSON must carry).
    static func state(
        _ payload: [UInt8], challenge: [UInt8], appID: String?, expiresAt: Date
    ) throws(CeremonyError) -> AuthenticationState {
        guard payload.count >= 2, payload.count <= 66, payload[0] == 1, let uv = uvRequirement(payload[1]) else {
            throw CeremonyError(.challengeUnknown, "unreadable sealed sign-in")
        }
        return AuthenticationState(
            challenge: challenge, userVerification: uv, allowCredentialIDs: [],
            userHandle: payload.count > 2 ? Array(payload[2...]) : nil, appID: appID, expiresAt: expiresAt)
    }

    static func uvCode(_ requirement: UserVerificationRequirement) -> UInt8 {
        switch requirement {
        case .discouraged: 0
        case .preferred: 1
        case .required: 2
        }
    }

    static func uvRequirement(_ code: UInt8) -> UserVerificationRequirement? {
        switch code {
        case 0: .discouraged
        case 1: .preferred
        case 2: .required
        default: nil
        }
    }
}

/// A registration's sealed payload: `0x01 ‖ intent (0 new user, 1 existing user) ‖ the registration state's CBOR`
/// (``RegistrationState/stateBytes`` with an empty challenge). Sealed as ``SealedStateKind/registration``, or
/// ``SealedStateKind/conditionalCreate`` for an automatic upgrade.
enum SealedRegistration {
    static func payload(_ state: RegistrationState, intent: RegistrationIntent) -> [UInt8] {
        let bare = RegistrationState(
            challenge: [], user: state.user, userVerification: state.userVerification, algorithms: state.algorithms,
            expiresAt: state.expiresAt, mediation: state.mediation)
        return [1, intent == .newUser ? 0 : 1] + bare.stateBytes
    }

    static func kind(_ state: RegistrationState) -> SealedStateKind {
        state.mediation == .conditional ? .conditionalCreate : .registration
    }

    static func state(
        _ payload: [UInt8], kind: SealedStateKind, challenge: [UInt8], expiresAt: Date
    ) throws(CeremonyError) -> (RegistrationState, RegistrationIntent) {
        guard payload.count > 2, payload[0] == 1, payload[1] <= 1,
            let bare = try? RegistrationState(stateBytes: Array(payload[2...])), Self.kind(bare) == kind
        else { throw CeremonyError(.challengeUnknown, "unreadable sealed registration") }
        let state = RegistrationState(
            challenge: challenge, user: bare.user, userVerification: bare.userVerification, algorithms: bare.algorithms,
            expiresAt: expiresAt, mediation: bare.mediation)
        return (state, payload[1] == 0 ? .newUser : .existingUser)
    }
}

/// A begin's challenge source when the challenge is replaced by the sealed state: draws nothing.
struct SealedChallengePlaceholder: ChallengeSource {
    func bytes(count: Int) -> [UInt8] { [] }
}

extension CeremonyService {
    /// This service with begins on the pending-ceremony table (32-byte challenges) even when it has ceremony keys:
    /// for the FIDO conformance binding, whose challenges must be 16–64 bytes (a sealed registration challenge is
    /// longer). Its finishes go by the challenge's length as always.
    public var withCeremonyTable: CeremonyService {
        var table = self
        table.keyRing = nil
        table.sealingKeyRing = nil
        return table
    }

    /// Table challenges are exactly this long; a sealed one is at least ``SealedState/overhead`` (53) bytes.
    static let tableChallengeLength = 32

    /// Seals `payload`: the ring's key, the injected randomness. No active key is a server fault (503, as a store
    /// that cannot be reached).
    func seal(
        _ payload: [UInt8], kind: SealedStateKind, rpID: String, expiresAt: Date, ring: CeremonyKeyRing, now: Date
    ) throws -> [UInt8] {
        do {
            return try SealedState.seal(
                payload, kind: kind, rpID: rpID, expiresAt: expiresAt, ring: ring, now: now, random: challengeSource.bytes(count:))
        } catch {
            throw StoreError(.unavailable, "cannot seal the ceremony: \(error)")
        }
    }

    /// ``open(_:kinds:rpID:ring:now:)``, first rereading the keys (``reloadKeyRing``) when the challenge names a key
    /// id the ring does not hold.
    func openReloading(
        _ challenge: [UInt8], kinds: [SealedStateKind], rpID: String, ring: CeremonyKeyRing, now: Date
    ) async throws -> (OpenedState, SealedStateKind) {
        var ring = ring
        if let reloadKeyRing, challenge.count >= 5 {
            let id = UInt32(challenge[1]) << 24 | UInt32(challenge[2]) << 16 | UInt32(challenge[3]) << 8 | UInt32(challenge[4])
            if !ring.keys.contains(where: { $0.id == id }) { ring = await reloadKeyRing() }
        }
        return try open(challenge, kinds: kinds, rpID: rpID, ring: ring, now: now)
    }

    /// Opens a sealed challenge as the first of `kinds` it opens as: `challenge_unknown_or_expired` when it opens as
    /// none, `challenge_expired` when it is authentic but expired (past the clock skew).
    func open(
        _ challenge: [UInt8], kinds: [SealedStateKind], rpID: String, ring: CeremonyKeyRing, now: Date
    ) throws -> (OpenedState, SealedStateKind) {
        for kind in kinds {
            do {
                return (try SealedState.open(challenge, kind: kind, rpID: rpID, ring: ring, now: now, skew: clockSkew), kind)
            } catch where error.code == .expired {
                throw WebAuthnError(.challengeExpired, "the sealed \(kind.rawValue) challenge expired")
            } catch {
                continue
            }
        }
        throw CeremonyError(.challengeUnknown, "the challenge is not a \(kinds.map(\.rawValue).joined(separator: " or ")) of this relying party")
    }
}
