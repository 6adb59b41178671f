import COSECrypto
import Foundation
import WebAuthnModel
import WebAuthnTestSupport

/// `passkeyd-softkey appattest …`: a software App Attest device for the App Attest walkthrough (docs/app-attest.md). Its own
/// throwaway root stands in for Apple's App Attestation Root CA (a passkeyd configured with Apple's root never
/// accepts what it makes).
///
///   passkeyd-softkey appattest device --device FILE --root-pem FILE
///       a new test root and intermediate, kept in FILE (private keys in plain text: tests only); the root as PEM
///   passkeyd-softkey appattest attest --device FILE --key FILE --app-id TEAMID.bundle.id --challenge B64URL [--development yes]
///       a new key (kept in --key) attested with clientDataHash = SHA-256(challenge bytes); prints {"keyId","attestationObject"}
///   passkeyd-softkey appattest assert --device FILE --key FILE --app-id ID --client-data JSON --counter N
///       prints {"keyId","assertion","clientData"} (clientData: the JSON bytes, base64url)
/// keyId, attestationObject and assertion are base64, as Apple's API hands them to the app.
func appAttest(_ arguments: [String]) throws {
    guard let command = arguments.first, ["device", "attest", "assert"].contains(command) else {
        throw UsageError(description: "usage: passkeyd-softkey appattest device|attest|assert --device FILE …")
    }
    var flags: [String: String] = [:]
    var rest = Array(arguments.dropFirst())
    while let flag = rest.first {
        guard flag.hasPrefix("--"), rest.count >= 2 else { throw UsageError(description: "unexpected argument \(flag)") }
        flags[String(flag.dropFirst(2))] = rest[1]
        rest.removeFirst(2)
    }
    func flag(_ name: String) throws -> String {
        guard let value = flags[name] else { throw UsageError(description: "--\(name) is required") }
        return value
    }
    let devicePath = try flag("device")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if command == "device" {
        let device = try SoftAppAttest()
        try encoder.encode(SavedDevice(device)).write(to: URL(fileURLWithPath: devicePath), options: .atomic)
        try Data(device.root.root.pemEncoded.utf8).write(to: URL(fileURLWithPath: try flag("root-pem")), options: .atomic)
        return
    }
    let device = try JSONDecoder().decode(SavedDevice.self, from: Data(contentsOf: URL(fileURLWithPath: devicePath))).device()
    let keyPath = try flag("key")
    let appID = try flag("app-id")
    let output: [String: String]
    if command == "attest" {
        guard let challenge = Base64URL.decode(try flag("challenge")) else { throw UsageError(description: "--challenge is not base64url") }
        let key = try SoftAppAttest.Key()
        try Data(key.privateKey.pkcs8DER()).base64EncodedData().write(to: URL(fileURLWithPath: keyPath), options: .atomic)
        var options = SoftAppAttest.Options()
        options.development = flags["development"] == "yes"
        let object = try device.attest(key, appID: appID, clientDataHash: Digest.sha256(challenge), now: Date(), options: options)
        output = ["keyId": Data(key.keyID).base64EncodedString(), "attestationObject": Data(object).base64EncodedString()]
    } else {
        guard let saved = Data(base64Encoded: try Data(contentsOf: URL(fileURLWithPath: keyPath))) else {
            throw UsageError(description: "\(keyPath) is not a saved key")
        }
        let key = SoftAppAttest.Key(privateKey: try PrivateKey(pkcs8DER: Array(saved), algorithm: .es256))
        guard let counter = UInt32(try flag("counter")) else { throw UsageError(description: "--counter is not a number") }
        let clientData = Array(try flag("client-data").utf8)
        let assertion = try device.assert(key, appID: appID, clientData: clientData, counter: counter)
        output = [
            "keyId": Data(key.keyID).base64EncodedString(), "assertion": Data(assertion).base64EncodedString(),
            "clientData": Base64URL.encode(clientData),
        ]
    }
    FileHandle.standardOutput.write(try encoder.encode(output) + Data("\n".utf8))
}

/// The device's root and intermediate with their keys (base64 PKCS#8 and DER).
struct SavedDevice: Codable {
    let rootKey: String
    let rootCertificate: String
    let intermediateKey: String
    let intermediateCertificate: String

    init(_ device: SoftAppAttest) {
        rootKey = Data(device.root.rootKey.pkcs8DER()).base64EncodedString()
        rootCertificate = Data(device.root.root.derEncoded).base64EncodedString()
        intermediateKey = Data(device.intermediate.rootKey.pkcs8DER()).base64EncodedString()
        intermediateCertificate = Data(device.intermediate.root.derEncoded).base64EncodedString()
    }

    func device() throws -> SoftAppAttest {
        func bytes(_ text: String) throws -> [UInt8] {
            guard let data = Data(base64Encoded: text) else { throw UsageError(description: "the device file is damaged") }
            return Array(data)
        }
        let anchor = try Certificate(derEncoded: try bytes(rootCertificate))
        let root = TestAttestationCA(key: try PrivateKey(pkcs8DER: try bytes(rootKey)), certificate: anchor, chain: [], anchor: anchor)
        let certificate = try Certificate(derEncoded: try bytes(intermediateCertificate))
        let intermediate = TestAttestationCA(
            key: try PrivateKey(pkcs8DER: try bytes(intermediateKey)), certificate: certificate, chain: [certificate], anchor: anchor)
        return SoftAppAttest(root: root, intermediate: intermediate)
    }
}
