import Foundation
import PasskeydClient

/// passkeyd's openapi.json, read from the repository (`../../Sources/PasskeyHTTP/Resources/openapi.json` from the
/// package; `PASSKEYD_OPENAPI` names another), with what the coverage tests need of it: its operations, examples
/// synthesized from a schema, a validator, the error codes.
struct OpenAPIDocument: Sendable {
    let root: JSONValue

    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["PASSKEYD_OPENAPI"] { return path }
        // Tests/PasskeydClientTests/OpenAPI.swift → the repository root is four folders up.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Sources/PasskeyHTTP/Resources/openapi.json").path
    }()

    /// Read once for every test.
    static func load() throws -> OpenAPIDocument {
        try loaded.get()
    }

    private static let loaded = Result {
        OpenAPIDocument(root: try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: path))))
    }

    struct Operation {
        let id: String
        let method: String
        let path: String
        let object: JSONValue
        let pathItem: JSONValue

        /// The security schemes it names, and whether it can go without one (`{}` among them, or no security).
        var schemes: Set<String> {
            Set((object["security"]?.arrayValue ?? []).flatMap { $0.objectValue?.keys.map { $0 } ?? [] })
        }
        var credentialOptional: Bool {
            guard let requirements = object["security"]?.arrayValue, !requirements.isEmpty else { return true }
            return requirements.contains { $0.objectValue?.isEmpty == true }
        }
    }

    var operations: [Operation] {
        var found: [Operation] = []
        for (path, item) in root["paths"]?.objectValue ?? [:] {
            for (method, operation) in item.objectValue ?? [:] where method != "parameters" {
                if let id = operation["operationId"]?.stringValue {
                    found.append(Operation(id: id, method: method.uppercased(), path: path, object: operation, pathItem: item))
                }
            }
        }
        return found.sorted { $0.id < $1.id }
    }

    /// Follows `$ref`s.
    func resolve(_ node: JSONValue) -> JSONValue {
        var node = node
        while let reference = node["$ref"]?.stringValue, reference.hasPrefix("#/") {
            var target = root
            for part in reference.dropFirst(2).split(separator: "/") {
                guard let next = target[String(part)] else { return node }
                target = next
            }
            node = target
        }
        return node
    }

    // MARK: examples

    /// A value of `schema`: `maximal`, every member with a value that is not null where one is allowed (to check that
    /// a type keeps every member); otherwise the required members only, null wherever null is allowed (to check that
    /// a type asks for no more than the schema promises). Nil for the schema `false`.
    func example(_ schema: JSONValue, maximal: Bool, depth: Int = 0) -> JSONValue? {
        let schema = resolve(schema)
        if case .bool(let allowed) = schema { return allowed ? .string("x") : nil }
        guard depth < 24 else { return .null }
        if let constant = schema["const"] { return constant }
        if let values = schema["enum"]?.arrayValue {
            if !maximal, values.contains(.null) { return .null }
            return values.first { $0 != .null } ?? .null
        }
        if let parts = schema["allOf"]?.arrayValue {
            var merged: [String: JSONValue] = [:]
            var scalar: JSONValue?
            var own = schema.objectValue ?? [:]
            own["allOf"] = nil
            for part in parts + (own["properties"] != nil || own["type"] != nil ? [.object(own)] : []) {
                switch example(part, maximal: maximal, depth: depth + 1) {
                case .object(let members)?: merged.merge(members) { _, new in new }
                case let other?: scalar = other
                case nil: break
                }
            }
            return merged.isEmpty ? (scalar ?? .object([:])) : .object(merged)
        }
        for key in ["oneOf", "anyOf"] {
            guard let branches = schema[key]?.arrayValue?.map(resolve) else { continue }
            let isNull = { (branch: JSONValue) in branch["type"] == .string("null") }
            if !maximal, branches.contains(where: isNull) { return .null }
            let candidates = branches.filter { !isNull($0) }
            func size(_ branch: JSONValue) -> Int {
                maximal ? branch["properties"]?.objectValue?.count ?? 0 : branch["required"]?.arrayValue?.count ?? 0
            }
            var own = schema.objectValue ?? [:]
            own[key] = nil
            guard let chosen = (maximal ? candidates.max { size($0) < size($1) } : candidates.min { size($0) < size($1) }) else {
                return .null
            }
            // A branch that only narrows the schema's own properties: the schema with the branch's members.
            if own["properties"] != nil, case .object(var branch) = chosen {
                branch.merge(own) { mine, _ in mine }
                if let ownProperties = own["properties"]?.objectValue, let narrowed = chosen["properties"]?.objectValue {
                    branch["properties"] = .object(ownProperties.merging(narrowed) { _, new in new })
                }
                return example(.object(branch), maximal: maximal, depth: depth + 1)
            }
            return example(chosen, maximal: maximal, depth: depth + 1)
        }
        var types = schema["type"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue].compactMap { $0 } } ?? []
        if types.isEmpty { types = schema["properties"] != nil ? ["object"] : ["string"] }
        if !maximal, types.contains("null") { return .null }
        switch types.first(where: { $0 != "null" }) ?? "null" {
        case "string": return .string(schema["format"] == .string("date-time") ? "2026-01-02T03:04:05Z" : "AAAA")
        case "integer": return .number(1)
        case "number": return .number(1.5)
        case "boolean": return .bool(true)
        case "array":
            guard maximal, let items = schema["items"], let item = example(items, maximal: true, depth: depth + 1) else {
                return .array([])
            }
            return .array([item])
        case "object":
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            var members: [String: JSONValue] = [:]
            if let properties = schema["properties"]?.objectValue {
                for (name, property) in properties where maximal || required.contains(name) {
                    if let value = example(property, maximal: maximal, depth: depth + 1) { members[name] = value }
                }
            } else if maximal {
                let additional = schema["additionalProperties"]
                members["k"] = additional.flatMap { $0.objectValue != nil ? example($0, maximal: true, depth: depth + 1) : nil } ?? .string("v")
            }
            return .object(members)
        default: return .null
        }
    }

    // MARK: validation

    /// What is wrong with `value` as a `schema` (types, required and unknown members, enums, patterns, lengths, the
    /// combinators); empty when nothing.
    func problems(_ value: JSONValue, _ schema: JSONValue, at where: String = "$") -> [String] {
        let schema = resolve(schema)
        if case .bool(let allowed) = schema { return allowed ? [] : ["\(`where`): not allowed"] }
        var found: [String] = []
        if let parts = schema["allOf"]?.arrayValue {
            for part in parts { found += problems(value, part, at: `where`) }
        }
        if let branches = schema["anyOf"]?.arrayValue, !branches.contains(where: { problems(value, $0, at: `where`).isEmpty }) {
            found.append("\(`where`): matches no anyOf branch")
        }
        if let branches = schema["oneOf"]?.arrayValue {
            let matching = branches.filter { problems(value, $0, at: `where`).isEmpty }.count
            if matching != 1 { found.append("\(`where`): matches \(matching) oneOf branches") }
        }
        if let constant = schema["const"], constant != value { found.append("\(`where`): not \(constant)") }
        if let values = schema["enum"]?.arrayValue, !values.contains(value) { found.append("\(`where`): \(value) not in the enum") }
        if let type = schema["type"] {
            let types = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue].compactMap { $0 }
            if !types.contains(where: { Self.isa(value, $0) }) { return found + ["\(`where`): \(value) is not \(types)"] }
        }
        switch value {
        case .object(let members):
            let properties = schema["properties"]?.objectValue ?? [:]
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                found.append("\(`where`): \(name) missing")
            }
            for (name, member) in members {
                if let property = properties[name] {
                    found += problems(member, property, at: "\(`where`).\(name)")
                } else if let additional = schema["additionalProperties"] {
                    found += problems(member, additional, at: "\(`where`).\(name)")
                }
            }
        case .array(let elements):
            if let items = schema["items"] {
                for (index, element) in elements.enumerated() { found += problems(element, items, at: "\(`where`)[\(index)]") }
            }
        case .string(let text):
            if let pattern = schema["pattern"]?.stringValue, let expression = try? NSRegularExpression(pattern: pattern),
                expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil
            {
                found.append("\(`where`): \"\(text)\" does not match \(pattern)")
            }
            if let minimum = schema["minLength"]?.numberValue, text.count < Int(minimum) { found.append("\(`where`): too short") }
            if let maximum = schema["maxLength"]?.numberValue, text.count > Int(maximum) { found.append("\(`where`): too long") }
        default: break
        }
        return found
    }

    static func isa(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number):
            true
        case ("integer", .number(let number)): number.rounded() == number
        default: false
        }
    }

    // MARK: error codes

    /// Every `error.code` the error responses list (4xx/5xx of every operation, and `components.responses`), and
    /// the error responses that list none.
    func errorCodes() -> (codes: Set<String>, unlisted: [String]) {
        var codes: Set<String> = []
        var unlisted: [String] = []
        func listed(_ response: JSONValue) -> [String]? {
            let schema = resolve(resolve(response)["content"]?["application/json"]?["schema"] ?? .null)
            for part in [schema] + (schema["allOf"]?.arrayValue ?? []).map(resolve) {
                if let values = part["properties"]?["error"]?["properties"]?["code"]?["enum"]?.arrayValue {
                    return values.compactMap(\.stringValue)
                }
            }
            return nil
        }
        for operation in operations {
            for (status, response) in operation.object["responses"]?.objectValue ?? [:] where (Int(status) ?? 0) >= 400 {
                if let found = listed(response) { codes.formUnion(found) } else { unlisted.append("\(operation.id) \(status)") }
            }
        }
        for (_, response) in root["components"]?["responses"]?.objectValue ?? [:] {
            codes.formUnion(listed(response) ?? [])
        }
        return (codes, unlisted)
    }
}

extension JSONValue {
    /// The value with every null member of an object removed (a Swift optional that is nil is left out when encoded).
    var withoutNulls: JSONValue {
        switch self {
        case .object(let members): .object(members.compactMapValues { $0 == .null ? nil : $0.withoutNulls })
        case .array(let elements): .array(elements.map(\.withoutNulls))
        default: self
        }
    }

    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    var jsonText: String {
        (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "?"
    }
}
