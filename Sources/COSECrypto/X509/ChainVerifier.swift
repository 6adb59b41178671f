internal import COpenSSL

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The certificates a chain must end at. Nothing else is trusted: no system store, no default paths.
public struct TrustAnchors: Sendable {
    /// The anchors, in the order given.
    public var certificates: [Certificate]

    /// Creates a set of anchors.
    /// - Parameter certificates: the trusted certificates (normally self-signed roots; see
    ///   ``ChainVerificationOptions/allowPartialChain`` for intermediates).
    public init(_ certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// Loads every `CERTIFICATE` block of each PEM file.
    /// - Parameter paths: file paths.
    /// - Returns: all certificates of all files, in order.
    /// - Throws: the file read error, or ``CertificateError`` (``CertificateError/Code/malformedPEM`` when a file
    ///   holds no certificate).
    public static func loadPEMFiles(_ paths: [String]) throws -> TrustAnchors {
        var certificates: [Certificate] = []
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let text = String(data: data, encoding: .utf8) else {
                throw CertificateError(code: .malformedPEM, reason: "\(path) is not UTF-8 text")
            }
            do {
                certificates += try Certificate.parsePEM(text)
            } catch {
                throw CertificateError(code: error.code, reason: "\(path): \(error.reason)")
            }
        }
        return TrustAnchors(certificates)
    }
}

/// Settings for one chain verification.
public struct ChainVerificationOptions: Sendable {
    /// The time at which every certificate must be valid (`X509_VERIFY_PARAM_set_time`, whole seconds, rounded
    /// down). Always explicit: the system clock is never consulted. OpenSSL treats notBefore as inclusive and
    /// notAfter as exclusive (a certificate is expired at exactly its notAfter second).
    public var time: Date
    /// Also accept a chain that ends at an anchor which is not self-signed, e.g. an intermediate configured as
    /// anchor (`X509_V_FLAG_PARTIAL_CHAIN`). Off by default.
    public var allowPartialChain: Bool = false
    /// Maximum number of intermediate CA certificates between the leaf and the anchor
    /// (`X509_VERIFY_PARAM_set_depth`; neither the leaf nor the anchor counts).
    public var maxDepth: Int = 5

    /// Creates options.
    /// - Parameters:
    ///   - time: the verification time.
    ///   - allowPartialChain: trust non-self-signed anchors.
    public init(time: Date, allowPartialChain: Bool = false) {
        self.time = time
        self.allowPartialChain = allowPartialChain
    }
}

/// Chain verification with OpenSSL `X509_STORE` / `X509_STORE_CTX` against explicit trust anchors.
public enum ChainVerifier {
    /// Builds and verifies leaf → intermediates → anchor.
    ///
    /// The store holds only `anchors`; `intermediates` are untrusted helpers that may be used to build the path
    /// (a self-signed certificate among them is *not* trusted). No network access (no AIA or CRL fetching), no
    /// revocation checking, no purpose/EKU checking; critical extensions OpenSSL does not understand fail the
    /// chain. OpenSSL's issuer matching also compares the child's authorityKeyIdentifier with the candidate's
    /// subjectKeyIdentifier when both are present, so a mismatch means "issuer not found" (``CertificateError/Code/chainUntrusted``)
    /// even when the candidate's key verifies the signature. A certificate whose signature BIT STRING has
    /// non-zero unused bits fails the signature check (OpenSSL 3: "invalid bit string bits left"). Strict mode
    /// (`X509_V_FLAG_X509_STRICT`) is not enabled; format-specific certificate rules are the caller's job.
    ///
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: candidate intermediates, any order.
    ///   - anchors: the trust anchors.
    ///   - options: verification time and flags.
    /// - Returns: the chain OpenSSL built, leaf first, anchor last (the same `Certificate` instances passed in).
    /// - Throws: ``CertificateError/Code/chainExpired``, ``CertificateError/Code/chainNotYetValid``,
    ///   ``CertificateError/Code/chainUntrusted`` (no path to an anchor: issuer not found, self-signed certificate
    ///   that is not an anchor, leaf signature unverifiable), ``CertificateError/Code/chainSignatureInvalid``, or
    ///   ``CertificateError/Code/chainInvalid`` with OpenSSL's verify error string and depth in the reason.
    public static func verify(
        leaf: Certificate,
        intermediates: [Certificate],
        anchors: TrustAnchors,
        options: ChainVerificationOptions
    ) throws(CertificateError) -> [Certificate] {
        guard let time = x509TimeT(options.time) else {
            throw CertificateError(code: .chainInvalid, reason: "verification time out of range")
        }
        guard options.maxDepth >= 0, options.maxDepth <= 64 else {
            throw CertificateError(code: .chainInvalid, reason: "maxDepth \(options.maxDepth) out of range 0...64")
        }
        guard !anchors.certificates.isEmpty else {
            throw CertificateError(code: .chainUntrusted, reason: "no trust anchors")
        }
        clearOpenSSLErrors()

        // One owner per C object: store, untrusted stack (holds its own references), context.
        guard let store = unsafe X509_STORE_new() else {
            throw CertificateError(code: .chainInvalid, reason: "X509_STORE_new: \(drainOpenSSLErrors())")
        }
        defer { unsafe X509_STORE_free(store) }
        for anchor in anchors.certificates {
            // X509_STORE_add_cert takes its own reference; adding the same certificate twice is not an error
            // in OpenSSL 3.
            guard unsafe X509_STORE_add_cert(store, anchor.x509) == 1 else {
                throw CertificateError(code: .chainInvalid, reason: "X509_STORE_add_cert: \(drainOpenSSLErrors())")
            }
        }

        guard let untrusted = unsafe passkeyd_x509_sk_X509_new_null() else {
            throw CertificateError(code: .chainInvalid, reason: "sk_X509_new_null: \(drainOpenSSLErrors())")
        }
        defer { unsafe passkeyd_x509_sk_X509_pop_free(untrusted) }
        for certificate in intermediates {
            guard unsafe X509_up_ref(certificate.x509) == 1 else {
                throw CertificateError(code: .chainInvalid, reason: "X509_up_ref: \(drainOpenSSLErrors())")
            }
            guard unsafe passkeyd_x509_sk_X509_push(untrusted, certificate.x509) > 0 else {
                unsafe X509_free(certificate.x509)  // the reference taken above, which the stack did not accept
                throw CertificateError(code: .chainInvalid, reason: "sk_X509_push: \(drainOpenSSLErrors())")
            }
        }

        guard let context = unsafe X509_STORE_CTX_new() else {
            throw CertificateError(code: .chainInvalid, reason: "X509_STORE_CTX_new: \(drainOpenSSLErrors())")
        }
        defer { unsafe X509_STORE_CTX_free(context) }
        guard unsafe X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            throw CertificateError(code: .chainInvalid, reason: "X509_STORE_CTX_init: \(drainOpenSSLErrors())")
        }
        guard let parameters = unsafe X509_STORE_CTX_get0_param(context) else {
            throw CertificateError(code: .chainInvalid, reason: "X509_STORE_CTX_get0_param")
        }
        unsafe X509_VERIFY_PARAM_set_time(parameters, time)  // also sets X509_V_FLAG_USE_CHECK_TIME
        unsafe X509_VERIFY_PARAM_set_depth(parameters, Int32(options.maxDepth))
        if options.allowPartialChain {
            guard unsafe X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1 else {
                throw CertificateError(code: .chainInvalid, reason: "X509_VERIFY_PARAM_set_flags")
            }
        }

        let result = unsafe X509_verify_cert(context)
        guard result == 1 else {
            let code = unsafe X509_STORE_CTX_get_error(context)
            let depth = unsafe X509_STORE_CTX_get_error_depth(context)
            let text = unsafe X509_verify_cert_error_string(Int(code)).map { unsafe String(cString: $0) } ?? "?"
            let queue = drainOpenSSLErrors()
            let reason = "OpenSSL verify error \(code) at depth \(depth): \(text)" + (queue.isEmpty ? "" : " [\(queue)]")
            throw CertificateError(code: mapVerifyError(code, result: result), reason: reason)
        }

        clearOpenSSLErrors()  // success can leave diagnostics (e.g. from extension caching) behind

        // Map the built chain back to the caller's Certificate instances (the store and the untrusted stack
        // hold the very same X509 objects). Copy defensively if OpenSSL ever substitutes another object.
        guard let chain = unsafe X509_STORE_CTX_get0_chain(context) else {
            throw CertificateError(code: .chainInvalid, reason: "no chain after successful verification")
        }
        let known = [leaf] + intermediates + anchors.certificates
        var built: [Certificate] = []
        for index in 0..<max(unsafe passkeyd_x509_sk_X509_num(chain), 0) {
            guard let element = unsafe passkeyd_x509_sk_X509_value(chain, index) else {
                throw CertificateError(code: .chainInvalid, reason: "chain element \(index) missing")
            }
            if let match = known.first(where: { unsafe $0.x509 == element }) {
                built.append(match)
            } else {
                guard let der = unsafe x509EncodeDER({ unsafe i2d_X509(element, $0) }) else {
                    throw CertificateError(code: .chainInvalid, reason: "i2d_X509 of chain element \(index): \(drainOpenSSLErrors())")
                }
                do {
                    built.append(try Certificate(derEncoded: der))
                } catch {
                    throw CertificateError(code: .chainInvalid, reason: "chain element \(index): \(error.reason)")
                }
            }
        }
        return withExtendedLifetime((leaf, intermediates, anchors)) { built }
    }

    /// The mapping from `X509_V_ERR_*` to error codes.
    private static func mapVerifyError(_ code: Int32, result: Int32) -> CertificateError.Code {
        if result < 0 { return .chainInvalid }  // internal error (bad arguments, out of memory)
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .chainExpired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .chainNotYetValid
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
            X509_V_ERR_CERT_UNTRUSTED:
            return .chainUntrusted
        case X509_V_ERR_CERT_SIGNATURE_FAILURE:
            return .chainSignatureInvalid
        default:
            return .chainInvalid
        }
    }
}
