public import PasskeyApp
public import Foundation

/// `PASSKEYD_PROVIDER_NAMES_FILE`: passkey provider names and icons by AAGUID (ProviderNames), in the community
/// passkey-provider list's format; read at start (a file that cannot be read or parsed stops the start, naming the
/// variable) and reloaded by the executable when the file changes.
public struct ProviderNameSettings: Sendable {
    public var path: String
    public var names: ProviderNames

    static func load(_ reader: Reader) throws(ConfigurationError) -> ProviderNameSettings? {
        guard let path = reader.value(.providerNamesFile) else { return nil }
        do {
            return ProviderNameSettings(path: path, names: try read(path))
        } catch {
            throw ConfigurationError(.providerNamesFile, "\(path): \(error)")
        }
    }

    /// Reads and parses the file (for the start and for reloads).
    public static func read(_ path: String) throws -> ProviderNames {
        let url = URL(fileURLWithPath: path)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= ProviderNames.maximumFileBytes else {
            throw ProviderNames.FormatError(description: "larger than \(ProviderNames.maximumFileBytes) bytes")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ProviderNames.FormatError(description: "cannot be read")
        }
        return try ProviderNames(json: Array(data))
    }
}
