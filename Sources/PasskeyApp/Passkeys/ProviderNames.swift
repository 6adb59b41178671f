public import Foundation
import Synchronization

/// Names and icons of passkey providers by AAGUID, for passkey management screens ("iCloud Keychain", "Google
/// Password Manager" instead of an AAGUID), read from a file in the community passkey-provider list's format
/// (passkeydeveloper/passkey-authenticator-aaguids):
///
///     {"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "iCloud Keychain", "icon_light": "data:…", "icon_dark": "data:…"}, …}
///
/// Keys are AAGUIDs (any case); `name` is required, the icons optional; other members are ignored. Synced passkeys
/// are not attested, so this list is what names most of them; for attested authenticators the FIDO metadata's
/// description (stored with the credential at registration) wins.
public struct ProviderNames: Sendable, Equatable {
    public struct Provider: Sendable, Equatable, Encodable {
        public let name: String
        public let iconLight: String?
        public let iconDark: String?

        public init(name: String, iconLight: String?, iconDark: String?) {
            self.name = name
            self.iconLight = iconLight
            self.iconDark = iconDark
        }

        enum CodingKeys: String, CodingKey { case name, iconLight, iconDark }

        /// The icons are always present (null when unknown).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(iconLight, forKey: .iconLight)
            try container.encode(iconDark, forKey: .iconDark)
        }
    }

    private var byAAGUID: [UUID: Provider]

    public init() { byAAGUID = [:] }

    public var count: Int { byAAGUID.count }

    /// The largest file read (the community list with its data: icons is about 1 MiB).
    public static let maximumFileBytes = 16 * 1024 * 1024
    /// Longest name and icon accepted (an icon is a data: URL).
    static let maximumNameBytes = 256
    static let maximumIconBytes = 256 * 1024

    public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// Parses the file's bytes; every problem names the offending key.
    public init(json bytes: [UInt8]) throws(FormatError) {
        guard bytes.count <= Self.maximumFileBytes else {
            throw FormatError(description: "larger than \(Self.maximumFileBytes) bytes")
        }
        guard let top = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw FormatError(description: "not a JSON object of AAGUID → {\"name\", \"icon_light\"?, \"icon_dark\"?}")
        }
        var entries: [UUID: Provider] = [:]
        for (key, value) in top {
            guard let aaguid = UUID(uuidString: key) else { throw FormatError(description: "\"\(key.prefix(64))\" is not an AAGUID") }
            guard let member = value as? [String: Any], let name = member["name"] as? String,
                !name.isEmpty, name.utf8.count <= Self.maximumNameBytes
            else {
                throw FormatError(description: "\(key): \"name\" must be a string of 1 to \(Self.maximumNameBytes) bytes")
            }
            var icons: [String?] = []
            for field in ["icon_light", "icon_dark"] {
                switch member[field] {
                case nil, is NSNull: icons.append(nil)
                case let icon as String where icon.utf8.count <= Self.maximumIconBytes
                    && (icon.hasPrefix("data:image/") || icon.hasPrefix("https://")):
                    icons.append(icon)
                default:
                    throw FormatError(
                        description: "\(key): \"\(field)\" must be a data:image/… or https:// URL of at most \(Self.maximumIconBytes) bytes")
                }
            }
            guard entries[aaguid] == nil else { throw FormatError(description: "\(key) is listed twice") }
            entries[aaguid] = Provider(name: name, iconLight: icons[0], iconDark: icons[1])
        }
        byAAGUID = entries
    }

    /// The provider of a credential: by its AAGUID from this list, with the name from the FIDO metadata's
    /// description when registration found one; nil when neither knows it (or the AAGUID is all zero, as for
    /// U2F keys and providers that hide theirs).
    public func provider(aaguid: [UInt8], metadataDescription: String?) -> Provider? {
        let listed = aaguid.count == 16 && aaguid.contains(where: { $0 != 0 }) ? byAAGUID[Self.uuid(aaguid)] : nil
        if let metadataDescription, !metadataDescription.isEmpty {
            return Provider(name: metadataDescription, iconLight: listed?.iconLight, iconDark: listed?.iconDark)
        }
        return listed
    }

    static func uuid(_ bytes: [UInt8]) -> UUID {
        UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// The current ``ProviderNames``, replaceable while the service runs (a reloaded file).
final class ProviderNamesBox: Sendable {
    private let value = Mutex(ProviderNames())

    func replace(_ names: ProviderNames) { value.withLock { $0 = names } }

    func provider(aaguid: [UInt8], metadataDescription: String?) -> ProviderNames.Provider? {
        value.withLock { $0.provider(aaguid: aaguid, metadataDescription: metadataDescription) }
    }
}
