import AppleSignedData
import COSECrypto
import Foundation

/// The `appstore` target: a compact JWS through App Store verification (as a notification, a transaction and renewal
/// information) under the vectors' test root (`PASSKEYD_FUZZ_ROOTS/../apple/storekit/certs/testCA.pem`), bundle
/// `com.example`, Sandbox and Production, so the seeded StoreKit JWS reach the chain, signature and payload checks.
extension FuzzTarget {
    static let appStorePolicy: AppStorePolicy = {
        var roots: [Certificate] = []
        if let base = ProcessInfo.processInfo.environment["PASSKEYD_FUZZ_ROOTS"] {
            let path = URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent("apple/storekit/certs/testCA.pem").path
            if let data = FileManager.default.contents(atPath: path), let parsed = try? Certificate.parsePEM(String(decoding: data, as: UTF8.self)) {
                roots = parsed
            }
        }
        return AppStorePolicy(roots: TrustAnchors(roots), bundleID: "com.example", appAppleID: 1234, environments: [.sandbox, .production])
    }()

    /// 2026-01-15, inside the test chain's validity, for JWS without a signedDate.
    static let appStoreNow = Date(timeIntervalSince1970: 1_768_435_200)

    /// Verify as a notification, as a transaction, as renewal information; accepted when any succeeds.
    static func appStore(_ input: [UInt8]) -> Bool {
        var accepted = false
        do {
            _ = try AppStoreNotification.verify(signedPayload: input, policy: appStorePolicy, now: appStoreNow)
            accepted = true
        } catch {
            _ = error.code
        }
        do {
            let verified = try AppStoreJWS.verify(input, policy: appStorePolicy, now: appStoreNow)
            if (try? AppStoreTransaction(verified, policy: appStorePolicy)) != nil { accepted = true }
            if (try? AppStoreRenewalInfo(verified, policy: appStorePolicy)) != nil { accepted = true }
        } catch {
            _ = error.code
        }
        return accepted
    }
}
