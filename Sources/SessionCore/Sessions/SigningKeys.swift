public import COSECrypto
public import Foundation
public import JOSE
public import WebAuthnModel

extension SessionSigningAlgorithm {
    /// The JOSE algorithm.
    public var jws: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        }
    }

    var cose: COSEAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        }
    }
}

/// One access-token signing key with its schedule: published from ``createdAt``, signs from ``activatesAt`` until
/// ``retiresAt``, leaves the JWKS at ``expiresAt`` (after every token it signed has expired).
public struct SessionSigningKey: Sendable {
    /// The RFC 7638 thumbprint of the public JWK.
    public let keyID: String
    public let algorithm: SessionSigningAlgorithm
    public let privateKey: PrivateKey
    public let createdAt: Date
    public let activatesAt: Date
    public let retiresAt: Date?
    public let expiresAt: Date?

    public init(
        algorithm: SessionSigningAlgorithm, privateKey: PrivateKey, createdAt: Date, activatesAt: Date, retiresAt: Date? = nil,
        expiresAt: Date? = nil
    ) throws(CryptoError) {
        guard privateKey.publicKey.supports(algorithm.cose),
              let members = JWK.members(of: privateKey.publicKey, keyID: "", algorithm: algorithm.jws)
        else { throw CryptoError(code: .malformedKey, reason: "the key does not fit \(algorithm.rawValue)") }
        self.init(
            keyID: JWK.thumbprint(members), algorithm: algorithm, privateKey: privateKey, createdAt: createdAt, activatesAt: activatesAt,
            retiresAt: retiresAt, expiresAt: expiresAt)
    }

    /// A checked key with its schedule (the throwing initialiser checked the key and derived the kid).
    private init(
        keyID: String, algorithm: SessionSigningAlgorithm, privateKey: PrivateKey, createdAt: Date, activatesAt: Date, retiresAt: Date?,
        expiresAt: Date?
    ) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
        self.expiresAt = expiresAt
    }

    /// A new key pair.
    public static func generate(_ algorithm: SessionSigningAlgorithm, now: Date, activatesAt: Date) throws(CryptoError) -> SessionSigningKey {
        try SessionSigningKey(algorithm: algorithm, privateKey: try PrivateKey.generate(for: algorithm.cose), createdAt: now, activatesAt: activatesAt)
    }

    /// The same key with another schedule.
    public func scheduled(createdAt: Date? = nil, activatesAt: Date? = nil, retiresAt: Date?, expiresAt: Date?) -> SessionSigningKey {
        SessionSigningKey(
            keyID: keyID, algorithm: algorithm, privateKey: privateKey, createdAt: createdAt ?? self.createdAt,
            activatesAt: activatesAt ?? self.activatesAt, retiresAt: retiresAt, expiresAt: expiresAt)
    }

    /// The public JWK (`kty`, `crv`, coordinates, `kid`, `alg`, `use: sig`).
    public var publicJWK: [String: JSONValue] {
        JWK.members(of: privateKey.publicKey, keyID: keyID, algorithm: algorithm.jws) ?? [:]
    }

    /// The PKCS#8 private key sealed with AES-256-GCM under `keyEncryptionKey`, the `kid` as associated data.
    public func sealed(keyEncryptionKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(privateKey.pkcs8DER(), key: keyEncryptionKey, associatedData: Array(keyID.utf8))
    }

    /// Opens a sealed key and checks that it is the key `keyID` names.
    public static func open(
        sealed: [UInt8], keyID: String, algorithm: SessionSigningAlgorithm, keyEncryptionKey: [UInt8], createdAt: Date, activatesAt: Date,
        retiresAt: Date?, expiresAt: Date?
    ) throws(CryptoError) -> SessionSigningKey {
        let der = try AEAD.open(sealed, key: keyEncryptionKey, associatedData: Array(keyID.utf8))
        let key = try SessionSigningKey(
            algorithm: algorithm, privateKey: try PrivateKey(pkcs8DER: der, algorithm: algorithm.cose), createdAt: createdAt,
            activatesAt: activatesAt, retiresAt: retiresAt, expiresAt: expiresAt)
        guard key.keyID == keyID else { throw CryptoError(code: .malformedKey, reason: "the sealed key is not the key \(keyID)") }
        return key
    }
}

/// The signing keys as a schedule: which one signs now, which ones are published, when to rotate.
public struct SessionKeyRing: Sendable {
    /// Oldest first.
    public let keys: [SessionSigningKey]

    public init(_ keys: [SessionSigningKey]) {
        self.keys = keys.sorted { ($0.createdAt, $0.keyID) < ($1.createdAt, $1.keyID) }
    }

    /// The key that signs at `now`: the newest one active (`activatesAt <= now < retiresAt`); when none is (a clock
    /// step backwards), the newest key that has activated; nil only without keys.
    public func signer(at now: Date) -> SessionSigningKey? {
        keys.last { $0.activatesAt <= now && ($0.retiresAt.map { now < $0 } ?? true) }
            ?? keys.last { $0.activatesAt <= now }
            ?? keys.first
    }

    /// The keys in the JWKS at `now`: every key until its `expiresAt`.
    public func published(at now: Date) -> [SessionSigningKey] {
        keys.filter { $0.expiresAt.map { now < $0 } ?? true }
    }

    /// Whether a new key is due: none yet, or the newest was created `interval` or more ago.
    public func needsRotation(at now: Date, interval: TimeInterval) -> Bool {
        guard let newest = keys.last else { return true }
        return now.timeIntervalSince(newest.createdAt) >= interval
    }

    /// `{"keys": [...]}`, sorted keys.
    public func jwks(at now: Date) -> [UInt8] {
        JSONText.bytes(of: .object(["keys": .array(published(at: now).map { .object($0.publicJWK) })]))
    }
}
