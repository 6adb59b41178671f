import Foundation
public import Logging
import Synchronization
import WebAuthnModel

/// Writes one JSON object per line (JSON Lines), by default to stderr:
///
///     {"timestamp":"2026-11-22T10:00:00.123Z","level":"info","label":"passkeyd","message":"request failed",
///      "metadata":{"code":"signature_invalid","duration_ms":1.234,"hb.request.id":"…","operation":"authentication_finish",…}}
///
/// `metadata` merges the logger's metadata, the metadata provider's and the call's (the call wins); keys are
/// sorted. Integer and finite floating-point values are JSON numbers, everything else a string (arrays and
/// dictionaries nest). An attached `error` is written as `"error"`, its type only (descriptions may carry data).
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: JSONLogOutput

    /// - Parameters:
    ///   - label: the logger's label.
    ///   - level: the minimum level.
    ///   - output: where lines go (default: stderr).
    public init(label: String, level: Logger.Level, output: JSONLogOutput = .standardError) {
        self.label = label
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        var line = "{\"timestamp\":"
        Self.appendString(Date().formatted(Self.timestampStyle), to: &line)
        line += ",\"level\":"
        Self.appendString(event.level.rawValue, to: &line)
        line += ",\"label\":"
        Self.appendString(label, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        line += ",\"metadata\":"
        Self.appendValue(.dictionary(merged), to: &line)
        if let error = event.error {
            line += ",\"error\":"
            Self.appendString(String(reflecting: type(of: error)), to: &line)
        }
        line += "}\n"
        output.write(Array(line.utf8))
    }

    static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func appendValue(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &line)
        case .stringConvertible(let value):
            switch value {
            case let number as Int: line += String(number)
            case let number as Int64: line += String(number)
            case let number as UInt64: line += String(number)
            case let number as Double where number.isFinite: line += String(number)
            case let flag as Bool: line += flag ? "true" : "false"
            default: appendString(value.description, to: &line)
            }
        case .array(let values):
            line += "["
            for (index, value) in values.enumerated() {
                if index > 0 { line += "," }
                appendValue(value, to: &line)
            }
            line += "]"
        case .dictionary(let members):
            line += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                appendValue(members[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string literal.
    static func appendString(_ text: String, to line: inout String) {
        JSONString.append(text, to: &line)
    }
}

/// Where ``JSONLogHandler`` writes: each line in one call, lines from concurrent loggers never interleave.
public struct JSONLogOutput: Sendable {
    private let sink: @Sendable ([UInt8]) -> Void

    /// A custom sink (tests).
    public init(_ sink: @escaping @Sendable ([UInt8]) -> Void) { self.sink = sink }

    func write(_ bytes: [UInt8]) { sink(bytes) }

    /// The process's stderr, serialised by a lock.
    public static let standardError: JSONLogOutput = {
        let lock = Mutex(())
        return JSONLogOutput { bytes in
            lock.withLock { _ in FileHandle.standardError.write(Data(bytes)) }
        }
    }()
}
