@testable import AppleSignedData
import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnTestSupport

/// One negative test per check, each from a freshly minted attestation or assertion with exactly one rule broken.
@Suite("App Attest checks")
struct AppAttestCheckTests {
    static let appID = "ABCDE12345.com.example.passkeyd"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    let device: SoftAppAttest
    let key: SoftAppAttest.Key
    let challengeHash = Digest.sha256(Array("challenge".utf8))

    init() throws {
        device = try SoftAppAttest()
        key = try SoftAppAttest.Key()
    }

    var configuration: AppAttestConfiguration {
        AppAttestConfiguration(apps: [AppAttestApp(appID: Self.appID)!], roots: device.trustAnchors)
    }

    func verify(
        _ options: SoftAppAttest.Options = .init(), keyID: [UInt8]? = nil, clientDataHash: [UInt8]? = nil,
        configuration: AppAttestConfiguration? = nil, now: Date = now
    ) throws -> AttestedAppAttestKey {
        let object = try device.attest(key, appID: Self.appID, clientDataHash: challengeHash, now: Self.now, options: options)
        return try AppAttest.verifyAttestation(
            object, keyID: keyID ?? key.keyID, clientDataHash: clientDataHash ?? challengeHash,
            configuration: configuration ?? self.configuration, now: now)
    }

    func code(_ body: () throws -> Any) -> AppAttestError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as AppAttestError {
            return error.code
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("a fresh attestation verifies: production, counter 0, the key, the receipt; the trailing extensions map too")
    func valid() throws {
        let verified = try verify()
        #expect(verified.keyID == key.keyID)
        #expect(verified.environment == .production)
        #expect(verified.counter == 0)
        #expect(verified.appID == Self.appID)
        #expect(verified.receipt == SoftAppAttest.Options().receipt)
        #expect(verified.publicKeySPKI == key.privateKey.publicKey.spkiDER())
        var trailing = SoftAppAttest.Options()
        trailing.trailingExtensions = true
        #expect(try verify(trailing).keyID == key.keyID)
    }

    @Test("malformed: not CBOR, not a map, no receipt, one certificate, truncated authData")
    func malformed() throws {
        func check(_ bytes: [UInt8]) -> AppAttestError.Code? {
            code { try AppAttest.verifyAttestation(bytes, keyID: key.keyID, clientDataHash: challengeHash, configuration: configuration, now: Self.now) }
        }
        #expect(check([0xFF, 0x00]) == .malformed)
        #expect(check(CBOREncoder.encode(.array([]))) == .malformed)
        let good = try CBORDecoder.decode(try device.attest(key, appID: Self.appID, clientDataHash: challengeHash, now: Self.now))
        func rebuilt(statement: (CBORValue) -> CBORValue = { $0 }, authData: ([UInt8]) -> [UInt8] = { $0 }) -> [UInt8] {
            CBOREncoder.encode(.map([
                CBORMapEntry(.text("fmt"), good[text: "fmt"]!),
                CBORMapEntry(.text("attStmt"), statement(good[text: "attStmt"]!)),
                CBORMapEntry(.text("authData"), .bytes(authData(good[text: "authData"]!.bytesValue!))),
            ]))
        }
        #expect(check(rebuilt()) == nil)
        let x5c = good[text: "attStmt"]![text: "x5c"]!
        #expect(check(rebuilt(statement: { _ in .map([CBORMapEntry(.text("x5c"), x5c)]) })) == .malformed)
        #expect(check(rebuilt(statement: { statement in
            .map([CBORMapEntry(.text("x5c"), .array([x5c.arrayValue![0]])), CBORMapEntry(.text("receipt"), statement[text: "receipt"]!)])
        })) == .malformed)
        #expect(check(rebuilt(authData: { Array($0.prefix(50)) })) == .malformed)
        #expect(check(rebuilt(authData: { $0 + [0x01] })) == .malformed, "trailing bytes must be one CBOR map")
    }

    @Test("fmt other than apple-appattest: appattest_format_invalid")
    func format() {
        var options = SoftAppAttest.Options()
        options.format = "apple"
        #expect(code { try verify(options) } == .formatInvalid)
    }

    @Test("chain: another root, expired or not yet valid credCert: appattest_chain_invalid")
    func chain() throws {
        let other = try SoftAppAttest()
        var configuration = self.configuration
        configuration.roots = other.trustAnchors
        #expect(code { try verify(configuration: configuration) } == .chainInvalid)
        #expect(code { try verify(now: Self.now.addingTimeInterval(4 * 86400)) } == .chainInvalid)
        #expect(code { try verify(now: Self.now.addingTimeInterval(-2 * 86400)) } == .chainInvalid)
    }

    @Test("nonce: missing extension, wrong value, other clientDataHash")
    func nonce() {
        var missing = SoftAppAttest.Options()
        missing.omitNonceExtension = true
        #expect(code { try verify(missing) } == .nonceExtensionInvalid)
        var wrong = SoftAppAttest.Options()
        wrong.nonce = [UInt8](repeating: 1, count: 32)
        #expect(code { try verify(wrong) } == .nonceMismatch)
        #expect(code { try verify(clientDataHash: Digest.sha256(Array("other".utf8))) } == .nonceMismatch)
    }

    @Test("key id: not SHA-256 of credCert's key: appattest_key_id_mismatch")
    func keyID() throws {
        #expect(code { try verify(keyID: [UInt8](repeating: 9, count: 32)) } == .keyIDMismatch)
        var otherKey = SoftAppAttest.Options()
        otherKey.certificateKey = try PrivateKey.generate(for: .es256)
        #expect(code { try verify(otherKey) } == .keyIDMismatch)
    }

    @Test("rpIdHash of an app that is not configured: appattest_rp_id_mismatch")
    func rpID() {
        var configuration = self.configuration
        configuration.apps = [AppAttestApp(appID: "ABCDE12345.com.example.other")!]
        #expect(code { try verify(configuration: configuration) } == .rpIDMismatch)
    }

    @Test("non-zero counter at attestation: appattest_counter_not_zero")
    func counter() {
        var options = SoftAppAttest.Options()
        options.counter = 1
        #expect(code { try verify(options) } == .counterNotZero)
    }

    @Test("AAGUID: development refused in production, accepted when allowed; unknown AAGUID refused")
    func aaguid() throws {
        var development = SoftAppAttest.Options()
        development.development = true
        #expect(code { try verify(development) } == .aaguidMismatch)
        var allowing = configuration
        allowing.environments = [.production, .development]
        #expect(try verify(development, configuration: allowing).environment == .development)
        var unknown = SoftAppAttest.Options()
        unknown.aaguid = [UInt8](repeating: 0, count: 16)
        #expect(code { try verify(unknown, configuration: allowing) } == .aaguidMismatch)
    }

    @Test("credentialId other than the key id: appattest_credential_id_mismatch")
    func credentialID() {
        var options = SoftAppAttest.Options()
        options.credentialID = [UInt8](repeating: 3, count: 32)
        #expect(code { try verify(options) } == .credentialIDMismatch)
    }

    // MARK: assertions

    var state: AppAttestKeyState {
        AppAttestKeyState(publicKeySPKI: key.privateKey.publicKey.spkiDER(), appID: Self.appID, counter: 4)
    }

    @Test("an assertion verifies and returns its counter")
    func assertionValid() throws {
        let clientData = Array(#"{"challenge":"AAAAAAAAAAAAAAAAAAAAAA"}"#.utf8)
        let assertion = try device.assert(key, appID: Self.appID, clientData: clientData, counter: 5)
        #expect(try AppAttest.verifyAssertion(assertion, clientData: clientData, key: state) == 5)
    }

    @Test("assertion refusals: malformed, signature (other key, other clientData), rpIdHash, counter not increasing")
    func assertionRefusals() throws {
        let clientData = Array("data".utf8)
        func check(_ assertion: [UInt8], clientData: [UInt8] = clientData, state: AppAttestKeyState? = nil) -> AppAttestError.Code? {
            code { try AppAttest.verifyAssertion(assertion, clientData: clientData, key: state ?? self.state) }
        }
        #expect(check([0x01]) == .malformed)
        #expect(check(CBOREncoder.encode(.map([CBORMapEntry(.text("signature"), .bytes([1]))]))) == .malformed)
        let other = try SoftAppAttest.Key()
        #expect(check(try device.assert(other, appID: Self.appID, clientData: clientData, counter: 5)) == .signatureInvalid)
        let good = try device.assert(key, appID: Self.appID, clientData: clientData, counter: 5)
        #expect(check(good, clientData: Array("datb".utf8)) == .signatureInvalid)
        #expect(check(try device.assert(key, appID: "ABCDE12345.com.example.other", clientData: clientData, counter: 5)) == .rpIDMismatch)
        #expect(check(try device.assert(key, appID: Self.appID, clientData: clientData, counter: 4)) == .counterNotIncreasing)
        #expect(check(try device.assert(key, appID: Self.appID, clientData: clientData, counter: 3)) == .counterNotIncreasing)
        #expect(check(good) == nil)
    }

    @Test("clientData: a JSON object with a base64url challenge; anything else is appattest_client_data_invalid")
    func clientData() throws {
        #expect(try AppAttest.clientDataChallenge(Array(#"{"challenge":"AQID","action":"buy"}"#.utf8)) == [1, 2, 3])
        for bad in [#"[]"#, #"{"challenge":1}"#, #"{"challenge":"AQ+D"}"#, #"{"challenge":""}"#, "not json", #"{"a":1}"#] {
            #expect(code { try AppAttest.clientDataChallenge(Array(bad.utf8)) } == .clientDataInvalid, "\(bad)")
        }
    }

    @Test("App IDs: TEAMID (10 alphanumerics) dot bundle id")
    func appIDs() {
        #expect(AppAttestApp(appID: "ABCDE12345.com.example.app") != nil)
        #expect(AppAttestApp(teamID: "ABCDE12345", bundleID: "com.example-app")?.appID == "ABCDE12345.com.example-app")
        for bad in ["ABCDE1234.com.x", "ABCDE12345.", "com.example.app", "ABCDE12345.com/x", "ABCDE12345"] {
            #expect(AppAttestApp(appID: bad) == nil, "\(bad)")
        }
    }
}
