public import Foundation
public import PasskeyHTTP

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
    public var androidApps: [AndroidApp] = []
    /// What `/.well-known/webauthn` lists; empty = no such route.
    public var relatedOrigins: [String] = []

    /// The documents the HTTP layer serves.
    public var documents: WellKnownDocuments {
        WellKnownDocuments(appleAppIDs: appleAppIDs, androidApps: androidApps, relatedOrigins: relatedOrigins)
    }

    /// The origins the Android apps send (added to the accepted origins).
    public var nativeOrigins: [String] { androidApps.flatMap(\.origins) }

    static let variables = ["PASSKEYD_APPLE_APP_IDS", "PASSKEYD_ANDROID_APPS", "PASSKEYD_RELATED_ORIGINS"]

    /// Browsers evaluate at most this many distinct labels (registrable domains without their public suffix) of a
    /// related-origins list, in order, and ignore origins past them (WebAuthn L3 §5.11.1; Chrome and Safari use 5).
    static let maximumLabels = 5

    /// - Parameters:
    ///   - origins: `PASSKEYD_ORIGINS` as configured (already validated).
    static func load(_ reader: Reader, rpID: String, origins: [String], warnings: inout [String]) throws(ConfigurationError) -> AssociationSettings {
        var settings = AssociationSettings()
        for id in reader.list("PASSKEYD_APPLE_APP_IDS") ?? [] {
            guard Self.isAppID(id) else {
                throw ConfigurationError("PASSKEYD_APPLE_APP_IDS", "\"\(id)\" is not an App ID: TEAMID (ten letters or digits), a dot, the bundle id")
            }
            if !settings.appleAppIDs.contains(id) { settings.appleAppIDs.append(id) }
        }
        if !settings.appleAppIDs.isEmpty, rpID != "localhost", !origins.contains("https://\(rpID)") {
            warnings.append(
                "PASSKEYD_APPLE_APP_IDS: iOS apps send the origin https://\(rpID), which PASSKEYD_ORIGINS does not list: their ceremonies will be refused")
        }
        for entry in reader.list("PASSKEYD_ANDROID_APPS") ?? [] {
            let problem = ConfigurationError(
                "PASSKEYD_ANDROID_APPS",
                "\"\(entry)\" is not package=FINGERPRINT[|FINGERPRINT…] (a Java package name; each fingerprint the SHA-256 of a signing certificate, 64 hex digits, colons optional)")
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw problem }
            var fingerprints: [[UInt8]] = []
            for text in parts[1].split(separator: "|").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let fingerprint = AndroidApp.fingerprint(text) else { throw problem }
                if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            }
            guard let app = AndroidApp(packageName: parts[0], fingerprints: fingerprints) else { throw problem }
            guard !settings.androidApps.contains(where: { $0.packageName == app.packageName }) else {
                throw ConfigurationError("PASSKEYD_ANDROID_APPS", "\(app.packageName) is listed twice; give all its fingerprints in one entry")
            }
            settings.androidApps.append(app)
        }

        // Related origins: the configured list, or by default every web origin outside the RP id.
        let foreign = origins.filter { origin in
            guard let host = Self.webHost(origin) else { return false }
            return host != rpID && !host.hasSuffix("." + rpID)
        }
        if let listed = reader.list("PASSKEYD_RELATED_ORIGINS") {
            var related: [String] = []
            for origin in listed {
                guard Self.webHost(origin) != nil else {
                    throw ConfigurationError("PASSKEYD_RELATED_ORIGINS", "\"\(origin)\" is not a web origin (https://host[:port])")
                }
                guard origins.contains(origin) else {
                    throw ConfigurationError(
                        "PASSKEYD_RELATED_ORIGINS", "\(origin) is not in PASSKEYD_ORIGINS: browsers would let it ask, and passkeyd would refuse its ceremonies")
                }
                if !related.contains(origin) { related.append(origin) }
            }
            for origin in foreign where !related.contains(origin) {
                throw ConfigurationError(
                    "PASSKEYD_RELATED_ORIGINS",
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
