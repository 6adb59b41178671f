/// The declaration of one variable passkeyd reads: its name, where it is documented, the form of its value, its
/// default and one sentence. Every variable is declared once (the `<Domain>Variables.swift` files), collected in
/// ``ConfigurationCatalog/variables``; parsing reads through the declaration (``Reader``), so the default and the range
/// in force are the ones documented (`passkeyd config`, docs/configuration.md).
///
/// A name with a `<PLACEHOLDER>` (`PASSKEYD_TRUST_ROOTS_<FORMAT>`, `PASSKEYD_IDTOKEN_<NAME>_CLIENT_IDS`) declares a
/// pattern: every name with that prefix and suffix and upper-case letters, digits or `_` in between; ``instance(_:)``
/// names one of them.
public struct ConfigVariable: Sendable, Hashable, CustomStringConvertible {
    /// The variable's name (`PASSKEYD_POOL_SIZE`), or a pattern (`PASSKEYD_TRUST_ROOTS_<FORMAT>`).
    public let name: String
    public let section: ConfigSection
    /// What a value looks like; integers, switches, rate limits and choices are checked against it.
    public let form: ConfigForm
    public let defaultValue: ConfigDefault
    /// What the variable does, in one sentence (Markdown: the meaning column of docs/configuration.md).
    public let summary: String
    /// A key or a connection string: its value never appears in an error or a warning.
    public let isSecret: Bool

    public init(
        _ name: String, _ section: ConfigSection, _ form: ConfigForm, default defaultValue: ConfigDefault, _ summary: String,
        secret: Bool = false
    ) {
        self.name = name
        self.section = section
        self.form = form
        self.defaultValue = defaultValue
        self.summary = summary
        self.isSecret = secret
    }

    public var description: String { name }

    // MARK: patterns

    /// Whether the name is a pattern (holds a `<PLACEHOLDER>`).
    public var isPattern: Bool { name.contains("<") }

    /// The pattern's fixed parts: before and after the placeholder; nil for a plain name.
    public var patternParts: (prefix: String, placeholder: String, suffix: String)? {
        guard let open = name.firstIndex(of: "<"), let close = name.firstIndex(of: ">"), open < close else { return nil }
        return (String(name[..<open]), String(name[name.index(after: open)..<close]), String(name[name.index(after: close)...]))
    }

    /// Whether `candidate` is this variable: the same name, or an instance of this pattern.
    public func matches(_ candidate: String) -> Bool {
        guard let (prefix, _, suffix) = patternParts else { return candidate == name }
        guard candidate.hasPrefix(prefix), candidate.hasSuffix(suffix), candidate.count > prefix.count + suffix.count else { return false }
        let middle = candidate.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
    }

    /// The placeholder's value in `candidate` (`PACKED` of `PASSKEYD_TRUST_ROOTS_PACKED`); nil when it does not match.
    public func placeholderValue(in candidate: String) -> String? {
        guard let (prefix, _, suffix) = patternParts, matches(candidate) else { return nil }
        return String(candidate.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// One name of this pattern: the placeholder replaced by `value` (`instance("APPLE")` of
    /// `PASSKEYD_IDTOKEN_<NAME>_CLIENT_IDS` is `PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS`), with the same form and default.
    public func instance(_ value: String) -> ConfigVariable {
        guard let (prefix, _, suffix) = patternParts else { preconditionFailure("\(name) is not a pattern") }
        return ConfigVariable(prefix + value + suffix, section, form, default: defaultValue, summary, secret: isSecret)
    }
}

/// Where a variable is documented: one table each in docs/configuration.md, in this order.
public enum ConfigSection: String, Sendable, Hashable, CaseIterable {
    case server
    case database
    case access
    case relyingParty
    case attestation
    case upgrades
    case ceremonyKeys
    case identity
    case sessions
    case appStore
    case appAttest
    case events

    /// The section's heading.
    public var title: String {
        switch self {
        case .server: "Server"
        case .database: "Database"
        case .access: "API keys and abuse limits"
        case .relyingParty: "Passkeys: relying party, origins and apps"
        case .attestation: "Passkeys: attestation and metadata"
        case .upgrades: "Automatic upgrades and self-service"
        case .ceremonyKeys: "Ceremony keys"
        case .identity: "ID-token sign-in"
        case .sessions: "Sessions after sign-in"
        case .appStore: "App Store"
        case .appAttest: "App Attest"
        case .events: "Events and webhooks"
        }
    }
}

/// The form of a variable's value.
public enum ConfigForm: Sendable, Hashable {
    /// An integer within the range (anything else stops the start).
    case integer(ClosedRange<Int>, ConfigUnit = .none)
    /// `on` / `off` (also `true`/`false`, `yes`/`no`, `1`/`0`, in any case).
    case onOff
    /// `RATE/s[:BURST]`, `RATE/min[:BURST]` or `off` (``RateLimitSetting/parse(_:)``).
    case rateLimit
    /// One of these words (exactly, or in any case when `anyCase`).
    case choice([String], anyCase: Bool = false)
    /// Free text of this form (Markdown), checked where it is parsed.
    case text(String)
    /// A comma-separated list of items of this form (Markdown); items are trimmed, empty ones dropped.
    case list(String)
}

/// The unit of an integer.
public enum ConfigUnit: String, Sendable, Hashable {
    case none = ""
    case seconds
    case milliseconds
    case bytes
}

/// What holds while a variable is unset.
public enum ConfigDefault: Sendable, Hashable {
    /// This value, read as if it were set (so it meets the form's checks).
    case value(String)
    /// No value: what that means (Markdown: "none (open)", "(required)", "one per two cores, at most half the pool").
    case unset(String)
}
