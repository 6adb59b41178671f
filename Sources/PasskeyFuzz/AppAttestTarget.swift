import AppleSignedData
import COSECrypto
import Foundation

/// The `appattest` target: bytes as an App Attest attestation object (Apple's documentation sample's key id, raw
/// clientDataHash and app at its recorded time, under the vectors' App Attestation root, so the seeded sample reaches
/// every step), as an assertion against a fixed key, and as assertion clientData.
extension FuzzTarget {
    static let appAttestConfiguration: AppAttestConfiguration = {
        var roots: [Certificate] = []
        if let base = ProcessInfo.processInfo.environment["PASSKEYD_FUZZ_ROOTS"] {
            let path = URL(fileURLWithPath: base).deletingLastPathComponent()
                .appendingPathComponent("apple/appattest/certs/Apple_App_Attestation_Root_CA.pem").path
            if let data = FileManager.default.contents(atPath: path), let parsed = try? Certificate.parsePEM(String(decoding: data, as: UTF8.self)) {
                roots = parsed
            }
        }
        let apps = ["1234567890.com.example.myapp"].compactMap { AppAttestApp(appID: $0) }
        return AppAttestConfiguration(apps: apps, allowDevelopment: true, roots: TrustAnchors(roots))
    }()

    /// The documentation sample's key id and the 24 raw bytes it used as clientDataHash; 2026-04-21T18:13:12Z.
    static let appAttestKeyID = Array(Data(base64Encoded: "zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0=") ?? Data())
    static let appAttestClientDataHash = Array("example_server_challenge".utf8)
    static let appAttestTime = Date(timeIntervalSince1970: 1_776_795_192)
    /// A fixed P-256 key for assertions (any key: the point is to reach the signature check).
    static let appAttestKey: AppAttestKeyState? = {
        guard let key = try? PrivateKey.generate(for: .es256) else { return nil }
        return AppAttestKeyState(publicKeySPKI: key.publicKey.spkiDER(), appID: "1234567890.com.example.myapp", counter: 0)
    }()

    static func appAttest(_ input: [UInt8]) -> Bool {
        var accepted = false
        do {
            _ = try AppAttest.verifyAttestation(
                input, keyID: appAttestKeyID, clientDataHash: appAttestClientDataHash, configuration: appAttestConfiguration,
                now: appAttestTime)
            accepted = true
        } catch {
            _ = error.code
        }
        if let key = appAttestKey {
            do {
                _ = try AppAttest.verifyAssertion(input, clientData: Array("{\"challenge\":\"x\"}".utf8), key: key)
                accepted = true
            } catch {
                _ = error.code
            }
        }
        if (try? AppAttest.clientDataChallenge(input)) != nil { accepted = true }
        return accepted
    }
}
