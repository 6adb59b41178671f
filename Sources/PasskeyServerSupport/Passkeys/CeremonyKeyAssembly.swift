import Foundation
import Logging
import PasskeyApp
import PasskeyStore
import WebAuthnCore

/// The keys of stateless ceremonies from ``CeremonyKeySettings``: loaded once here, before anything serves, so a start
/// with keys that cannot be loaded (a key-encryption key other than the one that sealed the database's keys, the
/// database down, unreadable files) fails with a message saying so. Nil without key files or a key-encryption key
/// (ceremonies are then kept in the pending-ceremony table).
enum CeremonyKeyAssembly {
    static func build(
        settings: Settings, store: some ApplicationStore, logger: Logger, now: @escaping @Sendable () -> Date
    ) async throws(CeremonyKeyStartError) -> CeremonyKeys? {
        guard let config = settings.ceremonyKeys else {
            logger.info(
                "ceremonies are kept in the pending-ceremony table (stateless ceremonies need PASSKEYD_KEY_ENCRYPTION_KEY_FILE or PASSKEYD_CEREMONY_KEY_FILES)",
                metadata: ["ceremonies": "stored"])
            return nil
        }
        let source: CeremonyKeySource = switch config.keys {
        case .database(let kek, let rotation): .database(store: store, keyEncryptionKey: kek, rotationInterval: rotation)
        case .files(let secrets): .files(secrets)
        }
        let keys = CeremonyKeys(
            source: source, challengeLifetime: longestChallengeLifetime(settings), clockSkew: settings.clockSkew, logger: logger, now: now)
        do {
            try await keys.refresh()
        } catch {
            throw CeremonyKeyStartError(source: config.keys, error: error)
        }
        var metadata: Logger.Metadata = [
            "ceremonies": "stateless", "ceremony_keys": .string(keys.isDatabase ? "database" : "files"),
            "clock_skew_seconds": .stringConvertible(Int(settings.clockSkew)),
            "challenge_lifetime_seconds": .stringConvertible(Int(keys.challengeLifetime)),
        ]
        let ids = keys.keyIDs(at: now())
        if let sealing = ids.sealing { metadata["sealing_key_id"] = .stringConvertible(sealing) }
        metadata["key_ids"] = .array(ids.held.map { .stringConvertible($0) })
        if case .database(_, let rotation) = config.keys { metadata["rotation_seconds"] = .stringConvertible(Int(rotation)) }
        logger.info("ceremonies are stateless: their state is sealed into the challenge under the ceremony keys", metadata: metadata)
        return keys
    }

    /// The longest lifetime of a sealed challenge: passkey ceremonies (`PASSKEYD_CHALLENGE_TTL`), ID-token sessions
    /// (`PASSKEYD_IDTOKEN_SESSION_TIMEOUT`), App Attest challenges (`PASSKEYD_APPATTEST_CHALLENGE_TTL`, when on).
    static func longestChallengeLifetime(_ settings: Settings) -> TimeInterval {
        let (seconds, attoseconds) = settings.relyingParty.challengeTimeout.components
        let passkeys = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        return max(passkeys, settings.identity.sessionTimeout, settings.appAttest?.challengeTimeout ?? 0).rounded(.up)
    }
}

/// The ceremony keys could not be loaded at start: the message names what to check.
struct CeremonyKeyStartError: Error, CustomStringConvertible {
    let source: CeremonyKeySettings.Keys
    let error: CeremonyKeyError

    var description: String {
        switch source {
        case .database:
            "the ceremony keys in the database could not be loaded (check PASSKEYD_KEY_ENCRYPTION_KEY_FILE: every instance must use the key that sealed them; and the database): \(error)"
        case .files:
            "the ceremony keys of PASSKEYD_CEREMONY_KEY_FILES could not be loaded: \(error)"
        }
    }
}
