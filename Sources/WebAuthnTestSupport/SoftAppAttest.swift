public import COSECrypto
public import Foundation
import CBORCodec

/// A software App Attest device for tests: a throwaway root ("App Attestation Root CA") and intermediate issue a
/// credential certificate per key carrying the nonce extension 1.2.840.113635.100.8.2, exactly as Apple's service
/// does; assertions are signed with the key and a counter the caller chooses. ``Options`` bends one field at a
/// time for negative tests.
public final class SoftAppAttest: Sendable {
    /// The root the attestations chain to (configure it as the App Attest root in tests).
    public let root: TestAttestationCA
    /// The intermediate that issues credential certificates ("Apple App Attestation CA 1").
    public let intermediate: TestAttestationCA

    /// Creates a device with a fresh root and intermediate.
    public init() throws {
        root = try TestAttestationCA(name: "passkeyd test App Attestation Root CA")
        intermediate = try TestAttestationCA(intermediateOf: root, name: "passkeyd test App Attestation CA 1")
    }

    /// A device from a saved root and intermediate (`passkeyd-softkey appattest` keeps them in a file).
    public init(root: TestAttestationCA, intermediate: TestAttestationCA) {
        self.root = root
        self.intermediate = intermediate
    }

    /// The root as trust anchors.
    public var trustAnchors: TrustAnchors { root.trustAnchors }

    /// One App Attest key: the device-held private key and its key identifier.
    public struct Key: Sendable {
        /// The P-256 private key.
        public let privateKey: PrivateKey
        /// SHA-256 of the public key's uncompressed point (what `generateKey` returns, base64).
        public var keyID: [UInt8] { Digest.sha256(privateKey.publicKey.ecUncompressedPoint ?? []) }

        /// Generates a key.
        public init() throws { privateKey = try PrivateKey.generate(for: .es256) }

        /// A saved key.
        public init(privateKey: PrivateKey) { self.privateKey = privateKey }
    }

    /// Knobs for attestations that break one rule.
    public struct Options: Sendable {
        /// `fmt`.
        public var format = "apple-appattest"
        /// The AAGUID; nil for the environment's.
        public var aaguid: [UInt8]? = nil
        /// `production` (AAGUID `appattest` + 7 × 0x00) or `development` (`appattestdevelop`).
        public var development = false
        /// The counter in authData (App Attest: 0).
        public var counter: UInt32 = 0
        /// The credential id in authData; nil for the key id.
        public var credentialID: [UInt8]? = nil
        /// The nonce written into credCert; nil for SHA-256(authData ‖ clientDataHash).
        public var nonce: [UInt8]? = nil
        /// Leave the nonce extension out of credCert.
        public var omitNonceExtension = false
        /// The key whose public key credCert carries; nil for the attested key.
        public var certificateKey: PrivateKey? = nil
        /// credCert validity.
        public var notBefore: Date? = nil
        public var notAfter: Date? = nil
        /// The receipt bytes.
        public var receipt: [UInt8] = Array("passkeyd soft App Attest receipt".utf8)
        /// Append an extensions map after the credential public key without setting ED (as iOS 27 does).
        public var trailingExtensions = false

        public init() {}
    }

    /// An attestation object for `key`, as `attestKey(keyId, clientDataHash)` returns it.
    /// - Parameters:
    ///   - key: the key being attested.
    ///   - appID: `TEAMID.bundle.id` (hashed into rpIdHash).
    ///   - clientDataHash: the hash the app passes (passkeyd: SHA-256 of the challenge).
    ///   - now: credCert is valid from a day before `now` for three days (unless the options say otherwise).
    ///   - options: rules to break.
    public func attest(
        _ key: Key, appID: String, clientDataHash: [UInt8], now: Date, options: Options = Options()
    ) throws -> [UInt8] {
        var authData = Digest.sha256(Array(appID.utf8))
        authData.append(0x40)
        authData += Self.bigEndian(options.counter)
        authData += options.aaguid
            ?? (options.development ? Array("appattestdevelop".utf8) : Array("appattest".utf8) + [UInt8](repeating: 0, count: 7))
        let credentialID = options.credentialID ?? key.keyID
        authData += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
        authData += CBOREncoder.encode(key.privateKey.coseKey(algorithm: .es256))
        if options.trailingExtensions {
            authData += CBOREncoder.encode(.map([CBORMapEntry(.text("apple_bundle_version_01"), .text("1"))]))
        }
        let nonce = options.nonce ?? Digest.sha256(authData + clientDataHash)

        var builder = CertificateBuilder(
            subject: DistinguishedName([("CN", Self.hex(key.keyID)), ("OU", "AAA Certification"), ("O", "passkeyd tests")]),
            serialNumber: UInt64.random(in: 2...UInt64(Int64.max)),
            notBefore: options.notBefore ?? now.addingTimeInterval(-86400),
            notAfter: options.notAfter ?? now.addingTimeInterval(3 * 86400))
        if !options.omitNonceExtension {
            builder.addExtension(oid: "1.2.840.113635.100.8.2", derValue: AppleAnonymousAttestationNonce.encode(nonce))
        }
        let credCert = try intermediate.issue(builder, for: (options.certificateKey ?? key.privateKey).publicKey)

        let object = CBORValue.map([
            CBORMapEntry(.text("fmt"), .text(options.format)),
            CBORMapEntry(.text("attStmt"), .map([
                CBORMapEntry(.text("x5c"), .array([.bytes(credCert.derEncoded), .bytes(intermediate.root.derEncoded)])),
                CBORMapEntry(.text("receipt"), .bytes(options.receipt)),
            ])),
            CBORMapEntry(.text("authData"), .bytes(authData)),
        ])
        return CBOREncoder.encode(object)
    }

    /// An assertion, as `generateAssertion(keyId, clientDataHash: SHA256(clientData))` returns it.
    /// - Parameters:
    ///   - key: the attested key (or another, for a wrong signature).
    ///   - appID: hashed into rpIdHash.
    ///   - clientData: the bytes the server will receive.
    ///   - counter: the counter in authenticatorData.
    public func assert(_ key: Key, appID: String, clientData: [UInt8], counter: UInt32) throws -> [UInt8] {
        let authData = Digest.sha256(Array(appID.utf8)) + [0x40] + Self.bigEndian(counter)
        let nonce = Digest.sha256(authData + Digest.sha256(clientData))
        let signature = try key.privateKey.sign(nonce, algorithm: .es256)
        return CBOREncoder.encode(.map([
            CBORMapEntry(.text("signature"), .bytes(signature)),
            CBORMapEntry(.text("authenticatorData"), .bytes(authData)),
        ]))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
