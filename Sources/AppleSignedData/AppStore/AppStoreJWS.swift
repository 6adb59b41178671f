public import COSECrypto
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import JOSE
import PasskeyErrors  // JOSEError.description (CodedError)
public import WebAuthnModel

/// A StoreKit / App Store Server JWS whose signature and chain have been verified (or, under an unsafe policy,
/// Xcode / LocalTesting data decoded without them: see ``appleSigned``).
public struct VerifiedAppStoreJWS: Sendable {
    /// The payload's members.
    public let payload: [String: JSONValue]
    /// The payload bytes exactly as signed.
    public let payloadBytes: [UInt8]
    /// Whether Apple's chain and signature were verified (false only for local environments under an unsafe policy).
    public let appleSigned: Bool
}

/// The App Store Server Library's JWS checks, offline: ES256 only; `x5c` of exactly three certificates; leaf and
/// intermediate from `x5c` verified with OpenSSL's X509_STORE against the configured roots only (never `x5c[2]`) at the
/// payload's `signedDate`, or at `now` without one; the built chain exactly leaf → intermediate → root; Apple's OIDs
/// on leaf and intermediate; the signature with the leaf's P-256 key.
public enum AppStoreJWS {
    /// Verifies a compact JWS.
    /// - Parameters:
    ///   - compact: the JWS as sent (`signedTransaction`, `signedRenewalInfo`, `signedPayload`, …).
    ///   - policy: roots, size cap, and whether local environments are decoded unsigned.
    ///   - now: the clock, for data that carries no `signedDate`.
    /// - Returns: the verified payload.
    /// - Throws: ``AppStoreError`` with the first failing check's code.
    public static func verify(_ compact: some Collection<UInt8>, policy: AppStorePolicy, now: Date) throws(AppStoreError) -> VerifiedAppStoreJWS {
        let jws: CompactJWS
        let x5c: [Certificate]?
        do {
            jws = try CompactJWS(compact: compact, maxLength: policy.maxJWSBytes)
            x5c = try jws.certificates(maxCount: 8)
        } catch {
            throw AppStoreError(.jwsMalformed, error.description)
        }
        // Apple's libraries skip every signature check for these environments; passkeyd only under an unsafe policy.
        if policy.acceptsUnsignedLocalEnvironments {
            let payload = try payloadObject(jws.payload)
            if let name = payload["environment"]?.stringValue, let environment = AppStoreEnvironment(rawValue: name),
                !environment.isAppleSigned
            {
                return VerifiedAppStoreJWS(payload: payload, payloadBytes: jws.payload, appleSigned: false)
            }
        }

        guard let x5c else { throw AppStoreError(.jwsMalformed, "JWS header has no x5c") }
        do {
            _ = try JWSVerifier.allowedAlgorithm(of: jws, allowed: [.es256])
        } catch {
            throw AppStoreError(.algorithmNotAllowed, "alg \(jws.algorithmName.prefix(16).debugDescription) is not ES256")
        }
        // The payload (for its signedDate, the chain's time) is read before the signature holds, as Apple's libraries
        // do; nothing else of it is used until then.
        let payload = try payloadObject(jws.payload)
        guard x5c.count == 3 else { throw AppStoreError(.chainLengthInvalid, "x5c holds \(x5c.count) certificates, not 3") }
        let leaf = x5c[0]
        let intermediate = x5c[1]  // x5c[2] must be a certificate (checked by the decoder) but is never trusted

        guard leaf.certificateExtension(oid: AppStoreOID.leaf) != nil else {
            throw AppStoreError(.leafOIDMissing, "leaf has no \(AppStoreOID.leaf)")
        }
        guard intermediate.certificateExtension(oid: AppStoreOID.intermediate) != nil else {
            throw AppStoreError(.intermediateOIDMissing, "intermediate has no \(AppStoreOID.intermediate)")
        }

        let time = try signedDate(payload).map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
        let built: [Certificate]
        do {
            built = try ChainVerifier.verify(
                leaf: leaf, intermediates: [intermediate], anchors: policy.roots, options: ChainVerificationOptions(time: time))
        } catch where error.code == .chainExpired || error.code == .chainNotYetValid {
            throw AppStoreError(.chainExpired, "at \(time): \(error.reason)")
        } catch {
            throw AppStoreError(.chainUntrusted, error.reason)
        }
        // OpenSSL stops at the first anchor it reaches: a leaf signed directly by the root, or an "intermediate" that
        // is itself a configured root, builds a shorter chain that must not pass for Apple's three.
        guard built.count == 3, built[0] == leaf, built[1] == intermediate else {
            throw AppStoreError(.chainUntrusted, "the chain built is \(built.count) certificates, not leaf → intermediate → root")
        }

        let key: PublicKey
        do {
            key = try leaf.publicKey()
        } catch {
            throw AppStoreError(.signatureInvalid, "leaf key: \(error.reason)")
        }
        do {
            try JWSVerifier.verify(jws, algorithm: .es256, key: .publicKey(key))
        } catch {
            throw AppStoreError(.signatureInvalid, error.reason)
        }
        return VerifiedAppStoreJWS(payload: payload, payloadBytes: jws.payload, appleSigned: true)
    }

    static func payloadObject(_ bytes: [UInt8]) throws(AppStoreError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes, maxDepth: 8)
        } catch {
            throw AppStoreError(.payloadMalformed, "payload is not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw AppStoreError(.payloadMalformed, "payload is not a JSON object") }
        return members
    }

    /// `signedDate` in Unix milliseconds, when present.
    static func signedDate(_ payload: [String: JSONValue]) throws(AppStoreError) -> Int64? {
        try AppStoreFields(payload, "payload").optionalMilliseconds("signedDate")
    }
}

/// Typed reads of a payload's members; every wrong type is ``AppStoreError/Code/payloadMalformed``.
struct AppStoreFields {
    let members: [String: JSONValue]
    let what: String

    init(_ members: [String: JSONValue], _ what: String) {
        self.members = members
        self.what = what
    }

    func string(_ key: String) throws(AppStoreError) -> String {
        guard let value = try optionalString(key) else { throw AppStoreError(.payloadMalformed, "\(what) has no \(key)") }
        return value
    }

    func optionalString(_ key: String) throws(AppStoreError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw AppStoreError(.payloadMalformed, "\(what).\(key) is not a string")
        }
    }

    /// A date in Unix milliseconds. Apple sends integers; StoreKit Testing in Xcode sends fractions (truncated here).
    func optionalMilliseconds(_ key: String) throws(AppStoreError) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .number(let value)?:
            guard value.isFinite, value >= 0, value < 253_402_300_800_000 else {  // before year 10000
                throw AppStoreError(.payloadMalformed, "\(what).\(key) is not a date in milliseconds")
            }
            return Int64(value)
        default: throw AppStoreError(.payloadMalformed, "\(what).\(key) is not a number")
        }
    }

    func milliseconds(_ key: String) throws(AppStoreError) -> Int64 {
        guard let value = try optionalMilliseconds(key) else { throw AppStoreError(.payloadMalformed, "\(what) has no \(key)") }
        return value
    }

    func optionalInteger(_ key: String) throws(AppStoreError) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .number(let value)?:
            guard value.isFinite, value.rounded() == value, abs(value) < 9_007_199_254_740_992 else {
                throw AppStoreError(.payloadMalformed, "\(what).\(key) is not an integer")
            }
            return Int64(value)
        default: throw AppStoreError(.payloadMalformed, "\(what).\(key) is not a number")
        }
    }

    func optionalBool(_ key: String) throws(AppStoreError) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw AppStoreError(.payloadMalformed, "\(what).\(key) is not a boolean")
        }
    }

    func optionalObject(_ key: String) throws(AppStoreError) -> [String: JSONValue]? {
        switch members[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw AppStoreError(.payloadMalformed, "\(what).\(key) is not an object")
        }
    }
}
