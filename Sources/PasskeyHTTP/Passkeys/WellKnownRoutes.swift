import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebAuthnModel

/// An Android app allowed to use the RP's passkeys: its package and the SHA-256 fingerprints (32 bytes each) of its
/// signing certificates. Checked by the caller (PasskeySettings' `AndroidAppSetting`, from `PASSKEYD_ANDROID_APPS`).
public struct AndroidApp: Sendable, Hashable {
    public let packageName: String
    /// 32 bytes each.
    public let fingerprints: [[UInt8]]

    public init(packageName: String, fingerprints: [[UInt8]]) {
        self.packageName = packageName
        self.fingerprints = fingerprints
    }

    /// The fingerprints as `assetlinks.json` writes them: upper-case hex bytes joined by colons.
    public var fingerprintTexts: [String] {
        fingerprints.map { bytes in bytes.map { String(format: "%02X", $0) }.joined(separator: ":") }
    }
}

/// The documents an RP domain serves so that native apps and other web origins may use its passkeys, rendered once
/// at start. Each is nil (its route absent: 404 `route_unknown`) when nothing configures it.
///
///     GET /.well-known/apple-app-site-association   {"webcredentials": {"apps": ["TEAMID.bundle.id", …]}}
///     GET /.well-known/assetlinks.json              [{"relation": ["delegate_permission/common.get_login_creds"],
///                                                     "target": {"namespace": "android_app", "package_name", "sha256_cert_fingerprints"}}]
///     GET /.well-known/webauthn                     {"origins": ["https://…", …]} (WebAuthn L3 §5.11 related origins)
///
/// Apple's and Google's crawlers fetch the first two from the RP id's domain over https, without redirects; browsers
/// fetch the third from `https://<rp id>/.well-known/webauthn` when another origin asks for the RP id.
public struct WellKnownDocuments: Sendable {
    public let appleAppSiteAssociation: [UInt8]?
    public let assetLinks: [UInt8]?
    public let relatedOrigins: [UInt8]?

    /// None: no route.
    public init() {
        appleAppSiteAssociation = nil
        assetLinks = nil
        relatedOrigins = nil
    }

    /// - Parameters:
    ///   - appleAppIDs: `TEAMID.bundle.id` of each iOS/macOS app (checked by the caller).
    ///   - androidApps: packages with their signing-certificate fingerprints.
    ///   - relatedOrigins: web origins (checked by the caller).
    public init(appleAppIDs: [String], androidApps: [AndroidApp], relatedOrigins: [String]) {
        appleAppSiteAssociation = appleAppIDs.isEmpty ? nil : Self.render { writer in
            writer.beginObject()
            writer.key("webcredentials")
            writer.beginObject()
            writer.key("apps")
            Self.strings(appleAppIDs, &writer)
            writer.endObject()
            writer.endObject()
        }
        assetLinks = androidApps.isEmpty ? nil : Self.render { writer in
            writer.beginArray()
            for app in androidApps {
                writer.beginObject()
                writer.key("relation")
                Self.strings(["delegate_permission/common.get_login_creds"], &writer)
                writer.key("target")
                writer.beginObject()
                writer.key("namespace"); writer.string("android_app")
                writer.key("package_name"); writer.string(app.packageName)
                writer.key("sha256_cert_fingerprints")
                Self.strings(app.fingerprintTexts, &writer)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
        }
        self.relatedOrigins = relatedOrigins.isEmpty ? nil : Self.render { writer in
            writer.beginObject()
            writer.key("origins")
            Self.strings(relatedOrigins, &writer)
            writer.endObject()
        }
    }

    private static func render(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter()
        body(&writer)
        return writer.bytes
    }

    private static func strings(_ values: [String], _ writer: inout JSONWriter) {
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
    }
}

/// How long clients and CDNs may keep the documents (Apple's CDN refetches on its own schedule anyway).
let wellKnownMaxAge = 3600

/// The routes of ``WellKnownDocuments``: public (no API key), `application/json`, cacheable, never a redirect.
func addWellKnownRoutes(to router: Router<PasskeyRequestContext>, api: API, documents: WellKnownDocuments) {
    let routes: [(bytes: [UInt8]?, operation: Operation)] = [
        (documents.appleAppSiteAssociation, .appleAppSiteAssociation),
        (documents.assetLinks, .assetLinks),
        (documents.relatedOrigins, .relatedOrigins),
    ]
    for route in routes {
        guard let bytes = route.bytes else { continue }
        api.route(router, route.operation) { _, _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=\(wellKnownMaxAge)"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}

