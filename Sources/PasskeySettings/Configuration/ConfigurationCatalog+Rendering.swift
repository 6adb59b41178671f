import Foundation

/// The reference of every variable, from the declarations: `passkeyd config` prints ``Format/text``,
/// `passkeyd config --markdown` prints ``Format/markdown``, the tables of docs/configuration.md (a test keeps the two
/// equal).
extension ConfigurationCatalog {
    public enum Format: Sendable {
        /// Plain text for a terminal: per section, each variable with its default, its values and its sentence.
        case text
        /// One Markdown table per section (variable, default, values, meaning), each under a `##` heading.
        case markdown
    }

    /// The whole reference.
    public static func render(_ format: Format) -> String {
        switch format {
        case .markdown:
            ConfigSection.allCases.map { section in
                "## \(section.title)\n\n| variable | default | values | meaning |\n|---|---|---|---|\n"
                    + variables(in: section).map(markdownRow).joined() + "\n"
            }.joined().dropLastNewline()
        case .text:
            "passkeyd reads these environment variables (also from the PASSKEYD_CONFIG_FILE file). Values are trimmed, an\n"
                + "empty value counts as unset, list items are comma-separated; anything invalid stops the start.\n\n"
                + ConfigSection.allCases.map { section in
                    "\(section.title)\n\n" + variables(in: section).map(textEntry).joined(separator: "\n")
                }.joined(separator: "\n")
        }
    }

    /// One row: `| \`NAME\` | default | values | meaning |`.
    public static func markdownRow(_ variable: ConfigVariable) -> String {
        let cells = ["`\(variable.name)`", variable.defaultText, variable.formText, variable.summary]
        return "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
    }

    static func textEntry(_ variable: ConfigVariable) -> String {
        "  \(variable.name)\n"
            + "      default: \(plain(variable.defaultText))\n"
            + "      values:  \(plain(variable.formText))\n"
            + wrap(plain(variable.summary), indent: "      ", width: 100)
    }

    /// Markdown as plain text: `[text](target)` becomes `text`, backticks go.
    static func plain(_ markdown: String) -> String {
        var result = ""
        var rest = Substring(markdown)
        while let open = rest.firstIndex(of: "[") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix("("),
                let end = rest[close...].firstIndex(of: ")")
            {
                result += rest[afterOpen..<close]
                rest = rest[rest.index(after: end)...]
            } else {
                result.append("[")
                rest = rest[afterOpen...]
            }
        }
        result += rest
        return result.replacingOccurrences(of: "`", with: "")
    }

    /// Words of `text` on lines of at most `width` characters (a longer word stands alone), each after `indent`.
    static func wrap(_ text: String, indent: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent.count + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { indent + $0 + "\n" }.joined()
    }
}

extension ConfigVariable {
    /// The default as the reference shows it (Markdown): `` `8` ``, `` `2592000` (30 days) ``, or what unset means.
    public var defaultText: String {
        switch defaultValue {
        case .unset(let meaning): return meaning
        case .value(let value):
            if case .integer(_, .seconds) = form, let seconds = Int(value), let days = Self.days(seconds) {
                return "`\(value)` (\(days) day\(days == 1 ? "" : "s"))"
            }
            return "`\(value)`"
        }
    }

    /// The values the variable takes, as the reference shows them (Markdown).
    public var formText: String {
        switch form {
        case .integer(let range, let unit):
            var text = "\(range.lowerBound)–\(range.upperBound)" + (unit == .none ? "" : " \(unit.rawValue)")
            if unit == .seconds, let upper = Self.days(range.upperBound), upper > 1 {
                text += Self.days(range.lowerBound).map { " (\($0)–\(upper) days)" } ?? " (up to \(upper) days)"
            }
            return text
        case .onOff: return "`on` / `off`"
        case .rateLimit: return "`RATE/s[:BURST]`, `RATE/min[:BURST]` or `off`, in any case"
        case .choice(let choices, let anyCase):
            return Reader.alternatives(choices.map { "`\($0)`" }) + (anyCase ? ", in any case" : "")
        case .text(let description): return description
        case .list(let description): return "comma-separated " + description
        }
    }

    /// Whole days of at least one day.
    private static func days(_ seconds: Int) -> Int? {
        seconds >= 86_400 && seconds % 86_400 == 0 ? seconds / 86_400 : nil
    }
}

extension String {
    fileprivate func dropLastNewline() -> String { hasSuffix("\n\n") ? String(dropLast()) : self }
}
