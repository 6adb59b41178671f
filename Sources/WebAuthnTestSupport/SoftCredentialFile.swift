public import COSECrypto
public import Foundation
import WebAuthnModel

/// A software credential saved to a file (JSON), so the `passkeyd-softkey` tool can register in one process and
/// sign in from another. It holds the private key in the clear: for development and smoke tests only.
public struct SoftCredentialFile: Codable, Sendable {
    public var id: String
    public var algorithm: Int
    public var rpID: String
    public var userHandle: String
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backupState: Bool
    /// Unencrypted PKCS#8 DER, base64url.
    public var privateKey: String
    public var publicKeyCOSE: String

    public init(_ credential: SoftCredential) {
        id = Base64URL.encode(credential.id)
        algorithm = Int(credential.algorithm.rawValue)
        rpID = credential.rpID
        userHandle = Base64URL.encode(credential.userHandle)
        signCount = credential.signCount
        backupEligible = credential.backupEligible
        backupState = credential.backupState
        privateKey = Base64URL.encode(credential.privateKey.pkcs8DER())
        publicKeyCOSE = Base64URL.encode(credential.publicKeyCOSE)
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// The credential again.
    public func credential() throws -> SoftCredential {
        guard let id = Base64URL.decode(id), let userHandle = Base64URL.decode(userHandle),
            let pkcs8 = Base64URL.decode(privateKey), let cose = Base64URL.decode(publicKeyCOSE)
        else { throw Invalid(description: "the credential file is damaged") }
        let algorithm = COSEAlgorithm(rawValue: algorithm)
        return SoftCredential(
            id: id, privateKey: try PrivateKey(pkcs8DER: pkcs8, algorithm: algorithm), algorithm: algorithm, rpID: rpID,
            userHandle: userHandle, signCount: signCount, backupEligible: backupEligible, backupState: backupState,
            publicKeyCOSE: cose)
    }
}
