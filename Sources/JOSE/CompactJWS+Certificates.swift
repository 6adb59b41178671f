public import COSECrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CompactJWS {
    /// The header's `x5c` as certificates, leaf first (RFC 7515 §4.1.6: standard base64 DER): the one decoder of `x5c`
    /// for SafetyNet, the MDS BLOB and App Store data. Nothing about the chain is checked here.
    /// - Returns: the certificates, or nil when the header has no `x5c`.
    /// - Throws: ``JOSEError/Code/malformed`` when `x5c` is not an array of strings, an entry is not base64 or not a
    ///   certificate, or there are more than `maxCount`.
    public func certificates(maxCount: Int) throws(JOSEError) -> [Certificate]? {
        guard let entries = try certificateChain() else { return nil }
        guard entries.count <= maxCount else { throw JOSEError(.malformed, "JWS header x5c has \(entries.count) entries, more than \(maxCount)") }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let der = Data(base64Encoded: entry), !der.isEmpty else {
                throw JOSEError(.malformed, "x5c[\(index)] is not base64")
            }
            do {
                certificates.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw JOSEError(.malformed, "x5c[\(index)] is not a certificate: \(error.reason)")
            }
        }
        return certificates
    }
}
