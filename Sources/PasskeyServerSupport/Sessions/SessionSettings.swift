public import COSECrypto
public import Foundation
import IdentityCore
public import SessionCore

/// Sessions after sign-in from `PASSKEYD_SESSION*` (off by default: backends that keep their own sessions see no
/// change).
///
///     PASSKEYD_SESSIONS=on                         issue sessions (default off)
///     PASSKEYD_SESSION_ISSUER=https://id.example   the access token's iss (default https://<PASSKEYD_RP_ID>)
///     PASSKEYD_SESSION_AUDIENCES=a,b               its aud (default: the issuer)
///     PASSKEYD_SESSION_ACCESS_TTL=600              access-token lifetime, seconds (60-86400)
///     PASSKEYD_SESSION_IDLE_TTL=2592000            refresh token unused this long stops working (30 days)
///     PASSKEYD_SESSION_MAX_TTL=7776000             no refresh after this long since sign-in (90 days)
///     PASSKEYD_SESSION_ALGORITHM=ES256             or EdDSA (new keys)
///     PASSKEYD_SESSION_KEY_ROTATION=2592000        a new database key this often (seconds; 30 days)
///     PASSKEYD_SESSION_KEY_FILES=/k1.pem,/k2.pem   fixed keys instead (PEM PKCS#8; the first signs)
///     PASSKEYD_KEY_ENCRYPTION_KEY_FILE=/path/kek   seals database keys (required without key files)
///     PASSKEYD_SESSION_ON_REGISTRATION=off         also start a session on a registration finish
///     PASSKEYD_SESSION_REVOKE_ON_DELETE=on         deleting a passkey or unlinking an identity revokes its sessions
///     PASSKEYD_HANDOFF_TTL=30                      handoff code lifetime, seconds (1-60)
///     PASSKEYD_SESSION_COOKIE=passkeyd_refresh     the refresh cookie's name (handoff exchanges that ask for one)
public struct SessionSettings: Sendable {
    public var policy: SessionPolicy
    public var keys: Keys
    public var issueOnRegistration: Bool
    public var revokeOnDelete: Bool
    public var cookieName: String

    public enum Keys: Sendable {
        case database(keyEncryptionKey: [UInt8], rotationInterval: TimeInterval)
        case files([SessionSigningKey])
    }

    static let variables = [
        "PASSKEYD_SESSIONS", "PASSKEYD_SESSION_ISSUER", "PASSKEYD_SESSION_AUDIENCES", "PASSKEYD_SESSION_ACCESS_TTL", "PASSKEYD_SESSION_IDLE_TTL",
        "PASSKEYD_SESSION_MAX_TTL", "PASSKEYD_SESSION_ALGORITHM", "PASSKEYD_SESSION_KEY_ROTATION", "PASSKEYD_SESSION_KEY_FILES",
        "PASSKEYD_SESSION_ON_REGISTRATION", "PASSKEYD_SESSION_REVOKE_ON_DELETE", "PASSKEYD_HANDOFF_TTL", "PASSKEYD_SESSION_COOKIE",
    ]

    /// nil when sessions are off (a variable set anyway is a warning).
    static func load(_ reader: Reader, rpID: String, warnings: inout [String]) throws(ConfigurationError) -> SessionSettings? {
        guard try reader.boolean("PASSKEYD_SESSIONS", default: false) else {
            for variable in variables.dropFirst() where reader.value(variable) != nil {
                warnings.append("\(variable): ignored while PASSKEYD_SESSIONS is off")
            }
            return nil
        }
        let issuer = reader.value("PASSKEYD_SESSION_ISSUER") ?? "https://\(rpID)"
        var policy = SessionPolicy(issuer: issuer, audiences: reader.list("PASSKEYD_SESSION_AUDIENCES") ?? [issuer])
        policy.accessTokenLifetime = TimeInterval(try reader.integer("PASSKEYD_SESSION_ACCESS_TTL", default: 600, in: 60...86_400))
        policy.refreshIdleLifetime = TimeInterval(try reader.integer("PASSKEYD_SESSION_IDLE_TTL", default: 30 * 86_400, in: 60...(5 * 366 * 86_400)))
        policy.refreshAbsoluteLifetime = TimeInterval(try reader.integer("PASSKEYD_SESSION_MAX_TTL", default: 90 * 86_400, in: 60...(5 * 366 * 86_400)))
        policy.handoffLifetime = TimeInterval(try reader.integer("PASSKEYD_HANDOFF_TTL", default: 30, in: 1...60))
        switch reader.value("PASSKEYD_SESSION_ALGORITHM") ?? "ES256" {
        case "ES256": policy.signingAlgorithm = .es256
        case "EdDSA": policy.signingAlgorithm = .edDSA
        case let other: throw ConfigurationError("PASSKEYD_SESSION_ALGORITHM", "must be ES256 or EdDSA, got \"\(other)\"")
        }
        guard policy.refreshAbsoluteLifetime >= policy.refreshIdleLifetime else {
            throw ConfigurationError("PASSKEYD_SESSION_MAX_TTL", "must be at least PASSKEYD_SESSION_IDLE_TTL")
        }
        do {
            policy = try policy.validated()
        } catch {
            throw ConfigurationError("PASSKEYD_SESSION_ISSUER", error.description)
        }
        let keys: Keys
        if let files = reader.list("PASSKEYD_SESSION_KEY_FILES") {
            var loaded: [SessionSigningKey] = []
            for file in files { loaded.append(try keyFile(file)) }
            keys = .files(loaded)
            if reader.value("PASSKEYD_SESSION_KEY_ROTATION") != nil {
                warnings.append("PASSKEYD_SESSION_KEY_ROTATION: ignored with PASSKEYD_SESSION_KEY_FILES (rotate by replacing the files)")
            }
        } else {
            let rotation = TimeInterval(try reader.integer("PASSKEYD_SESSION_KEY_ROTATION", default: 30 * 86_400, in: 3600...(366 * 86_400)))
            keys = .database(keyEncryptionKey: try reader.keyEncryptionKey(purpose: "session signing keys in the database"), rotationInterval: rotation)
        }
        let cookie = reader.value("PASSKEYD_SESSION_COOKIE") ?? "passkeyd_refresh"
        guard !cookie.isEmpty, cookie.utf8.count <= 64,
              cookie.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
        else { throw ConfigurationError("PASSKEYD_SESSION_COOKIE", "must be 1-64 characters of letters, digits, _ and -") }
        return SessionSettings(
            policy: policy, keys: keys, issueOnRegistration: try reader.boolean("PASSKEYD_SESSION_ON_REGISTRATION", default: false),
            revokeOnDelete: try reader.boolean("PASSKEYD_SESSION_REVOKE_ON_DELETE", default: true), cookieName: cookie)
    }

    /// A PEM PKCS#8 P-256 or Ed25519 private key.
    static func keyFile(_ path: String) throws(ConfigurationError) -> SessionSigningKey {
        let variable = "PASSKEYD_SESSION_KEY_FILES"
        guard let data = FileManager.default.contents(atPath: path),
              let der = AppleClientSecret.derFromPEM(String(decoding: data, as: UTF8.self))
        else { throw ConfigurationError(variable, "\(path) is not a readable PEM PRIVATE KEY (PKCS#8)") }
        let privateKey: PrivateKey
        do {
            privateKey = try PrivateKey(pkcs8DER: der)
        } catch {
            throw ConfigurationError(variable, "\(path) is not a usable private key (\(error.code))")
        }
        let algorithm: SessionSigningAlgorithm
        switch privateKey.algorithm {
        case .es256: algorithm = .es256
        case .edDSA: algorithm = .edDSA
        default: throw ConfigurationError(variable, "\(path) is neither a P-256 nor an Ed25519 key")
        }
        do {
            return try SessionSigningKey(algorithm: algorithm, privateKey: privateKey, createdAt: Date(timeIntervalSince1970: 0), activatesAt: Date(timeIntervalSince1970: 0))
        } catch {
            throw ConfigurationError(variable, "\(path): \(error.reason)")
        }
    }
}

extension Reader {
    /// `PASSKEYD_KEY_ENCRYPTION_KEY_FILE`: 32 random bytes in base64 (`openssl rand -base64 32`), the AES-256-GCM key
    /// of every secret passkeyd seals at rest.
    func keyEncryptionKey(purpose: String) throws(ConfigurationError) -> [UInt8] {
        let variable = IdentitySettings.keyEncryptionKeyVariable
        guard let file = value(variable) else {
            throw ConfigurationError(variable, "required for \(purpose): 32 random bytes, base64 (openssl rand -base64 32)")
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw ConfigurationError(variable, "cannot read \(file)") }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = Data(base64Encoded: text), key.count == 32 else {
            throw ConfigurationError(variable, "\(file) must hold exactly 32 bytes in base64")
        }
        return Array(key)
    }
}
