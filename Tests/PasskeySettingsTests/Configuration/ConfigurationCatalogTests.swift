import Foundation
import PasskeySettings
import Testing
import WebAuthnCore
import SettingsTestSupport

/// The catalog: every variable declared once, its default meeting its own form, the reference in docs/configuration.md
/// equal to the declarations both ways, unknown `PASSKEYD_*` names warned about, and `passkeyd config`.
@Suite("Configuration catalog and reference")
struct ConfigurationCatalogTests {
    static let markers = (begin: "<!-- BEGIN passkeyd config --markdown -->", end: "<!-- END passkeyd config --markdown -->")

    /// The Markdown between the markers of docs/configuration.md.
    static func documentedBlock() throws -> String {
        let text = try String(contentsOf: SettingsFixtures.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let begin = try #require(text.range(of: markers.begin), "docs/configuration.md lacks \(markers.begin)")
        let end = try #require(text.range(of: markers.end), "docs/configuration.md lacks \(markers.end)")
        return String(text[begin.upperBound..<end.lowerBound]).trimmingCharacters(in: .newlines) + "\n"
    }

    /// A table row's cells, `\|` unescaped: variable (without backticks), default, values, meaning.
    static func cells(_ row: Substring) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in row.dropFirst().dropLast() {
            if escaped {
                cell.append(character == "|" ? "|" : "\\\(character)")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
        }
        cells.append(cell.trimmingCharacters(in: .whitespaces))
        return cells
    }

    /// The documented rows by variable name (the header and separator rows left out).
    static func documentedRows() throws -> [(name: String, cells: [String])] {
        try documentedBlock().split(separator: "\n").filter { $0.hasPrefix("| `") }.map { row in
            let cells = cells(row)
            return (cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), Array(cells.dropFirst()))
        }
    }

    @Test("every declared variable is documented with its default, values and sentence")
    func declaredAreDocumented() throws {
        let rows = try Self.documentedRows()
        for variable in ConfigurationCatalog.variables {
            let matching = rows.filter { $0.name == variable.name }
            guard let row = matching.first else {
                Issue.record("\(variable.name) is declared but not in docs/configuration.md (passkeyd config --markdown)")
                continue
            }
            #expect(matching.count == 1, "\(variable.name) is documented \(matching.count) times")
            #expect(row.cells == [variable.defaultText, variable.formText, variable.summary], "\(variable.name): the docs row differs from the declaration")
        }
    }

    @Test("every documented variable is declared")
    func documentedAreDeclared() throws {
        let declared = Set(ConfigurationCatalog.variables.map(\.name))
        let rows = try Self.documentedRows()
        #expect(!rows.isEmpty)
        for row in rows where !declared.contains(row.name) {
            Issue.record("\(row.name) is in docs/configuration.md but not declared")
        }
    }

    @Test("the documented tables are exactly `passkeyd config --markdown` (sections, order, headings)")
    func documentedBlockIsRendered() throws {
        let documented = try Self.documentedBlock()
        let rendered = ConfigurationCatalog.render(.markdown)
        #expect(documented == rendered, "regenerate the tables of docs/configuration.md with `passkeyd config --markdown`")
    }

    @Test("each name is declared once, in a section, with a sentence; patterns name their placeholder")
    func declarations() {
        let names = ConfigurationCatalog.variables.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.hasPrefix("PASSKEYD_") })
        for variable in ConfigurationCatalog.variables {
            #expect(!variable.summary.isEmpty && !variable.summary.hasSuffix("."), "\(variable.name)")
            #expect(ConfigurationCatalog.declaration(matching: variable.name) == variable)
            if let (_, placeholder, _) = variable.patternParts {
                #expect(!placeholder.isEmpty && variable.isPattern)
                #expect(variable.matches(variable.instance("EXAMPLE_2").name))
                #expect(!variable.matches(variable.instance("lower").name))
            }
        }
        for section in ConfigSection.allCases {
            #expect(!ConfigurationCatalog.variables(in: section).isEmpty, "\(section) has no variable")
        }
    }

    @Test("every default value meets its own form")
    func defaultsMeetTheirForm() {
        for variable in ConfigurationCatalog.variables {
            guard case .value(let value) = variable.defaultValue else { continue }
            switch variable.form {
            case .integer(let range, _): #expect(Int(value).map(range.contains) == true, "\(variable.name)=\(value)")
            case .onOff: #expect(["on", "off"].contains(value), "\(variable.name)=\(value)")
            case .rateLimit: #expect(RateLimitSetting.parse(value) != nil, "\(variable.name)=\(value)")
            case .choice(let choices, _): #expect(choices.contains(value), "\(variable.name)=\(value)")
            case .text, .list: #expect(!value.isEmpty)
            }
        }
    }

    @Test("the declared defaults are the engine's: algorithms, refused metadata statuses, attestation names")
    func defaultsAreTheEngines() throws {
        let settings = try Settings(SettingsFixtures.environment())
        #expect(settings.relyingParty.algorithms == .default)
        #expect(settings.relyingParty.attestation.refusedStatuses == AuthenticatorStatus.defaultRefused)
        guard case .choice(let names, _) = ConfigVariable.attestation.form else { Issue.record("PASSKEYD_ATTESTATION is not a choice"); return }
        for name in names { #expect(AttestationPolicy.Requirement(configurationName: name) != nil, "\(name)") }
    }

    @Test("unknown PASSKEYD_* variables are warnings, with a suggestion; declared names and pattern instances are not")
    func unknownVariables() throws {
        let settings = try Settings(SettingsFixtures.environment([
            "PASSKEYD_POOLSIZE": "4", "PASSKEYD_SESSION": "on", "PASSKEYD_NOTHING_LIKE_IT": "1", "PASSKEYD_PG_PORT": "1", "OTHER": "x",
        ]))
        #expect(settings.warnings.contains("PASSKEYD_NOTHING_LIKE_IT: unknown variable, ignored"), "\(settings.warnings)")
        #expect(settings.warnings.contains("PASSKEYD_SESSION: unknown variable, ignored (did you mean PASSKEYD_SESSIONS?)"), "\(settings.warnings)")
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_POOLSIZE: unknown variable") })
        #expect(!settings.warnings.contains { $0.contains("PASSKEYD_PG_PORT") || $0.contains("OTHER") })

        let declared = ConfigurationCatalog.variables.map { $0.isPattern ? $0.instance("PACKED").name : $0.name }
        #expect(ConfigurationCatalog.unknownVariableWarnings(declared).isEmpty)
        #expect(ConfigurationCatalog.unknownVariableWarnings(["PASSKEYD_TRUST_ROOTS_TPM", "PASSKEYD_IDTOKEN_ACME_ISSUER"]).isEmpty)
        #expect(ConfigurationCatalog.unknownVariableWarnings(["PASSKEYD_TRUST_ROOTS"]) == [
            "PASSKEYD_TRUST_ROOTS: unknown variable, ignored",
        ])
    }

    @Test("passkeyd config prints the reference: text by default, the docs' Markdown with --markdown; --help adds usage")
    func command() throws {
        let text = try #require(ConfigurationCatalog.Command(["config"]))
        #expect(text.status == 0)
        for variable in ConfigurationCatalog.variables { #expect(text.output.contains("  \(variable.name)\n"), "\(variable.name)") }
        for section in ConfigSection.allCases { #expect(text.output.contains("\n\(section.title)\n")) }
        #expect(!text.output.contains("`") && !text.output.contains("]("), "plain text: no Markdown")
        #expect(ConfigurationCatalog.Command(["config", "--markdown"]) == .init(["config", "--markdown"]))
        #expect(ConfigurationCatalog.Command(["config", "--markdown"])?.output == ConfigurationCatalog.render(.markdown))
        #expect(ConfigurationCatalog.Command(["--help"])?.output.hasPrefix("usage: passkeyd") == true)
        #expect(ConfigurationCatalog.Command(["config", "--json"])?.status == 2)
        #expect(ConfigurationCatalog.Command([]) == nil && ConfigurationCatalog.Command(["migrate"]) == nil)
        #expect(ConfigurationCatalog.Command(["rotate-session-key"]) == nil)
    }

    @Test("values as shown: ranges with units and days, switches, choices, lists")
    func shownValues() {
        #expect(ConfigVariable.poolSize.formText == "1–1000" && ConfigVariable.poolSize.defaultText == "`8`")
        #expect(ConfigVariable.sessionIdleTTL.defaultText == "`2592000` (30 days)")
        #expect(ConfigVariable.sessionIdleTTL.formText == "60–158112000 seconds (up to 1830 days)")
        #expect(ConfigVariable.appStoreNotificationRetention.formText == "604800–315360000 seconds (7–3650 days)")
        #expect(ConfigVariable.metrics.formText == "`on` / `off`")
        #expect(ConfigVariable.userVerification.formText == "`required`, `preferred-unsafe` or `discouraged-unsafe`")
        #expect(ConfigVariable.algorithms.defaultText == "`ES256,EdDSA,RS256`")
        #expect(ConfigurationCatalog.markdownRow(.androidApps).contains("[\\|FINGERPRINT…]"), "a | in a cell is escaped")
    }
}
