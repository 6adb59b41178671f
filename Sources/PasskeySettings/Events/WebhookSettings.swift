public import Foundation
public import PasskeyApp
public import PasskeyStore
public import WebhookCore

/// Webhook delivery (`PASSKEYD_WEBHOOKS_*`): off unless `PASSKEYD_WEBHOOKS_FILE` is set.
///
/// The file is a JSON list of endpoints:
///
/// ```json
/// [{"id": "app", "url": "https://api.example.com/passkeyd-events", "secret_file": "/run/secrets/webhook-app",
///   "events": ["credential.registered", "user.deleted"]}]
/// ```
///
/// `id`: letters, digits, `-`, `_`, at most 64, unique; `url`: checked against the URL policy; the secret (`whsec_`
/// and base64 of 24 to 64 bytes): `secret_file` (a file holding it) or `secret`; during a rotation
/// `previous_secret_file` or `previous_secret` adds a second signature; `events`: the event types sent (all when
/// absent). Unknown keys are refused (a typo would otherwise drop a setting silently).
public struct WebhookSettings: Sendable {
    /// The endpoints with their secrets, for the dispatcher.
    public var endpoints: [WebhookEndpoint]
    /// The endpoints as the store keeps them (no secrets), for `syncWebhookEndpoints`.
    public var storeEndpoints: [WebhookEndpointConfig]
    public var policy: WebhookDispatchPolicy
    public var urlPolicy: WebhookURLPolicy

    static let maximumFileBytes = 1 << 20
    static let maximumEndpoints = 64

    static func load(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> WebhookSettings? {
        guard let path = reader.value(.webhooksFile) else {
            for variable in ConfigurationCatalog.eventVariables where variable != .webhooksFile && reader.isSet(variable) {
                warnings.append("\(variable.name): ignored while PASSKEYD_WEBHOOKS_FILE is unset")
            }
            return nil
        }
        var urlPolicy = WebhookURLPolicy()
        if try reader.boolean(.webhooksUnsafeAllowPrivate) {
            urlPolicy = urlPolicy.unsafeAllowingPrivateTargets()
            warnings.append(
                "PASSKEYD_WEBHOOKS_UNSAFE_ALLOW_PRIVATE: webhooks may use plain http and loopback, private and link-local addresses; development and tests only")
        }
        var policy = WebhookDispatchPolicy()
        policy.timeout = .seconds(try reader.integer(.webhooksTimeout))
        policy.retry = WebhookRetryPolicy(window: TimeInterval(try reader.integer(.webhooksRetryWindow)))
        policy.concurrency = try reader.integer(.webhooksConcurrency)
        policy.pollInterval = .milliseconds(try reader.integer(.webhooksPollInterval))
        let endpoints: [(endpoint: WebhookEndpoint, config: WebhookEndpointConfig)]
        do {
            endpoints = try parse(file: path, policy: urlPolicy)
        } catch {
            throw ConfigurationError(.webhooksFile, "\(path): \(error.message)")
        }
        return WebhookSettings(endpoints: endpoints.map(\.endpoint), storeEndpoints: endpoints.map(\.config), policy: policy, urlPolicy: urlPolicy)
    }

    struct FileError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    static let keys: Set<String> = ["id", "url", "secret", "secret_file", "previous_secret", "previous_secret_file", "events"]

    /// Reads and checks the endpoints file (errors never show a secret).
    static func parse(file path: String, policy: WebhookURLPolicy) throws(FileError) -> [(endpoint: WebhookEndpoint, config: WebhookEndpointConfig)] {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumFileBytes else { throw FileError("larger than \(maximumFileBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: path) else { throw FileError("cannot be read") }
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [Any] else { throw FileError("not a JSON list of endpoints") }
        guard !list.isEmpty, list.count <= maximumEndpoints else { throw FileError("lists 1 to \(maximumEndpoints) endpoints") }
        var seen: Set<String> = []
        var result: [(WebhookEndpoint, WebhookEndpointConfig)] = []
        for (index, item) in list.enumerated() {
            guard let object = item as? [String: Any] else { throw FileError("endpoint \(index + 1) is not an object") }
            guard let id = object["id"] as? String, (1...64).contains(id.utf8.count),
                  id.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else { throw FileError("endpoint \(index + 1): \"id\" must be 1 to 64 letters, digits, - or _") }
            let name = "endpoint \(id)"
            guard seen.insert(id).inserted else { throw FileError("\(name) is listed twice") }
            if let unknown = Set(object.keys).subtracting(keys).sorted().first { throw FileError("\(name): unknown key \"\(unknown)\"") }
            guard let url = object["url"] as? String else { throw FileError("\(name): \"url\" is required") }
            do {
                _ = try policy.check(url: url)
            } catch {
                throw FileError("\(name): \(error)")
            }
            var secrets = [try secret(object, "secret", name: name, required: true)!]
            if let previous = try secret(object, "previous_secret", name: name, required: false) { secrets.append(previous) }
            var events: Set<AuditEventKind>?
            if let raw = object["events"] {
                guard let names = raw as? [String], !names.isEmpty else { throw FileError("\(name): \"events\" is a non-empty list of event types") }
                var kinds: Set<AuditEventKind> = []
                for type in names {
                    guard let kind = AuditEventKind(rawValue: type) else {
                        throw FileError("\(name): unknown event type \"\(type)\" (known: \(AuditEventKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    kinds.insert(kind)
                }
                events = kinds
            }
            result.append((WebhookEndpoint(id: id, url: url, secrets: secrets), WebhookEndpointConfig(id: id, url: url, events: events)))
        }
        return result
    }

    /// `<key>` (inline) or `<key>_file` (a file holding it, trimmed): exactly one of them.
    private static func secret(_ object: [String: Any], _ key: String, name: String, required: Bool) throws(FileError) -> WebhookSecret? {
        let inline = object[key] as? String
        let file = object[key + "_file"] as? String
        if (object[key] != nil && inline == nil) || (object[key + "_file"] != nil && file == nil) {
            throw FileError("\(name): \"\(key)\" and \"\(key)_file\" are strings")
        }
        let text: String
        switch (inline, file) {
        case (nil, nil):
            if required { throw FileError("\(name): \"\(key)_file\" or \"\(key)\" is required") }
            return nil
        case (.some, .some): throw FileError("\(name): \"\(key)\" and \"\(key)_file\" are exclusive")
        case (let value?, nil): text = value
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
                throw FileError("\(name): \"\(key)_file\" \(path) cannot be read")
            }
            text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        do {
            return try WebhookSecret(text)
        } catch {
            throw FileError("\(name): \"\(key)\": \(error.code.rawValue): a secret is whsec_ and the base64 of 24 to 64 random bytes (e.g. whsec_$(openssl rand -base64 32))")
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
