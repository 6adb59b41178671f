public import Foundation
import WebAuthnModel

/// Native apps and related web origins that may use the RP's passkeys (`PASSKEYD_APPLE_APP_IDS`,
/// `PASSKEYD_ANDROID_APPS`, `PASSKEYD_RELATED_ORIGINS`):
///
///     PASSKEYD_APPLE_APP_IDS=ABCDE12345.com.example.app,...      served as /.well-known/apple-app-site-association
///     PASSKEYD_ANDROID_APPS=com.example.app=FP[|FP…],...          served as /.well-known/assetlinks.json; each
///                                                                 fingerprint (SHA-256 of a signing certificate, 64 hex
///                                                                 digits, colons optional) also becomes an accepted
///                                                                 origin android:apk-key-hash:<base64url>
///     PASSKEYD_RELATED_ORIGINS=https://example.co.uk,...          served as /.well-known/webauthn; default: the web
///                                                                 origins of PASSKEYD_ORIGINS outside the RP id
///
/// iOS apps send the RP's web origin (`https://<rp id>`), so an Apple app adds no origin; a warning says so when that
/// origin is missing from `PASSKEYD_ORIGINS`.
public struct AssociationSettings: Sendable {
    public var appleAppIDs: [String] = []
    public var androidApps: [AndroidAppSetting] = []
    /// What `/.well-known/webauthn` lists; empty = no such route.
    public var relatedOrigins: [String] = []

    /// The origins the Android apps send (added to the accepted origins).
    public var nativeOrigins: [String] { androidApps.flatMap(\.origins) }

    /// Browsers evaluate at most this many distinct labels (registrable domains without their public suffix) of a
    /// related-origins list, in order, and ignore origins past them (WebAuthn L3 §5.11.1; Chrome and Safari use 5).
    static let maximumLabels = 5

    /// - Parameters:
    ///   - origins: `PASSKEYD_ORIGINS` as configured (already validated).
    static func load(_ reader: Reader, rpID: String, origins: [String], warnings: inout [String]) throws(ConfigurationError) -> AssociationSettings {
        var settings = AssociationSettings()
        for id in reader.list(.appleAppIDs) ?? [] {
            guard Self.isAppID(id) else {
                throw ConfigurationError(.appleAppIDs, "\"\(id)\" is not an App ID: TEAMID (ten letters or digits), a dot, the bundle id")
            }
            if !settings.appleAppIDs.contains(id) { settings.appleAppIDs.append(id) }
        }
        if !settings.appleAppIDs.isEmpty, rpID != "localhost", !origins.contains("https://\(rpID)") {
            warnings.append(
                "PASSKEYD_APPLE_APP_IDS: iOS apps send the origin https://\(rpID), which PASSKEYD_ORIGINS does not list: their ceremonies will be refused")
        }
        for entry in reader.list(.androidApps) ?? [] {
            let problem = ConfigurationError(
                .androidApps,
                "\"\(entry)\" is not package=FINGERPRINT[|FINGERPRINT…] (a Java package name; each fingerprint the SHA-256 of a signing certificate, 64 hex digits, colons optional)")
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw problem }
            var fingerprints: [[UInt8]] = []
            for text in parts[1].split(separator: "|").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let fingerprint = AndroidAppSetting.fingerprint(text) else { throw problem }
                if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            }
            guard let app = AndroidAppSetting(packageName: parts[0], fingerprints: fingerprints) else { throw problem }
            guard !settings.androidApps.contains(where: { $0.packageName == app.packageName }) else {
                throw ConfigurationError(.androidApps, "\(app.packageName) is listed twice; give all its fingerprints in one entry")
            }
            settings.androidApps.append(app)
        }

        // Related origins: the configured list, or by default every web origin outside the RP id.
        let foreign = origins.filter { origin in
            guard let host = Self.webHost(origin) else { return false }
            return host != rpID && !host.hasSuffix("." + rpID)
        }
        if let listed = reader.list(.relatedOrigins) {
            var related: [String] = []
            for origin in listed {
                guard Self.webHost(origin) != nil else {
                    throw ConfigurationError(.relatedOrigins, "\"\(origin)\" is not a web origin (https://host[:port])")
                }
                guard origins.contains(origin) else {
                    throw ConfigurationError(
                        .relatedOrigins, "\(origin) is not in PASSKEYD_ORIGINS: browsers would let it ask, and passkeyd would refuse its ceremonies")
                }
                if !related.contains(origin) { related.append(origin) }
            }
            for origin in foreign where !related.contains(origin) {
                throw ConfigurationError(
                    .relatedOrigins,
                    "\(origin) (in PASSKEYD_ORIGINS) is outside the RP id \(rpID) and not listed: browsers refuse its ceremonies unless /.well-known/webauthn lists it")
            }
            settings.relatedOrigins = related
        } else {
            settings.relatedOrigins = foreign
        }
        let labels = Self.labels(settings.relatedOrigins)
        if labels.count > Self.maximumLabels {
            warnings.append(
                "PASSKEYD_RELATED_ORIGINS: \(labels.count) distinct domain labels (\(labels.joined(separator: ", "))); browsers honour only origins under the first \(Self.maximumLabels)")
        }
        return settings
    }

    /// `TEAMID.bundle.id`: ten ASCII letters or digits, a dot, a bundle id of letters, digits, `.` and `-`.
    static func isAppID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 10 && parts[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            && !parts[1].isEmpty && parts[1].utf8.count <= 255
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// The host of an `http(s)://host[:port]` origin; nil for native-app origins.
    static func webHost(_ origin: String) -> String? {
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://"), let host = URLComponents(string: origin)?.host,
            !host.isEmpty
        else { return nil }
        return host
    }

    /// The distinct labels of the origins' hosts, in order: the part of the registrable domain before its public
    /// suffix (`example` for `login.example.co.uk` and `example.com`). Without the public suffix list this is an
    /// approximation: a two-letter top-level domain under a short second level (`co.uk`, `com.au`, `ne.jp`) counts
    /// as one suffix, anything else ends at the last label.
    static func labels(_ origins: [String]) -> [String] {
        var labels: [String] = []
        for origin in origins {
            guard let host = webHost(origin) else { continue }
            let parts = host.split(separator: ".").map(String.init)
            guard parts.count >= 2 else {
                if !labels.contains(host) { labels.append(host) }
                continue
            }
            let shortSecondLevel = ["co", "com", "net", "org", "gov", "edu", "ac", "ne", "or", "go"]
            let twoPartSuffix = parts.count >= 3 && parts[parts.count - 1].count == 2 && shortSecondLevel.contains(parts[parts.count - 2])
            let label = twoPartSuffix ? parts[parts.count - 3] : parts[parts.count - 2]
            if !labels.contains(label) { labels.append(label) }
        }
        return labels
    }
}

/// An Android app allowed to use the RP's passkeys (`PASSKEYD_ANDROID_APPS`): its package and the SHA-256 fingerprints
/// of its signing certificates (`keytool -list -v` or the Play Console's "App signing" page). The checks live here;
/// the HTTP layer renders `/.well-known/assetlinks.json` from these values.
public struct AndroidAppSetting: Sendable, Hashable {
    public let packageName: String
    /// 32 bytes each.
    public let fingerprints: [[UInt8]]

    /// nil unless the package name is a Java-style package (at most 255 bytes, two or more dot-separated parts, each a
    /// letter then letters, digits or `_`) and there is at least one fingerprint and every fingerprint is 32 bytes.
    public init?(packageName: String, fingerprints: [[UInt8]]) {
        let parts = packageName.split(separator: ".", omittingEmptySubsequences: false)
        guard packageName.utf8.count <= 255, parts.count >= 2,
            parts.allSatisfy({ part in
                guard let first = part.first, first.isASCII, first.isLetter else { return false }
                return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }),
            !fingerprints.isEmpty, fingerprints.allSatisfy({ $0.count == 32 })
        else { return nil }
        self.packageName = packageName
        self.fingerprints = fingerprints
    }

    /// The origins Android's Credential Manager sends in clientDataJSON for this app, one per fingerprint:
    /// `android:apk-key-hash:` + base64url (no padding) of the certificate's SHA-256.
    public var origins: [String] { fingerprints.map { "android:apk-key-hash:" + Base64URL.encode($0) } }

    /// Parses one fingerprint: 32 bytes as 64 hex digits, optionally separated by colons (either case).
    public static func fingerprint(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != ":" }
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
