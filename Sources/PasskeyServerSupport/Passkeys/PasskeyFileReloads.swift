import Foundation
import Logging
import PasskeyApp
import PasskeyMetadata
import WebAuthnCore

/// The provider names file and the FIDO metadata BLOB, reloaded when their file is replaced (e.g. by a daily cron
/// download): every 10 minutes the file's modification time is checked; a newer file that parses (a BLOB: that
/// verifies, with a higher serial) replaces what the ceremonies use, one that does not is logged and the previous
/// one stays. Past the metadata's nextUpdate a warning is logged once per check.
enum PasskeyFileReloads {
    static func providerNames(_ settings: ProviderNameSettings, into ceremonies: CeremonyService, logger: Logger) -> BackgroundService {
        FileReload.service("provider names reload", path: settings.path) { changed in
            guard changed else { return }
            do {
                let names = try ProviderNameSettings.read(settings.path)
                ceremonies.replaceProviderNames(names)
                logger.info("provider names reloaded", metadata: ["entries": .stringConvertible(names.count)])
            } catch {
                logger.warning(
                    "provider names not reloaded; keeping the previous ones", metadata: ["reason": .string(String(describing: error))])
            }
        }
    }

    static func metadata(
        _ source: Settings.MetadataSource, into ceremonies: CeremonyService, logger: Logger, now: @escaping @Sendable () -> Date
    ) -> BackgroundService {
        FileReload.service("metadata BLOB reload", path: source.blobPath) { changed in
            if changed {
                do {
                    let index = try MetadataLoader.load(blobPath: source.blobPath, rootPEMPaths: source.rootPEMPaths)
                    if index.serialNumber > ceremonies.relyingParty.attestation.metadata?.serialNumber ?? Int.min {
                        ceremonies.replaceMetadata(index)
                        logger.info(
                            "metadata BLOB reloaded",
                            metadata: ["serial": .stringConvertible(index.serialNumber), "entries": .stringConvertible(index.entries.count)])
                    }
                } catch {
                    logger.warning(
                        "metadata BLOB not reloaded; keeping the previous one", metadata: ["reason": .string(Settings.metadataFailure(error))])
                }
            }
            if let current = ceremonies.relyingParty.attestation.metadata, current.nextUpdate < now() {
                logger.warning(
                    "metadata BLOB is past its nextUpdate; download a new one", metadata: ["next_update": .string("\(current.nextUpdate)")])
            }
        }
    }
}
