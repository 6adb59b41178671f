public import PasskeyErrors

/// Why App Store signed data was refused: one stable code per check, in the order they run. Equality compares only
/// ``code``; ``reason`` is for logs and never holds the signed data itself.
public struct AppStoreError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // The JWS, checked in this order (Apple's App Store Server Library's checks, offline).
        /// Not a compact JWS with a JSON header, over the size cap, or `x5c` missing or not base64 DER certificates.
        public static let jwsMalformed = Code(rawValue: "appstore_jws_malformed")
        /// `alg` is not ES256 (`none`, ES384, HMAC … all refused).
        public static let algorithmNotAllowed = Code(rawValue: "appstore_algorithm_not_allowed")
        /// The payload is not a JSON object with the members of its kind, of the right types.
        public static let payloadMalformed = Code(rawValue: "appstore_payload_malformed")
        /// `x5c` does not hold exactly three certificates.
        public static let chainLengthInvalid = Code(rawValue: "appstore_chain_length_invalid")
        /// The leaf lacks 1.2.840.113635.100.6.11.1 (Apple's receipt-signing marker).
        public static let leafOIDMissing = Code(rawValue: "appstore_leaf_oid_missing")
        /// The intermediate lacks 1.2.840.113635.100.6.2.1 (Apple WWDR intermediate marker).
        public static let intermediateOIDMissing = Code(rawValue: "appstore_intermediate_oid_missing")
        /// Leaf and intermediate do not chain to the configured root (which is never taken from `x5c[2]`), or the
        /// chain OpenSSL built is not exactly leaf → intermediate → root.
        public static let chainUntrusted = Code(rawValue: "appstore_chain_untrusted")
        /// A certificate of the chain is expired or not yet valid at the payload's `signedDate` (or now without one).
        public static let chainExpired = Code(rawValue: "appstore_chain_expired")
        /// The signature does not verify with the leaf's P-256 key.
        public static let signatureInvalid = Code(rawValue: "appstore_signature_invalid")

        // The payload, once the signature holds.
        /// `bundleId` is not the configured one.
        public static let bundleIDMismatch = Code(rawValue: "appstore_bundle_id_mismatch")
        /// `appAppleId` is not the configured one (notifications, when Production is accepted).
        public static let appAppleIDMismatch = Code(rawValue: "appstore_app_apple_id_mismatch")
        /// `environment` is not one of the accepted ones (Xcode and LocalTesting only when explicitly, unsafely, allowed).
        public static let environmentMismatch = Code(rawValue: "appstore_environment_mismatch")
        /// `productId` is not in the configured allow-list (when one is configured).
        public static let productUnknown = Code(rawValue: "appstore_product_unknown")
        /// The transaction's `appAccountToken` is set and is not the token of the user it is posted for. (A purchase
        /// kept for another user is the store's `appstore_transaction_owned_elsewhere`.)
        public static let appAccountTokenMismatch = Code(rawValue: "appstore_app_account_token_mismatch")

        /// Every code above, in declaration order (an open set has no `allCases`; a test checks this list against
        /// the declarations).
        public static let all: [Code] = [
            .jwsMalformed, .algorithmNotAllowed, .payloadMalformed, .chainLengthInvalid, .leafOIDMissing,
            .intermediateOIDMissing, .chainUntrusted, .chainExpired, .signatureInvalid, .bundleIDMismatch,
            .appAppleIDMismatch, .environmentMismatch, .productUnknown, .appAccountTokenMismatch,
        ]
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
