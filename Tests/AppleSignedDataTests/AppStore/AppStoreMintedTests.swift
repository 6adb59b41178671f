import AppleSignedData
import COSECrypto
import Foundation
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// Fresh StoreKit JWS minted with the test leaf key of the vectors: notifications, renewals, refunds, revocations
/// and the entitlement rules.
@Suite("App Store signed data: minted")
struct AppStoreMintedTests {
    static let kit: TestStoreKit = {
        // swiftlint:disable:next force_try
        try! TestStoreKit(certificates: AppleVectors.root.appendingPathComponent("storekit/certs"))
    }()
    static let policy = AppStorePolicy(
        roots: TrustAnchors([kit.root]), bundleID: "com.example", appAppleID: 1234, environments: [.sandbox])
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_767_225_600_000  // 2026-01-01
    static let now = Date(timeIntervalSince1970: Double(t0 + 10 * day) / 1000)

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

    static func transaction(_ payload: [String: Any], policy: AppStorePolicy = policy) throws -> AppStoreTransaction {
        let jws = try kit.sign(payload)
        return try AppStoreTransaction(AppStoreJWS.verify(jws.utf8, policy: policy, now: now), policy: policy)
    }

    @Test("a minted transaction verifies and every member is read")
    func transaction() throws {
        let token = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        let decoded = try Self.transaction(Self.kit.transaction(
            id: "2000", original: "1000", purchase: Self.t0, expires: Self.t0 + 30 * Self.day,
            ["appAccountToken": token, "inAppOwnershipType": "FAMILY_SHARED"]))
        #expect(decoded.transactionID == "2000")
        #expect(decoded.originalTransactionID == "1000")
        #expect(decoded.appAccountToken == token.lowercased())
        #expect(decoded.ownershipType == "FAMILY_SHARED")
        #expect(decoded.environment == .sandbox)
        #expect(decoded.signedDate == Self.t0)
    }

    @Test("payload members of the wrong type or missing are malformed; a bad appAccountToken too")
    func malformedPayload() {
        for change: [String: Any] in [
            ["transactionId": NSNull()], ["purchaseDate": "yesterday"], ["expiresDate": -5], ["appAccountToken": "not-a-uuid"],
            ["isUpgraded": "yes"], ["transactionId": ""], ["revocationReason": 1.5],
        ] {
            #expect(Self.code {
                _ = try Self.transaction(Self.kit.transaction(id: "1", purchase: Self.t0, expires: Self.t0 + Self.day, change))
            } == .payloadMalformed, "\(change)")
        }
    }

    @Test("the chain is checked at signedDate: a date before testCA's notBefore (2023-01-05) fails as expired")
    func chainTime() {
        #expect(Self.code {
            _ = try Self.transaction(Self.kit.transaction(id: "1", purchase: 1_600_000_000_000, expires: nil))
        } == .chainExpired)
    }

    @Test("a signature made with another key over the same chain fails")
    func wrongKey() throws {
        let other = try PrivateKey.generate(for: .es256)
        let jws = try TestJWS.sign(
            payload: TestJWS.json(Self.kit.transaction(id: "1", purchase: Self.t0, expires: nil)), key: other,
            certificates: [Self.kit.leaf, Self.kit.intermediate, Self.kit.root])
        #expect(Self.code { _ = try AppStoreJWS.verify(jws, policy: Self.policy, now: Self.now) } == .signatureInvalid)
    }

    @Test("x5c of four certificates is refused; alg is checked before the payload is read")
    func chainShape() throws {
        let four = try Self.kit.sign(
            Self.kit.transaction(id: "1", purchase: Self.t0, expires: nil),
            certificates: [Self.kit.leaf, Self.kit.intermediate, Self.kit.root, Self.kit.root])
        #expect(Self.code { _ = try AppStoreJWS.verify(four.utf8, policy: Self.policy, now: Self.now) } == .chainLengthInvalid)
        // {"alg":"none","x5c":[]} with a payload that is not JSON: refused for its algorithm, the payload never parsed.
        let none = Base64URL.encode(Array(#"{"alg":"none","x5c":[]}"#.utf8)) + "." + Base64URL.encode(Array("not json".utf8)) + "."
        #expect(Self.code { _ = try AppStoreJWS.verify(none.utf8, policy: Self.policy, now: Self.now) } == .algorithmNotAllowed)
    }

    @Test("a leaf the root signed directly, with a genuine intermediate beside it in x5c: refused (the chain must run through x5c[1])")
    func chainMustRunThroughTheIntermediate() throws {
        let rootKey = try PrivateKey(
            pkcs8DER: TestStoreKit.pkcs8(sec1PEM: AppleVectors.text("storekit/certs/testCA.key")), algorithm: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("CN", "leaf signed by the root itself")]), serialNumber: 77,
            notBefore: Date(timeIntervalSince1970: 1_700_000_000), notAfter: Date(timeIntervalSince1970: 1_900_000_000))
        builder.addExtension(oid: AppStoreOID.leaf, derValue: [0x05, 0x00])
        let direct = try builder.issue(publicKey: Self.kit.leafKey.publicKey, signedBy: rootKey, issuer: Self.kit.root)
        let jws = try TestJWS.sign(
            payload: TestJWS.json(Self.kit.transaction(id: "1", purchase: Self.t0, expires: nil)), key: Self.kit.leafKey,
            certificates: [direct, Self.kit.intermediate, Self.kit.root])
        // OpenSSL alone accepts it (leaf → root is a valid path); passkeyd's check on the built chain does not.
        let path = try ChainVerifier.verify(
            leaf: direct, intermediates: [Self.kit.intermediate], anchors: Self.policy.roots, options: ChainVerificationOptions(time: Self.now))
        #expect(path.count == 2)
        #expect(Self.code { _ = try AppStoreJWS.verify(jws, policy: Self.policy, now: Self.now) } == .chainUntrusted)
    }

    @Test("notification: outer and inner JWS verified; the transaction and renewal info come out")
    func notification() throws {
        let transaction = try Self.kit.sign(Self.kit.transaction(id: "2", original: "1", purchase: Self.t0, expires: Self.t0 + 30 * Self.day))
        let renewal = try Self.kit.sign(Self.kit.renewal(original: "1", signed: Self.t0, ["autoRenewStatus": 0, "expirationIntent": 1]))
        let signed = try Self.kit.sign(Self.kit.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "abc", signed: Self.t0,
            transaction: transaction, renewal: renewal))
        let notification = try AppStoreNotification.verify(signedPayload: signed.utf8, policy: Self.policy, now: Self.now)
        #expect(notification.notificationUUID == "abc")
        #expect(notification.subtype == "AUTO_RENEW_DISABLED")
        #expect(notification.transaction?.transactionID == "2")
        #expect(notification.renewalInfo?.autoRenewStatus == 0)
        #expect(notification.renewalInfo?.expirationIntent == 1)
    }

    @Test("notification refusals: inner JWS of another bundle, tampered inner JWS, mismatched renewal, no data")
    func notificationRefusals() throws {
        func verify(_ payload: [String: Any]) -> AppStoreError.Code? {
            Self.code { _ = try AppStoreNotification.verify(signedPayload: Self.kit.sign(payload).utf8, policy: Self.policy, now: Self.now) }
        }
        let otherBundle = try Self.kit.sign(Self.kit.transaction(id: "2", purchase: Self.t0, expires: nil, ["bundleId": "com.other"]))
        #expect(verify(Self.kit.notification(type: "ONE_TIME_CHARGE", signed: Self.t0, transaction: otherBundle)) == .bundleIDMismatch)
        var tampered = try Self.kit.sign(Self.kit.transaction(id: "2", purchase: Self.t0, expires: nil))
        tampered.removeLast(2)
        tampered += "AA"
        #expect(verify(Self.kit.notification(type: "ONE_TIME_CHARGE", signed: Self.t0, transaction: tampered)) == .signatureInvalid)
        let t = try Self.kit.sign(Self.kit.transaction(id: "2", original: "1", purchase: Self.t0, expires: Self.t0 + Self.day))
        let r = try Self.kit.sign(Self.kit.renewal(original: "9", signed: Self.t0))
        #expect(verify(Self.kit.notification(type: "DID_RENEW", signed: Self.t0, transaction: t, renewal: r)) == .payloadMalformed)
        var bare = Self.kit.notification(type: "TEST", signed: Self.t0)
        bare.removeValue(forKey: "data")
        #expect(verify(bare) == .payloadMalformed)
        #expect(verify(Self.kit.notification(type: "TEST", signed: Self.t0, ["bundleId": "com.other"])) == .bundleIDMismatch)
        #expect(verify(Self.kit.notification(type: "TEST", signed: Self.t0, ["environment": "Production"])) == .environmentMismatch)
        // appAppleId is checked on Production notifications; Sandbox ones carry none.
        var production = Self.policy
        production.environments = [.production, .sandbox]
        let wrongApp = try Self.kit.sign(Self.kit.notification(type: "TEST", signed: Self.t0, ["environment": "Production", "appAppleId": 99]))
        #expect(Self.code { _ = try AppStoreNotification.verify(signedPayload: wrongApp.utf8, policy: production, now: Self.now) } == .appAppleIDMismatch)
        let noApp = try Self.kit.sign(Self.kit.notification(type: "TEST", signed: Self.t0, ["environment": "Production", "appAppleId": NSNull()]))
        #expect(Self.code { _ = try AppStoreNotification.verify(signedPayload: noApp.utf8, policy: production, now: Self.now) } == .appAppleIDMismatch)
        let rightApp = try Self.kit.sign(Self.kit.notification(type: "TEST", signed: Self.t0, ["environment": "Production"]))
        #expect(Self.code { _ = try AppStoreNotification.verify(signedPayload: rightApp.utf8, policy: production, now: Self.now) } == nil)
        let sandbox = try Self.kit.sign(Self.kit.notification(type: "TEST", signed: Self.t0, ["appAppleId": NSNull()]))
        #expect(Self.code { _ = try AppStoreNotification.verify(signedPayload: sandbox.utf8, policy: production, now: Self.now) } == nil)
    }

    @Test("a notification about a product outside the allow-list is verified and recorded, its purchase left out")
    func ignoredProduct() throws {
        var policy = Self.policy
        policy.productIDs = ["com.example.monthly"]
        let coins = try Self.kit.sign(Self.kit.transaction(id: "7", product: "com.example.coins", purchase: Self.t0, expires: nil))
        let renewal = try Self.kit.sign(Self.kit.renewal(original: "7", signed: Self.t0))
        let signed = try Self.kit.sign(Self.kit.notification(type: "ONE_TIME_CHARGE", signed: Self.t0, transaction: coins, renewal: renewal))
        let notification = try AppStoreNotification.verify(signedPayload: signed.utf8, policy: policy, now: Self.now)
        #expect(notification.ignoredProductID == "com.example.coins")
        #expect(notification.transaction == nil && notification.renewalInfo == nil)
        // Posted by a backend, the same transaction is refused.
        #expect(Self.code { _ = try Self.transaction(Self.kit.transaction(id: "7", product: "com.example.coins", purchase: Self.t0, expires: nil), policy: policy) }
            == .productUnknown)
        // A tampered inner JWS is still refused, product or not.
        var tampered = coins
        tampered.removeLast(2)
        tampered += "AA"
        let bad = try Self.kit.sign(Self.kit.notification(type: "ONE_TIME_CHARGE", signed: Self.t0, transaction: tampered))
        #expect(Self.code { _ = try AppStoreNotification.verify(signedPayload: bad.utf8, policy: policy, now: Self.now) } == .signatureInvalid)
    }

    @Test("entitlements: latest renewal wins; grace period; upgraded; consumables left out; revocation takes effect at its date")
    func entitlements() throws {
        let first = try Self.transaction(Self.kit.transaction(id: "1", purchase: Self.t0, expires: Self.t0 + 30 * Self.day))
        let renewed = try Self.transaction(Self.kit.transaction(
            id: "2", original: "1", purchase: Self.t0 + 30 * Self.day, expires: Self.t0 + 60 * Self.day))
        let at = { (day: Int64) in Self.t0 + day * Self.day }
        var result = AppStoreEntitlements.compute(transactions: [renewed, first], renewals: [:], now: at(45))
        #expect(result.count == 1)
        #expect(result.first?.transaction.transactionID == "2")
        #expect(result.first?.status == .active)

        let grace = try AppStoreRenewalInfo(
            AppStoreJWS.verify(Self.kit.sign(Self.kit.renewal(original: "1", signed: at(60), [
                "isInBillingRetryPeriod": true, "gracePeriodExpiresDate": at(66),
            ])).utf8, policy: Self.policy, now: Self.now), policy: Self.policy)
        result = AppStoreEntitlements.compute(transactions: [renewed], renewals: ["1": grace], now: at(61))
        #expect(result.first?.status == .gracePeriod)
        #expect(result.first?.isActive == true)
        result = AppStoreEntitlements.compute(transactions: [renewed], renewals: ["1": grace], now: at(66))
        #expect(result.first?.status == .expired)
        // Expiry is exact: active until the millisecond before expiresDate.
        #expect(AppStoreEntitlements.compute(transactions: [renewed], renewals: [:], now: at(60) - 1).first?.status == .active)
        #expect(AppStoreEntitlements.compute(transactions: [renewed], renewals: [:], now: at(60)).first?.status == .expired)

        let upgraded = try Self.transaction(Self.kit.transaction(
            id: "3", purchase: Self.t0, expires: at(30), ["isUpgraded": true]))
        #expect(AppStoreEntitlements.compute(transactions: [upgraded], renewals: [:], now: at(1)).first?.status == .upgraded)

        let consumable = try Self.transaction(Self.kit.transaction(id: "4", product: "com.example.coins", purchase: Self.t0, expires: nil, ["type": "Consumable"]))
        #expect(AppStoreEntitlements.compute(transactions: [consumable], renewals: [:], now: at(1)).isEmpty)

        let refunded = try Self.transaction(Self.kit.transaction(
            id: "5", product: "com.example.lifetime", purchase: Self.t0, expires: nil, ["revocationDate": at(5), "revocationReason": 1]))
        #expect(AppStoreEntitlements.compute(transactions: [refunded], renewals: [:], now: at(5) - 1).first?.status == .active)
        #expect(AppStoreEntitlements.compute(transactions: [refunded], renewals: [:], now: at(5)).first?.status == .revoked)
    }

    @Test("the latest transaction is a total order: purchaseDate, then expiresDate, then signedDate, then transactionId; any input order")
    func latestTransactionOrder() throws {
        let at = { (day: Int64) in Self.t0 + day * Self.day }
        func make(_ id: String, purchase: Int64, expires: Int64?, signed: Int64) throws -> AppStoreTransaction {
            try Self.transaction(Self.kit.transaction(id: id, original: "100", purchase: purchase, expires: expires, ["signedDate": signed]))
        }
        func latest(_ transactions: [AppStoreTransaction]) -> [String] {
            // Every order of the input gives one answer.
            let orders = [transactions, transactions.reversed()] + transactions.indices.map { Array(transactions[$0...] + transactions[..<$0]) }
            return Array(Set(orders.map {
                AppStoreEntitlements.compute(transactions: $0, renewals: [:], now: at(1)).first?.transaction.transactionID ?? "-"
            })).sorted()
        }
        // Tied on purchaseDate and signedDate: the later expiresDate wins, although its transaction id is the smaller
        // (the id alone, or the order the rows come in, would pick the other). Its status follows it.
        let longer = try make("101", purchase: at(0), expires: at(30), signed: at(0))
        let shorter = try make("102", purchase: at(0), expires: at(7), signed: at(0))
        #expect(latest([longer, shorter]) == ["101"])
        #expect(AppStoreEntitlements.compute(transactions: [shorter, longer], renewals: [:], now: at(10)).first?.status == .active)
        #expect(AppStoreEntitlements.compute(transactions: [longer, shorter], renewals: [:], now: at(10)).first?.status == .active)
        // A later purchaseDate outranks a later expiresDate.
        let newer = try make("103", purchase: at(1), expires: at(2), signed: at(1))
        #expect(latest([longer, shorter, newer]) == ["103"])
        // Tied on purchaseDate and expiresDate: the later signedDate.
        let resigned = try make("099", purchase: at(0), expires: at(30), signed: at(3))
        #expect(latest([longer, resigned, shorter]) == ["099"])
        // Tied on all three dates: the greater transaction id as a number ("1000" > "999", though it sorts first as text).
        let a = try make("999", purchase: at(0), expires: at(30), signed: at(0))
        let b = try make("1000", purchase: at(0), expires: at(30), signed: at(0))
        #expect(latest([a, b]) == ["1000"])
        #expect(AppStoreEntitlements.isLater(b, than: a) && !AppStoreEntitlements.isLater(a, than: b) && !AppStoreEntitlements.isLater(a, than: a))
        // An absent expiresDate or signedDate counts as the earliest.
        let undated = try Self.transaction(Self.kit.transaction(id: "104", original: "100", purchase: at(0), expires: at(30), ["signedDate": NSNull()]))
        #expect(undated.signedDate == nil)
        #expect(latest([undated, longer]) == ["101"])
    }

    @Test("appAccountToken: a version 8 RFC 9562 UUID derived from the user handle, stable and distinct per user")
    func appAccountToken() {
        let a = AppAccountToken.derive(userHandle: Array(repeating: 1, count: 32))
        let b = AppAccountToken.derive(userHandle: Array(repeating: 2, count: 32))
        #expect(a != b)
        #expect(a == AppAccountToken.derive(userHandle: Array(repeating: 1, count: 32)))
        #expect(UUID(uuidString: a) != nil)
        let characters = Array(a)
        #expect(characters[14] == "8")  // version nibble
        #expect("89ab".contains(characters[19]))  // variant 10xx
        // Known value: SHA-256("passkeyd-app-account-token:" ‖ 32 × 0x01), first 16 bytes with the bits set.
        #expect(a == Self.expectedToken)
    }

    /// Computed outside Swift: python3 -c "import hashlib; b=bytearray(hashlib.sha256(b'passkeyd-app-account-token:'+bytes([1]*32)).digest()[:16]); b[6]=b[6]&15|128; b[8]=b[8]&63|128; print(b.hex())"
    static let expectedToken = "00016cdc-8c1c-8288-a938-be728a51e082"
}
