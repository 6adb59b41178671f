import Foundation
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

struct UserJSON: Encodable {
    let id: String
    let name: String
    let displayName: String

    init(_ user: StoredUser) {
        id = Base64URL.encode(user.handle)
        name = user.name
        displayName = user.displayName
    }
}

struct CredentialJSON: Encodable {
    let id: String
    let publicKeyAlgorithm: Int
    let signCount: UInt32
    let aaguid: String
    let attestationFormat: String
    let transports: [String]
    let backupEligible: Bool
    let backedUp: Bool
    let userVerified: Bool?
    let nickname: String?
    let createdAt: Date
    let lastUsedAt: Date?

    init(_ credential: StoredCredential, verified: VerifiedRegistration?) {
        id = Base64URL.encode(credential.id)
        publicKeyAlgorithm = credential.algorithm
        signCount = credential.record.signCount
        aaguid = Self.uuid(credential.aaguid)
        attestationFormat = credential.record.attestationFormat
        transports = credential.record.transports
        backupEligible = credential.record.backupEligible
        backedUp = credential.record.backupState
        userVerified = verified?.userVerified
        nickname = credential.nickname
        createdAt = credential.createdAt
        lastUsedAt = credential.lastUsedAt
    }

    static func uuid(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "" }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }
}

struct RegistrationResult: Encodable {
    let user: UserJSON
    let credential: CredentialJSON
}

struct AuthenticationResult: Encodable {
    let user: UserJSON?
    let credential: CredentialJSON
    let userVerified: Bool
    let signCountStatus: String
}
