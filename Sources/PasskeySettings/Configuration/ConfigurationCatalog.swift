/// Every variable passkeyd reads, declared once each (the `<Domain>Variables.swift` files), in the order of the
/// reference (`passkeyd config`, docs/configuration.md): by ``ConfigSection``, then as listed.
public enum ConfigurationCatalog {
    /// All declarations.
    public static let variables: [ConfigVariable] = {
        let all = serverVariables + databaseVariables + accessVariables + relyingPartyVariables + attestationVariables + upgradeVariables
            + ceremonyKeyVariables + identityVariables + sessionVariables + appStoreVariables + appAttestVariables
            + eventVariables
        return ConfigSection.allCases.flatMap { section in all.filter { $0.section == section } }
    }()

    /// Prefixes of variables used by the development scripts and tests, not by the service (not warned about).
    public static let foreignPrefixes = ["PASSKEYD_PG_", "PASSKEYD_TEST_", "PASSKEYD_BENCH", "PASSKEYD_VECTORS"]

    /// The declarations of one section, in order.
    public static func variables(in section: ConfigSection) -> [ConfigVariable] {
        variables.filter { $0.section == section }
    }

    /// The declaration of `name`: the declaration of that name (a pattern's too, `PASSKEYD_TRUST_ROOTS_<FORMAT>`), else a
    /// pattern it is an instance of.
    public static func declaration(matching name: String) -> ConfigVariable? {
        byName[name] ?? patterns.first { $0.matches(name) }
    }

    /// Whether `variable` is a declaration of the catalog or an instance of one of its patterns.
    static func declares(_ variable: ConfigVariable) -> Bool {
        if let declared = byName[variable.name] { return declared == variable }
        return patterns.contains { pattern in
            pattern.placeholderValue(in: variable.name).map { pattern.instance($0) == variable } ?? false
        }
    }

    /// The warnings for the `PASSKEYD_*` names among `names` that nothing declares: "`NAME`: unknown variable, ignored",
    /// with "did you mean" a declared name that one of them begins with. `PASSKEYD_IDTOKEN_*` names are left to the
    /// ID-token settings, which know the listed providers; the development scripts' own prefixes are not warned about.
    public static func unknownVariableWarnings(_ names: some Sequence<String>) -> [String] {
        var warnings: [String] = []
        for name in names.sorted() where name.hasPrefix("PASSKEYD_") {
            guard declaration(matching: name) == nil, !name.hasPrefix(IdentitySettings.variablePrefix),
                !foreignPrefixes.contains(where: { name.hasPrefix($0) })
            else { continue }
            warnings.append("\(name): unknown variable, ignored" + (suggestion(for: name).map { " (did you mean \($0)?)" } ?? ""))
        }
        return warnings
    }

    /// A declared name that `name` begins with or that begins with `name` (a missing or extra suffix).
    static func suggestion(for name: String) -> String? {
        variables.lazy.filter { !$0.isPattern }.map(\.name).first { $0.hasPrefix(name) || name.hasPrefix($0) }
    }

    private static let byName: [String: ConfigVariable] = {
        var byName: [String: ConfigVariable] = [:]
        for variable in variables {
            precondition(byName.updateValue(variable, forKey: variable.name) == nil, "\(variable.name) is declared twice")
        }
        return byName
    }()

    private static let patterns = variables.filter(\.isPattern)
}
