import Foundation
public import WebAuthnModel

/// Serializes ``JSONValue`` documents for JOSE headers and claims (keys sorted, so output is stable).
public enum JSONText {
    /// UTF-8 JSON text of `value`.
    public static func bytes(of value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue always encodes (no non-finite numbers are produced by the reader or by callers here).
        guard let data = try? encoder.encode(value) else { preconditionFailure("JSONValue did not encode") }
        return Array(data)
    }
}
