@testable import AppleSignedData
import COSECrypto
import Foundation
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// The App Attest samples of `../shared/vectors/apple/appattest`, each at its own verification time, against the
/// real Apple App Attestation Root CA.
@Suite("App Attest vectors")
struct AppAttestVectorTests {
    static let dir = "appattest"

    static func root() throws -> TrustAnchors {
        TrustAnchors(try Certificate.parsePEM(try AppleVectors.text("\(dir)/certs/Apple_App_Attestation_Root_CA.pem")))
    }

    static func configuration(_ appID: String, development: Bool) throws -> AppAttestConfiguration {
        let app = try #require(AppAttestApp(appID: appID))
        return AppAttestConfiguration(apps: [app], allowDevelopment: development, roots: try root())
    }

    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return try #require(formatter.date(from: text))
    }

    static func base64(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text)) }

    /// A PEM SubjectPublicKeyInfo to its DER.
    static func spki(pem: String) throws -> [UInt8] {
        let body = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
        return try base64(body)
    }

    /// An uncompressed P-256 point (hex) to its DER SubjectPublicKeyInfo.
    static func spki(uncompressedHex hex: String) throws -> [UInt8] {
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
            0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        return prefix + bytes
    }

    // MARK: Apple's documentation sample

    @Test("Apple's documentation sample verifies at its time: production, counter 0, the receipt, the trailing extensions map")
    func appleDocumentationSample() throws {
        let inputs = try AppleVectors.json("\(Self.dir)/apple-doc-2026/inputs.json")
        let object = try Self.base64(try AppleVectors.text("\(Self.dir)/apple-doc-2026/attestation-object.b64"))
        let keyID = try Self.base64(try #require(inputs["keyId"] as? String))
        let clientDataHash = Array(try #require(inputs["serverChallengeUtf8"] as? String).utf8)
        let appID = try #require(inputs["appId"] as? String)
        let now = try Self.date(try #require(inputs["verifyAtUtc"] as? String))
        let configuration = try Self.configuration(appID, development: false)

        let key = try AppAttest.verifyAttestation(object, keyID: keyID, clientDataHash: clientDataHash, configuration: configuration, now: now)
        #expect(key.environment == .production)
        #expect(key.appID == appID)
        #expect(key.counter == 0)
        #expect(key.keyID == keyID)
        #expect(key.receipt.count == 3977)
        #expect(Digest.sha256(try #require(try PublicKey(spkiDER: key.publicKeySPKI).ecUncompressedPoint)) == keyID)

        // The negative variants listed in inputs.json.
        func refusal(
            keyID: [UInt8]? = nil, clientDataHash hash: [UInt8]? = nil, configuration config: AppAttestConfiguration? = nil,
            now time: Date? = nil
        ) -> AppAttestError.Code? {
            do {
                _ = try AppAttest.verifyAttestation(
                    object, keyID: keyID ?? key.keyID, clientDataHash: hash ?? clientDataHash,
                    configuration: config ?? configuration, now: time ?? now)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refusal(clientDataHash: Digest.sha256(clientDataHash)) == .nonceMismatch)
        #expect(refusal(clientDataHash: Array("example_server_challengf".utf8)) == .nonceMismatch)
        var developmentOnly = configuration
        developmentOnly.environments = [.development]
        #expect(refusal(configuration: developmentOnly) == .aaguidMismatch)
        #expect(refusal(now: try Self.date("2026-05-01T00:00:00Z")) == .chainInvalid)
        #expect(refusal(configuration: try Self.configuration("1234567890.com.example.other", development: false)) == .rpIDMismatch)
        #expect(refusal(keyID: [UInt8](repeating: 7, count: 32)) == .keyIDMismatch)
        // Anchored on anything but the App Attestation root (here: a throwaway root), the chain fails.
        var otherRoot = configuration
        otherRoot.roots = TrustAnchors([try TestAttestationCA().anchor])
        #expect(refusal(configuration: otherRoot) == .chainInvalid)
    }

    // MARK: veehaitch/devicecheck-appattest (development, multi-document YAML)

    /// The top-level scalar fields of each `---` document (the few the tests read; `publicKey` is a block scalar).
    static func yamlDocuments(_ text: String) -> [[String: String]] {
        var documents: [[String: String]] = []
        for chunk in text.components(separatedBy: "\n---") {
            var fields: [String: String] = [:]
            var blockKey: String?
            for line in chunk.split(separator: "\n", omittingEmptySubsequences: false) {
                if let key = blockKey, line.hasPrefix("  ") {
                    fields[key, default: ""] += line.trimmingCharacters(in: .whitespaces) + "\n"
                    continue
                }
                blockKey = nil
                guard !line.hasPrefix(" "), let colon = line.firstIndex(of: ":") else { continue }
                let key = String(line[..<colon])
                var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if value == "|" { blockKey = key; value = "" }
                if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                fields[key] = value
            }
            if !fields.isEmpty { documents.append(fields) }
        }
        return documents
    }

    static let veehaitchFiles = [
        "ios-14.2", "ios-14.3-beta-2", "ios-14.3-beta-3", "ios-14.3", "ios-14.4-beta-1", "ios-14.4-beta-2", "ios-14.4",
    ]

    @Test("veehaitch samples: each attestation (development) and its assertion with counter 1", arguments: veehaitchFiles)
    func veehaitch(_ name: String) throws {
        let documents = Self.yamlDocuments(try AppleVectors.text("\(Self.dir)/veehaitch-devicecheck-appattest/\(name).yaml"))
        let attestation = try #require(documents.first { $0["type"] == "attestation" })
        let assertion = try #require(documents.first { $0["type"] == "assertion" })
        let appID = "\(try #require(attestation["teamIdentifier"])).\(try #require(attestation["bundleIdentifier"]))"
        let configuration = try Self.configuration(appID, development: true)
        let keyID = try Self.base64(try #require(attestation["keyIdBase64"]))
        let clientData = try Self.base64(try #require(attestation["clientDataBase64"]))
        let key = try AppAttest.verifyAttestation(
            try Self.base64(try #require(attestation["attestationBase64"])), keyID: keyID,
            clientDataHash: Digest.sha256(clientData), configuration: configuration,
            now: try Self.date(try #require(attestation["timestamp"])))
        #expect(key.environment == .development)
        #expect(key.publicKeySPKI == (try Self.spki(pem: try #require(attestation["publicKey"]))))
        // Production only: the development AAGUID is refused.
        #expect(throws: AppAttestError(.aaguidMismatch, "")) {
            try AppAttest.verifyAttestation(
                try Self.base64(try #require(attestation["attestationBase64"])), keyID: keyID,
                clientDataHash: Digest.sha256(clientData), configuration: try Self.configuration(appID, development: false),
                now: try Self.date(try #require(attestation["timestamp"])))
        }

        let counter = try AppAttest.verifyAssertion(
            try Self.base64(try #require(assertion["assertionBase64"])),
            clientData: try Self.base64(try #require(assertion["clientDataBase64"])),
            key: AppAttestKeyState(publicKeySPKI: key.publicKeySPKI, appID: appID, counter: 0))
        #expect(counter == UInt32(try #require(assertion["counter"])))
    }

    // MARK: uebelack/node-app-attest

    @Test("uebelack samples: development and production attestations, and the assertion (counter 1)")
    func uebelack() throws {
        let base = "\(Self.dir)/uebelack-node-app-attest"
        let appID = try #require(try AppleVectors.json("\(base)/inputs.json")["appId"] as? String)
        let configuration = try Self.configuration(appID, development: true)
        for (file, environment, time) in [
            ("attestation-development.json", AppAttestEnvironment.development, "2024-06-01T00:00:00Z"),
            ("attestation-production.json", .production, "2024-06-01T00:00:00Z"),
        ] {
            let sample = try AppleVectors.json("\(base)/\(file)")
            let challenge = try Self.base64(try #require(sample["challenge"] as? String))
            let key = try AppAttest.verifyAttestation(
                try Self.base64(try #require(sample["attestation"] as? String)),
                keyID: try Self.base64(try #require(sample["keyId"] as? String)),
                clientDataHash: Digest.sha256(challenge), configuration: configuration, now: try Self.date(time))
            #expect(key.environment == environment, "\(file)")
        }
        let assertion = try AppleVectors.json("\(base)/assertion.json")
        let counter = try AppAttest.verifyAssertion(
            try Self.base64(try #require(assertion["assertionBase64"] as? String)),
            clientData: Array(try #require(assertion["clientDataUtf8"] as? String).utf8),
            key: AppAttestKeyState(
                publicKeySPKI: try Self.spki(pem: try #require(assertion["publicKeyPem"] as? String)), appID: appID, counter: 0))
        #expect(counter == 1)
    }

    // MARK: srinivas1729/appattest-checker-node

    @Test("srinivas sample: the attestation (development, its public key) and the assertion (counter 1)")
    func srinivas() throws {
        let base = "\(Self.dir)/srinivas1729-appattest-checker-node"
        let sample = try AppleVectors.json("\(base)/attestation.json")
        let appID = try #require(sample["appId"] as? String)
        let challengeHex = try #require(sample["challengeBytesHex"] as? String)
        let challenge = try #require(Self.hexBytes(challengeHex))
        let key = try AppAttest.verifyAttestation(
            try Self.base64(try #require(sample["attestationObjectBase64"] as? String)),
            keyID: try Self.base64(try #require(sample["keyId"] as? String)), clientDataHash: Digest.sha256(challenge),
            configuration: try Self.configuration(appID, development: true), now: try Self.date("2024-06-01T00:00:00Z"))
        #expect(key.environment == .development)
        let expected = try #require(sample["expected"] as? [String: Any])
        #expect(key.publicKeySPKI == (try Self.spki(pem: try #require(expected["publicKeyPem"] as? String))))

        let assertion = try AppleVectors.json("\(base)/assertion.json")
        let counter = try AppAttest.verifyAssertion(
            try Self.base64(try #require(assertion["assertionBase64"] as? String)),
            clientData: Array(try #require(assertion["clientDataUtf8"] as? String).utf8),
            key: AppAttestKeyState(publicKeySPKI: key.publicKeySPKI, appID: appID, counter: 0))
        #expect(counter == 1)
    }

    static func hexBytes(_ hex: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    // MARK: dreipol/pyattest

    @Test("dreipol sample verifies as development inside its credCert window")
    func dreipol() throws {
        let base = "\(Self.dir)/dreipol-pyattest"
        let inputs = try AppleVectors.json("\(base)/inputs.json")
        let key = try AppAttest.verifyAttestation(
            try Self.base64(try AppleVectors.text("\(base)/attest_apple.b64")),
            keyID: try Self.base64(try #require(inputs["keyId"] as? String)),
            clientDataHash: Digest.sha256(Array(try #require(inputs["challengeUtf8"] as? String).utf8)),
            configuration: try Self.configuration(try #require(inputs["appId"] as? String), development: true),
            now: try Self.date("2021-01-25T00:00:00Z"))
        #expect(key.environment == .development)
    }

    // MARK: bas-d/appattest

    @Test("bas-d sample: development attestation (production: AAGUID mismatch), assertion with counter 3")
    func basD() throws {
        let base = "\(Self.dir)/bas-d-appattest"
        let sample = try AppleVectors.json("\(base)/attestation.json")
        let appID = try #require(sample["appId"] as? String)
        let object = try Self.base64(try #require(sample["attestationObjectBase64url"] as? String))
        let keyID = try Self.base64(try #require(sample["keyId"] as? String))
        let clientData = try Self.base64(try #require(sample["clientDataBase64url"] as? String))
        let now = try Self.date(try #require(sample["verifyAtUtc"] as? String))
        let key = try AppAttest.verifyAttestation(
            object, keyID: keyID, clientDataHash: Digest.sha256(clientData),
            configuration: try Self.configuration(appID, development: true), now: now)
        #expect(key.environment == .development)
        let expected = try #require(sample["expected"] as? [String: Any])
        #expect(key.publicKeySPKI == (try Self.spki(uncompressedHex: try #require(expected["publicKeyUncompressedHex"] as? String))))
        #expect(throws: AppAttestError(.aaguidMismatch, "")) {
            try AppAttest.verifyAttestation(
                object, keyID: keyID, clientDataHash: Digest.sha256(clientData),
                configuration: try Self.configuration(appID, development: false), now: now)
        }

        let assertion = try AppleVectors.json("\(base)/assertion.json")
        let state = AppAttestKeyState(publicKeySPKI: key.publicKeySPKI, appID: appID, counter: 0)
        let assertionBytes = try Self.base64(try #require(assertion["assertionBase64url"] as? String))
        let assertionClientData = try Self.base64(try #require(assertion["clientDataBase64url"] as? String))
        #expect(try AppAttest.verifyAssertion(assertionBytes, clientData: assertionClientData, key: state) == 3)
        // Replayed after counter 3 was stored: refused.
        #expect(throws: AppAttestError(.counterNotIncreasing, "")) {
            try AppAttest.verifyAssertion(
                assertionBytes, clientData: assertionClientData,
                key: AppAttestKeyState(publicKeySPKI: key.publicKeySPKI, appID: appID, counter: 3))
        }
    }
}
