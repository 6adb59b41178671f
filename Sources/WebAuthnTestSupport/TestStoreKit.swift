public import COSECrypto
public import Foundation

/// Mints StoreKit-shaped JWS with the App Store Server Library's published test chain (`storekit/certs` of the
/// vectors: testLeaf + its key, testIntermediate, testCA), for the paths the copied vectors do not cover: renewals,
/// expiry, refunds, revocations, notifications of every kind.
public struct TestStoreKit: Sendable {
    public enum Failure: Error { case unreadable(String) }

    /// The test leaf's private key (P-256).
    public let leafKey: PrivateKey
    public let leaf: Certificate
    public let intermediate: Certificate
    /// testCA: the root a verifier of these JWS is configured with.
    public let root: Certificate
    /// The bundle id, environment and app Apple id of the payloads made here unless a test bends them.
    public var bundleID = "com.example"
    public var environment = "Sandbox"
    public var appAppleID = 1234

    /// Loads the test chain and key.
    /// - Parameter certificates: the vectors' `apple/storekit/certs` directory.
    public init(certificates: URL) throws {
        func text(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: certificates.appendingPathComponent(name)), as: UTF8.self)
        }
        leaf = try Self.certificate(text("testLeaf.pem"))
        intermediate = try Self.certificate(text("testIntermediate.pem"))
        root = try Self.certificate(text("testCA.pem"))
        leafKey = try PrivateKey(pkcs8DER: Self.pkcs8(sec1PEM: text("testLeaf.key")), algorithm: .es256)
    }

    /// A certificate from a file that may carry a text dump before its PEM block.
    public static func certificate(_ text: String) throws -> Certificate {
        guard let first = try Certificate.parsePEM(text).first else { throw Failure.unreadable("no certificate") }
        return first
    }

    /// Wraps a P-256 SEC1 `EC PRIVATE KEY` PEM in PKCS#8 (RFC 5208 / RFC 5915).
    public static func pkcs8(sec1PEM: String) throws -> [UInt8] {
        let body = sec1PEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let sec1 = Data(base64Encoded: body) else { throw Failure.unreadable("SEC1 PEM") }
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            precondition(content.count < 65536)
            let length: [UInt8] =
                content.count < 128 ? [UInt8(content.count)]
                : content.count < 256 ? [0x81, UInt8(content.count)] : [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
            return [tag] + length + content
        }
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let prime256v1: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        return tlv(0x30, [0x02, 0x01, 0x00] + tlv(0x30, ecPublicKey + prime256v1) + tlv(0x04, Array(sec1)))
    }

    /// Signs a payload with the test leaf, `x5c` = `certificates` (leaf, intermediate, root by default).
    public func sign(_ payload: [String: Any], certificates: [Certificate]? = nil, algorithm: String = "ES256") throws -> String {
        String(
            decoding: try TestJWS.sign(
                payload: TestJWS.json(payload), key: leafKey, certificates: certificates ?? [leaf, intermediate, root],
                algorithm: algorithm),
            as: UTF8.self)
    }

    /// A transaction payload (modelled on Apple's `signedTransaction.json`); `changes` replace or add members, and an
    /// `NSNull` value removes one.
    public func transaction(
        id: String, original: String? = nil, product: String = "com.example.monthly", purchase: Int64, expires: Int64?,
        _ changes: [String: Any] = [:]
    ) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": original ?? id, "bundleId": bundleID, "productId": product,
            "purchaseDate": purchase, "originalPurchaseDate": purchase, "quantity": 1,
            "type": expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "signedDate": purchase, "environment": environment,
            "transactionReason": "PURCHASE", "storefront": "USA", "price": 4990, "currency": "USD",
        ]
        if let expires { payload["expiresDate"] = expires }
        return Self.apply(changes, to: payload)
    }

    /// A renewal-info payload.
    public func renewal(original: String, product: String = "com.example.monthly", signed: Int64, _ changes: [String: Any] = [:]) -> [String: Any] {
        Self.apply(changes, to: [
            "originalTransactionId": original, "productId": product, "autoRenewProductId": product, "autoRenewStatus": 1,
            "signedDate": signed, "environment": environment,
        ])
    }

    /// An App Store Server Notification V2 payload around signed transaction / renewal info.
    public func notification(
        type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), signed: Int64,
        transaction: String? = nil, renewal: String? = nil, _ dataChanges: [String: Any] = [:]
    ) -> [String: Any] {
        var data: [String: Any] = ["bundleId": bundleID, "environment": environment, "appAppleId": appAppleID, "bundleVersion": "1.0"]
        if let transaction { data["signedTransactionInfo"] = transaction }
        if let renewal { data["signedRenewalInfo"] = renewal }
        var payload: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": signed,
            "data": Self.apply(dataChanges, to: data),
        ]
        if let subtype { payload["subtype"] = subtype }
        return payload
    }

    static func apply(_ changes: [String: Any], to payload: [String: Any]) -> [String: Any] {
        var payload = payload
        for (key, value) in changes {
            if value is NSNull { payload.removeValue(forKey: key) } else { payload[key] = value }
        }
        return payload
    }
}
