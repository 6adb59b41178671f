// OpenSSL error-queue handling for the whole COSECrypto module (keys, signatures and the X.509 code in X509/).
//
// The rule, used by every OpenSSL call site in this module:
//   1. `clearOpenSSLErrors()` right before an operation, so nothing left over from an earlier call on this thread
//      is blamed on it;
//   2. after a failing call, `CryptoError.fromOpenSSL(code, "what failed")` (or `drainOpenSSLErrors()` directly), which
//      empties this thread's queue into the error's `reason`.
// An operation whose failure is an ordinary outcome (a signature that does not verify) calls `clearOpenSSLErrors()`
// after it instead, so the queue never grows and never leaks into a later report.
//
// OpenSSL keeps one error queue per thread, so none of this needs locking.

internal import COpenSSL

/// Empties this thread's OpenSSL error queue without reading it.
@inline(__always)
internal func clearOpenSSLErrors() {
    ERR_clear_error()
}

/// Empties this thread's OpenSSL error queue and returns its entries as text, oldest first, joined by "; ".
///
/// Each entry reads like `error:1E08010C:DECODER routines::unsupported` plus OpenSSL's optional detail text. At most
/// 16 entries are kept (the queue itself holds no more); an empty queue gives `""`.
internal func drainOpenSSLErrors() -> String {
    var entries: [String] = []
    while true {
        var data: UnsafePointer<CChar>? = nil
        var flags: Int32 = 0
        let code = unsafe ERR_get_error_all(nil, nil, nil, &data, &flags)
        if code == 0 { break }
        guard entries.count < 16 else { continue }  // keep draining, stop collecting
        var buffer = [CChar](repeating: 0, count: 256)
        let text = unsafe buffer.withUnsafeMutableBufferPointer { buf -> String in
            guard let base = buf.baseAddress else { return "error:\(code)" }
            unsafe ERR_error_string_n(code, base, buf.count)
            return unsafe String(cString: base)
        }
        if let data = unsafe data, (flags & ERR_TXT_STRING) != 0 {
            let detail = unsafe String(cString: data)
            entries.append(detail.isEmpty ? text : "\(text) (\(detail))")
        } else {
            entries.append(text)
        }
    }
    return entries.joined(separator: "; ")
}

extension CryptoError {
    /// Builds an error for a failed OpenSSL call: `reason` is `context` followed by the drained error queue.
    ///
    /// - Parameters:
    ///   - code: The error code to report (`.openSSL` for internal library failures, or a more specific code such as
    ///     `.pointNotOnCurve` when the failing call is known to mean that).
    ///   - context: What was being done, e.g. `"EVP_DigestVerifyInit"`.
    internal static func fromOpenSSL(_ code: Code, _ context: String) -> CryptoError {
        let queue = drainOpenSSLErrors()
        return CryptoError(code: code, reason: queue.isEmpty ? context : "\(context): \(queue)")
    }
}
