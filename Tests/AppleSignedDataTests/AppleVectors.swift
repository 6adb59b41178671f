import Foundation

/// `../shared/vectors/apple` (or `$PASSKEYD_VECTORS/apple`): StoreKit JWS and App Attest samples with provenance.
enum AppleVectors {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PASSKEYD_VECTORS"] {
            return URL(fileURLWithPath: override).appendingPathComponent("apple")
        }
        // Tests/AppleSignedDataTests/AppleVectors.swift → repository → ../shared/vectors/apple
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/vectors/apple")
    }()

    /// The bytes of a vector file.
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(path)))
    }

    /// A vector file as text, surrounding whitespace removed.
    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A JSON object vector file.
    static func json(_ path: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(try bytes(path))) as? [String: Any] else {
            throw Failure.unreadable(path)
        }
        return object
    }

    enum Failure: Error { case unreadable(String) }
}
