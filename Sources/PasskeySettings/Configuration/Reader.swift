public import Foundation

/// Reads variables through their declarations (``ConfigVariable``): values are trimmed of spaces and an empty value
/// counts as unset; a list's items are trimmed and empty items dropped; while a variable is unset its declared default
/// value is read as if it were set, so the default meets the same checks; integers, switches, rate limits and choices
/// are checked against the declared form. Errors name the variable, and never quote a secret's value.
struct Reader {
    let environment: [String: String]

    init(environment: [String: String]) {
        self.environment = environment
    }

    // MARK: plain values

    /// The value as set (trimmed), nil when unset or empty.
    func value(_ variable: ConfigVariable) -> String? {
        assert(ConfigurationCatalog.declares(variable), "\(variable.name) is not declared in ConfigurationCatalog")
        return value(named: variable.name)
    }

    /// Whether the variable is set (to something other than spaces).
    func isSet(_ variable: ConfigVariable) -> Bool { value(variable) != nil }

    /// The value as set, else the declared default value (the declaration must have one).
    func text(_ variable: ConfigVariable) -> String { value(variable) ?? Self.declaredDefault(variable) }

    /// A comma-separated list as set (items trimmed, empty items dropped), or nil when unset.
    func list(_ variable: ConfigVariable) -> [String]? {
        value(variable).map(Self.items)
    }

    /// The list as set, else the declared default value's items.
    func listOrDefault(_ variable: ConfigVariable) -> [String] {
        list(variable) ?? Self.items(Self.declaredDefault(variable))
    }

    /// The names in the environment with a pattern's prefix and suffix, sorted: its instances, and names that only
    /// look like one (`PASSKEYD_TRUST_ROOTS_packed`), for the caller to refuse; read them with ``value(named:)``.
    func candidates(of pattern: ConfigVariable) -> [String] {
        guard let (prefix, _, suffix) = pattern.patternParts else { preconditionFailure("\(pattern.name) is not a pattern") }
        return environment.keys.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) && $0.count >= prefix.count + suffix.count }.sorted()
    }

    /// The value of a name found by ``candidates(of:)`` (trimmed; nil when empty).
    func value(named name: String) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    // MARK: checked forms

    /// An integer within the declared range; the declared default while unset.
    func integer(_ variable: ConfigVariable) throws(ConfigurationError) -> Int {
        try integer(variable, text: text(variable))
    }

    /// An integer within the declared range; `fallback` while unset (for defaults computed at start).
    func integer(_ variable: ConfigVariable, whenUnset fallback: Int) throws(ConfigurationError) -> Int {
        guard let text = value(variable) else { return fallback }
        return try integer(variable, text: text)
    }

    private func integer(_ variable: ConfigVariable, text: String) throws(ConfigurationError) -> Int {
        guard case .integer(let range, _) = variable.form else { preconditionFailure("\(variable.name) is not declared as an integer") }
        guard let number = Int(text), range.contains(number) else {
            throw ConfigurationError(variable, "must be an integer from \(range.lowerBound) to \(range.upperBound)" + Self.got(text, variable))
        }
        return number
    }

    /// A switch: `on`, `true`, `yes`, `1` or `off`, `false`, `no`, `0`, in any case; the declared default while unset.
    func boolean(_ variable: ConfigVariable) throws(ConfigurationError) -> Bool {
        guard case .onOff = variable.form else { preconditionFailure("\(variable.name) is not declared as on/off") }
        let text = text(variable)
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable, "must be on or off (true/false, yes/no, 1/0)" + Self.got(text, variable))
        }
    }

    /// `RATE/s[:BURST]`, `RATE/min[:BURST]` or `off` (nil); the declared default while unset.
    func rateLimit(_ variable: ConfigVariable) throws(ConfigurationError) -> RateLimitSetting? {
        guard case .rateLimit = variable.form else { preconditionFailure("\(variable.name) is not declared as a rate limit") }
        let text = text(variable)
        guard let parsed = RateLimitSetting.parse(text) else {
            throw ConfigurationError(variable, "expected RATE/s, RATE/s:BURST, RATE/min[:BURST] or off (e.g. 10/s:50)" + Self.got(text, variable))
        }
        return parsed
    }

    /// One of the declared choices, spelt as declared; the declared default while unset.
    func choice(_ variable: ConfigVariable) throws(ConfigurationError) -> String {
        try choice(variable, text: text(variable))
    }

    /// One of the declared choices, spelt as declared; nil while unset (a declaration without a default value).
    func optionalChoice(_ variable: ConfigVariable) throws(ConfigurationError) -> String? {
        guard let text = value(variable) else { return nil }
        return try choice(variable, text: text)
    }

    private func choice(_ variable: ConfigVariable, text: String) throws(ConfigurationError) -> String {
        guard case .choice(let choices, let anyCase) = variable.form else { preconditionFailure("\(variable.name) is not declared as a choice") }
        let match = choices.first { anyCase ? $0.lowercased() == text.lowercased() : $0 == text }
        guard let match else {
            throw ConfigurationError(variable, "unknown value \"\(variable.isSecret ? "…" : text)\" (\(Self.alternatives(choices)))")
        }
        return match
    }

    // MARK: helpers

    /// `a, b or c`.
    static func alternatives(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// `, got "text"`, or nothing for a secret.
    private static func got(_ text: String, _ variable: ConfigVariable) -> String {
        variable.isSecret ? "" : ", got \"\(text)\""
    }

    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func declaredDefault(_ variable: ConfigVariable) -> String {
        guard case .value(let value) = variable.defaultValue else { preconditionFailure("\(variable.name) has no default value") }
        return value
    }
}
