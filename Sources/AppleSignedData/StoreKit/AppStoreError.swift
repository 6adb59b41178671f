/// Why App Store signed data was refused: one stable code per check, in the order they run. Equality compares only
/// ``code``; ``reason`` is for logs and never holds the signed data itself.
public struct AppStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // The JWS, checked in this order (Apple's App Store Server Library's checks, offline).
        /// Not a compact JWS with a JSON header, over the size cap, or `x5c` missing or not base64 DER certificates.
        case jwsMalformed = "appstore_jws_malformed"
        /// `alg` is not ES256 (`none`, ES384, HMAC … all refused).
        case algorithmNotAllowed = "appstore_algorithm_not_allowed"
        /// The payload is not a JSON object with the members of its kind, of the right types.
        case payloadMalformed = "appstore_payload_malformed"
        /// `x5c` does not hold exactly three certificates.
        case chainLengthInvalid = "appstore_chain_length_invalid"
        /// The leaf lacks 1.2.840.113635.100.6.11.1 (Apple's receipt-signing marker).
        case leafOIDMissing = "appstore_leaf_oid_missing"
        /// The intermediate lacks 1.2.840.113635.100.6.2.1 (Apple WWDR intermediate marker).
        case intermediateOIDMissing = "appstore_intermediate_oid_missing"
        /// Leaf and intermediate do not chain to the configured root (which is never taken from `x5c[2]`), or the
        /// chain OpenSSL built is not exactly leaf → intermediate → root.
        case chainUntrusted = "appstore_chain_untrusted"
        /// A certificate of the chain is expired or not yet valid at the payload's `signedDate` (or now without one).
        case chainExpired = "appstore_chain_expired"
        /// The signature does not verify with the leaf's P-256 key.
        case signatureInvalid = "appstore_signature_invalid"

        // The payload, once the signature holds.
        /// `bundleId` is not the configured one.
        case bundleIDMismatch = "appstore_bundle_id_mismatch"
        /// `appAppleId` is not the configured one (notifications, when Production is accepted).
        case appAppleIDMismatch = "appstore_app_apple_id_mismatch"
        /// `environment` is not one of the accepted ones (Xcode and LocalTesting only when explicitly, unsafely, allowed).
        case environmentMismatch = "appstore_environment_mismatch"
        /// `productId` is not in the configured allow-list (when one is configured).
        case productUnknown = "appstore_product_unknown"
        /// The transaction's `appAccountToken` is set and is not the token of the user it is posted for. (A purchase
        /// kept for another user is the store's `appstore_transaction_owned_elsewhere`.)
        case appAccountTokenMismatch = "appstore_app_account_token_mismatch"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: AppStoreError, rhs: AppStoreError) -> Bool { lhs.code == rhs.code }
}
