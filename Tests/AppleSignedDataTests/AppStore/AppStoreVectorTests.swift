import AppleSignedData
import COSECrypto
import Foundation
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// `../shared/vectors/apple/storekit`: Apple's own test JWS (App Store Server Library) and the project's generated
/// ones, each with the configuration and expected result its README lists: root testCA, bundle `com.example`,
/// environment Sandbox, appAppleId 1234.
@Suite("App Store signed data: vectors")
struct AppStoreVectorTests {
    static let testRoot: Certificate = {
        // swiftlint:disable:next force_try
        try! Certificate(derEncoded: AppleVectors.bytes("storekit/certs/testCA.der"))
    }()

    static func policy(
        root: Certificate = testRoot, bundle: String = "com.example", environments: Set<AppStoreEnvironment> = [.sandbox],
        appAppleID: Int64? = 1234, products: Set<String>? = nil
    ) -> AppStorePolicy {
        AppStorePolicy(
            roots: TrustAnchors([root]), bundleID: bundle, appAppleID: appAppleID, environments: environments, productIDs: products)
    }

    /// 2026-01-15T00:00:00Z, the generated cases' clock.
    static let clock = Date(timeIntervalSince1970: 1_768_435_200)

    static func jws(_ path: String) throws -> [UInt8] { Array(try AppleVectors.text("storekit/" + path).utf8) }

    static func transaction(_ path: String, _ policy: AppStorePolicy = policy(), now: Date = clock) throws -> AppStoreTransaction {
        try AppStoreTransaction(AppStoreJWS.verify(jws(path), policy: policy, now: now), policy: policy)
    }

    static func code(_ body: () throws -> Void) -> AppStoreError.Code? {
        do {
            try body()
            return nil
        } catch let error as AppStoreError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("Apple's transactionInfo.jws verifies and decodes (x5c[2] is a different self-signed certificate: never trusted)")
    func appleTransaction() throws {
        let verified = try AppStoreJWS.verify(Self.jws("signed/transactionInfo.jws"), policy: Self.policy(), now: Self.clock)
        #expect(verified.appleSigned)
        #expect(verified.payload["bundleId"]?.stringValue == "com.example")
        #expect(verified.payload["environment"]?.stringValue == "Sandbox")
    }

    @Test("transactionInfo.jws: Production only → environment mismatch; Apple Root CA - G3 as root → untrusted chain")
    func appleTransactionRefusals() {
        // The payload is no full transaction (no ids); the environment is checked before the ids are read.
        let production = Self.policy(environments: [.production])
        #expect(Self.code {
            let verified = try AppStoreJWS.verify(Self.jws("signed/transactionInfo.jws"), policy: production, now: Self.clock)
            _ = try AppStoreTransaction(verified, policy: production)
        } == .environmentMismatch)
        let appleRoot = try? Certificate.parsePEM(AppleVectors.text("storekit/certs/AppleRootCA-G3.pem"))[0]
        #expect(appleRoot != nil)
        if let appleRoot {
            #expect(Self.code {
                _ = try AppStoreJWS.verify(Self.jws("signed/transactionInfo.jws"), policy: Self.policy(root: appleRoot), now: Self.clock)
            } == .chainUntrusted)
        }
    }

    @Test("renewalInfo.jws verifies (renewal info has no bundleId)")
    func appleRenewal() throws {
        let verified = try AppStoreJWS.verify(Self.jws("signed/renewalInfo.jws"), policy: Self.policy(), now: Self.clock)
        #expect(verified.payload["environment"]?.stringValue == "Sandbox")
        #expect(verified.payload["bundleId"] == nil)
    }

    @Test("testNotification.jws (Sandbox): OK; a Production-only verifier refuses its environment, whatever its appAppleId")
    func appleNotification() throws {
        let notification = try AppStoreNotification.verify(
            signedPayload: Self.jws("signed/testNotification.jws"), policy: Self.policy(), now: Self.clock)
        #expect(notification.notificationType == "TEST")
        #expect(notification.environment == .sandbox)
        #expect(notification.transaction == nil)
        #expect(Self.code {
            _ = try AppStoreNotification.verify(
                signedPayload: Self.jws("signed/testNotification.jws"), policy: Self.policy(environments: [.production], appAppleID: 1234),
                now: Self.clock)
        } == .environmentMismatch)
        // Apple's per-environment verifier answers INVALID_APP_IDENTIFIER here (it checks the configured Production
        // app id first); passkeyd accepts a set of environments and checks appAppleId on Production notifications only
        // (Apple sends none in Sandbox), so the Sandbox payload is refused for its environment.
        #expect(Self.code {
            _ = try AppStoreNotification.verify(
                signedPayload: Self.jws("signed/testNotification.jws"), policy: Self.policy(environments: [.production], appAppleID: 1235),
                now: Self.clock)
        } == .environmentMismatch)
        // Accepting both environments, the Sandbox notification passes whatever app id is configured.
        let both = try AppStoreNotification.verify(
            signedPayload: Self.jws("signed/testNotification.jws"), policy: Self.policy(environments: [.production, .sandbox], appAppleID: 1235),
            now: Self.clock)
        #expect(both.environment == .sandbox)
    }

    @Test("wrongBundleId.jws (no signedDate: chain checked at now) → bundle id mismatch")
    func appleWrongBundle() {
        #expect(Self.code {
            _ = try AppStoreNotification.verify(
                signedPayload: Self.jws("signed/wrongBundleId.jws"), policy: Self.policy(bundle: "com.examplex"), now: Date())
        } == .bundleIDMismatch)
    }

    @Test("missing x5c, four parts, a.b.c → malformed")
    func malformed() {
        #expect(Self.code { _ = try AppStoreJWS.verify(Self.jws("signed/missingX5CHeaderClaim.jws"), policy: Self.policy(), now: Self.clock) } == .jwsMalformed)
        #expect(Self.code { _ = try AppStoreJWS.verify(Array("a.b.c.d".utf8), policy: Self.policy(), now: Self.clock) } == .jwsMalformed)
        #expect(Self.code { _ = try AppStoreJWS.verify(Array("a.b.c".utf8), policy: Self.policy(), now: Self.clock) } == .jwsMalformed)
    }

    @Test("Xcode data: refused by default; decoded unsigned only under the unsafe policy")
    func xcode() throws {
        let bundle = "com.example.naturelab.backyardbirds.example"
        let safe = Self.policy(bundle: bundle, environments: [.sandbox, .production], appAppleID: 1)
        // Refused at the chain (one self-signed certificate), whatever environments are configured.
        #expect(Self.code { _ = try Self.transaction("xcode/xcode-signed-transaction.jws", safe) } == .chainLengthInvalid)
        let unsafe = safe.unsafeAllowingLocalEnvironments()
        let transaction = try Self.transaction("xcode/xcode-signed-transaction.jws", unsafe)
        #expect(transaction.environment == .xcode)
        #expect(transaction.productID == "pass.premium")
        #expect(transaction.expiresDate == 1_700_358_336_049)
        #expect(unsafe.environments.contains(.xcode))
        // Even unsafe, a Sandbox payload must carry Apple's chain: one signed by a lone certificate is refused.
        let kit = try TestStoreKit(certificates: AppleVectors.root.appendingPathComponent("storekit/certs"))
        var sandbox = kit
        sandbox.bundleID = bundle
        let lone = try sandbox.sign(sandbox.transaction(id: "1", purchase: 1_767_225_600_000, expires: nil), certificates: [kit.leaf])
        #expect(Self.code { _ = try AppStoreJWS.verify(lone.utf8, policy: unsafe, now: Self.clock) } == .chainLengthInvalid)
    }

    @Test("generated: valid subscription, non-consumable and revoked subscription decode")
    func generatedValid() throws {
        let subscription = try Self.transaction("generated/valid-subscription.jws")
        #expect(subscription.productID == "com.example.monthly")
        #expect(subscription.expiresDate == 1_769_904_000_000)
        #expect(subscription.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        let lifetime = try Self.transaction("generated/valid-non-consumable.jws")
        #expect(lifetime.expiresDate == nil)
        #expect(lifetime.type == "Non-Consumable")
        let revoked = try Self.transaction("generated/revoked-subscription.jws")
        #expect(revoked.revocationDate == 1_768_003_200_000)
        #expect(revoked.revocationReason == 0)

        // The three share one original transaction (2000000000000001): each is its own case here.
        let now: Int64 = 1_768_435_200_000
        #expect(AppStoreEntitlements.compute(transactions: [subscription], renewals: [:], now: now).map(\.status) == [.active])
        #expect(AppStoreEntitlements.compute(transactions: [lifetime], renewals: [:], now: now).map(\.status) == [.active])
        // At 2026-03-01 the JWS still verifies but the subscription has expired.
        let later = AppStoreEntitlements.compute(transactions: [subscription], renewals: [:], now: 1_772_323_200_000)
        #expect(later.map(\.status) == [.expired])
        #expect(AppStoreEntitlements.compute(transactions: [revoked], renewals: [:], now: now).map(\.status) == [.revoked])
    }

    @Test("generated refusals, each with its own code", arguments: [
        ("generated/wrong-bundle.jws", AppStoreError.Code.bundleIDMismatch),
        ("generated/unknown-product.jws", .productUnknown),
        ("generated/production-environment.jws", .environmentMismatch),
        ("generated/tampered-payload.jws", .signatureInvalid),
        ("generated/invalid-leaf-oid.jws", .leafOIDMissing),
        ("generated/invalid-intermediate-oid.jws", .intermediateOIDMissing),
        ("generated/chain-length-2.jws", .chainLengthInvalid),
        ("generated/chain-order-swapped.jws", .leafOIDMissing),
        ("generated/alg-none.jws", .algorithmNotAllowed),
        ("generated/alg-es384-header.jws", .algorithmNotAllowed),
        ("generated/signed-after-chain-expiry.jws", .chainExpired),
    ])
    func generatedRefusals(_ file: String, _ expected: AppStoreError.Code) {
        let policy = Self.policy(products: ["com.example.monthly", "com.example.lifetime"])
        #expect(Self.code { _ = try Self.transaction(file, policy) } == expected)
    }

    @Test("the real Apple chain (Root CA - G3, WWDR G6, receipt signing 2025) carries both OIDs and verifies in its window")
    func realAppleChain() throws {
        let root = try Certificate.parsePEM(AppleVectors.text("storekit/certs/AppleRootCA-G3.pem"))[0]
        let intermediate = try Certificate.parsePEM(AppleVectors.text("storekit/certs/AppleWWDRCAG6.pem"))[0]
        let leaf = try Certificate.parsePEM(AppleVectors.text("storekit/certs/apple-prod-ecc-receipt-signing-2025.pem"))[0]
        #expect(leaf.certificateExtension(oid: AppStoreOID.leaf) != nil)
        #expect(intermediate.certificateExtension(oid: AppStoreOID.intermediate) != nil)
        let chain = try ChainVerifier.verify(
            leaf: leaf, intermediates: [intermediate], anchors: TrustAnchors([root]),
            options: ChainVerificationOptions(time: Date(timeIntervalSince1970: 1_761_962_975)))
        #expect(chain.count == 3)
    }
}
