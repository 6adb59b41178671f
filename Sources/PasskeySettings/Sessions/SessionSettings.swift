public import COSECrypto
public import Foundation
import IdentityCore
public import SessionCore

/// Sessions after sign-in from `PASSKEYD_SESSION*` and `PASSKEYD_HANDOFF_TTL` (declared in SessionVariables.swift; off
/// by default: backends that keep their own sessions see no change). Database signing keys are sealed under
/// `PASSKEYD_KEY_ENCRYPTION_KEY_FILE` (required without `PASSKEYD_SESSION_KEY_FILES`).
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

    /// nil when sessions are off (a variable set anyway is a warning).
    static func load(_ reader: Reader, rpID: String, warnings: inout [String]) throws(ConfigurationError) -> SessionSettings? {
        guard try reader.boolean(.sessions) else {
            for variable in ConfigurationCatalog.sessionVariables where variable != .sessions && reader.isSet(variable) {
                warnings.append("\(variable.name): ignored while PASSKEYD_SESSIONS is off")
            }
            return nil
        }
        let issuer = reader.value(.sessionIssuer) ?? "https://\(rpID)"
        var policy = SessionPolicy(issuer: issuer, audiences: reader.list(.sessionAudiences) ?? [issuer])
        policy.accessTokenLifetime = TimeInterval(try reader.integer(.sessionAccessTTL))
        policy.refreshIdleLifetime = TimeInterval(try reader.integer(.sessionIdleTTL))
        policy.refreshAbsoluteLifetime = TimeInterval(try reader.integer(.sessionMaxTTL))
        policy.handoffLifetime = TimeInterval(try reader.integer(.handoffTTL))
        policy.signingAlgorithm = try reader.choice(.sessionAlgorithm) == "EdDSA" ? .edDSA : .es256
        guard policy.refreshAbsoluteLifetime >= policy.refreshIdleLifetime else {
            throw ConfigurationError(.sessionMaxTTL, "must be at least PASSKEYD_SESSION_IDLE_TTL")
        }
        do {
            policy = try policy.validated()
        } catch {
            throw ConfigurationError(.sessionIssuer, error.description)
        }
        let keys: Keys
        if let files = reader.list(.sessionKeyFiles) {
            var loaded: [SessionSigningKey] = []
            for file in files { loaded.append(try keyFile(file)) }
            keys = .files(loaded)
            if reader.isSet(.sessionKeyRotation) {
                warnings.append("PASSKEYD_SESSION_KEY_ROTATION: ignored with PASSKEYD_SESSION_KEY_FILES (rotate by replacing the files)")
            }
        } else {
            let rotation = TimeInterval(try reader.integer(.sessionKeyRotation))
            keys = .database(keyEncryptionKey: try reader.keyEncryptionKey(purpose: "session signing keys in the database"), rotationInterval: rotation)
        }
        let cookie = reader.text(.sessionCookie)
        guard !cookie.isEmpty, cookie.utf8.count <= 64,
              cookie.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
        else { throw ConfigurationError(.sessionCookie, "must be 1-64 characters of letters, digits, _ and -") }
        return SessionSettings(
            policy: policy, keys: keys, issueOnRegistration: try reader.boolean(.sessionOnRegistration),
            revokeOnDelete: try reader.boolean(.sessionRevokeOnDelete), cookieName: cookie)
    }

    /// A PEM PKCS#8 P-256 or Ed25519 private key.
    static func keyFile(_ path: String) throws(ConfigurationError) -> SessionSigningKey {
        let variable = ConfigVariable.sessionKeyFiles
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
        let variable = ConfigVariable.keyEncryptionKeyFile
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
