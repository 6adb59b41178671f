public import Foundation

/// `PASSKEYD_CONFIG_FILE`: a `KEY=VALUE` file read under the environment.
extension Settings {
    /// Reads the process environment, merged over `PASSKEYD_CONFIG_FILE` when set (the environment wins).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> Settings {
        var merged = environment
        var fileWarnings: [String] = []
        if let path = Reader(environment: environment).value(.configFile) {
            let text: String
            do {
                text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            } catch {
                throw ConfigurationError(.configFile, "cannot read \(path) as UTF-8 text")
            }
            let (values, warnings) = try parseEnvironmentFile(text, path: path)
            fileWarnings = warnings
            for (key, value) in values where environment[key] == nil { merged[key] = value }
        }
        var settings = try Settings(merged)
        settings.warnings = fileWarnings + settings.warnings
        return settings
    }

    /// Parses a `KEY=VALUE` file: one assignment per line, `#` comments and blank lines ignored, an optional
    /// `export ` prefix, a value optionally in matching single or double quotes (taken literally, no escapes).
    /// A line without `=`, a name that is not upper-case letters, digits and `_`, and a name set twice are errors;
    /// only `PASSKEYD_*` keys are kept (others are reported as warnings; the file cannot name another file).
    public static func parseEnvironmentFile(
        _ text: String, path: String
    ) throws(ConfigurationError) -> (values: [String: String], warnings: [String]) {
        var values: [String: String] = [:]
        var warnings: [String] = []
        var seen: Set<String> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst("export ".count)).trimmingCharacters(in: .whitespaces) }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(.configFile, "\(path) line \(number): expected KEY=VALUE")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }),
                !key.first!.isNumber
            else {
                throw ConfigurationError(.configFile, "\(path) line \(number): the name must be upper-case letters, digits and _")
            }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else {
                throw ConfigurationError(.configFile, "\(path) line \(number): \(key) is set twice")
            }
            guard key.hasPrefix("PASSKEYD_"), key != ConfigVariable.configFile.name else {
                warnings.append("PASSKEYD_CONFIG_FILE: \(path) line \(number): \(key) ignored (only PASSKEYD_* variables are read; files do not nest)")
                continue
            }
            values[key] = value
        }
        return (values, warnings)
    }
}
