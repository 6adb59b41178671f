internal import CLibPQ

// libpq helpers for passing Swift values in (C strings, parameter arrays) and copying strings out. With
// LibPQResults.swift and the PGConnection files, the only code that touches libpq pointers. Every pointer here
// is borrowed for the duration of one call; none is freed here.

/// Throws if `text` cannot be passed as a C string without being cut at a NUL byte.
func checkText(_ text: String, what: String) throws(PGError) {
    guard !text.utf8.contains(0) else {
        throw PGError(code: .invalidArgument, message: "\(what) contains a NUL byte")
    }
}

/// Calls `body` with NUL-terminated copies of `strings`, valid only during the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>]) -> R) -> R {
    var buffer: [UInt8] = []
    var offsets: [Int] = []
    for string in strings {
        offsets.append(buffer.count)
        buffer.append(contentsOf: string.utf8)
        buffer.append(0)
    }
    buffer.append(0)  // never empty, so there is always a base address
    return unsafe buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else {
            preconditionFailure("a non-empty array has a base address")
        }
        let pointers = unsafe offsets.map { unsafe (base + $0).assumingMemoryBound(to: CChar.self) }
        return unsafe body(pointers)
    }
}

/// Calls `body` with libpq's parallel parameter arrays (values, lengths, formats, type OIDs), all valid only
/// during the call. Every format is binary (1); a NULL parameter has a nil value pointer. A non-NULL empty
/// value (an empty `bytea` or `text`) gets a valid pointer with length 0: libpq would read nil as NULL.
func withParameters<R>(
    _ parameters: [PGBindings.Value],
    _ body: ([UnsafePointer<CChar>?], [Int32], [Int32], [Oid]) -> R
) -> R {
    var buffer: [UInt8] = []
    var offsets: [Int?] = []
    var lengths: [Int32] = []
    for parameter in parameters {
        if let bytes = parameter.bytes {
            offsets.append(buffer.count)
            // checkedParameters limits the count; appendLengthPrefixed-style framing caps values at 2 GiB.
            lengths.append(Int32(clamping: bytes.count))
            buffer.append(contentsOf: bytes)
        } else {
            offsets.append(nil)
            lengths.append(0)
        }
    }
    buffer.append(0)  // never empty: an empty value at the end still points into the buffer
    let formats = [Int32](repeating: 1, count: parameters.count)
    let types = parameters.map { Oid($0.type.rawValue) }
    return unsafe buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else {
            preconditionFailure("a non-empty array has a base address")
        }
        let values: [UnsafePointer<CChar>?] = unsafe offsets.map { offset in
            unsafe offset.map { unsafe (base + $0).assumingMemoryBound(to: CChar.self) }
        }
        return unsafe body(values, lengths, formats, types)
    }
}

/// Copies a C string from libpq into Swift; `nil` for a NULL pointer.
func copyString(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer = unsafe pointer else { return nil }
    return unsafe String(cString: pointer)
}

/// libpq's last error message for the connection, trimmed. It never contains the password.
func connectionErrorMessage(_ conn: OpaquePointer) -> String {
    let message = unsafe copyString(PQerrorMessage(conn)) ?? ""
    return trimmingTrailingWhitespace(message)
}

func trimmingTrailingWhitespace(_ text: String) -> String {
    var text = text
    while let last = text.last, last.isWhitespace {
        text.removeLast()
    }
    return text
}
