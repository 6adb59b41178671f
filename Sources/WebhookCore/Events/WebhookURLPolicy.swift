public import Foundation

/// Which endpoint URLs and addresses deliveries may go to (a server-side request forgery guard).
///
/// The safe default: `https` only; no `user:password@`; no fragment; the host is not `localhost` (nor `*.localhost`)
/// and no numeric form of an address other than a dotted quad or bracketed IPv6; an IP literal, and every address the
/// host resolves to, must be global: loopback, private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10),
/// link-local (169.254/16, where cloud metadata lives, fe80::/10), reserved and multicast addresses are refused,
/// also inside IPv4-mapped, IPv4-compatible, NAT64 and 6to4 IPv6 forms. ``unsafeAllowingPrivateTargets()`` (for
/// development and tests) allows plain `http`, `localhost`, loopback, private and link-local addresses; reserved and
/// multicast addresses and credentials in the URL are refused either way.
public struct WebhookURLPolicy: Sendable, Hashable {
    public private(set) var allowsPrivateTargets = false

    public init() {}

    /// Allows `http` and loopback, private and link-local targets: anyone who can configure an endpoint can then make
    /// passkeyd POST to the internal network. Development and tests only.
    public func unsafeAllowingPrivateTargets() -> WebhookURLPolicy {
        var policy = self
        policy.allowsPrivateTargets = true
        return policy
    }

    /// A checked endpoint URL: its scheme, host (without brackets), port, and the address when the host is one.
    public struct Target: Sendable, Hashable {
        public let url: String
        public let isHTTPS: Bool
        public let host: String
        public let port: Int
        public let address: IPAddress?
    }

    /// Checks the URL's form and, when its host is an IP literal, that address.
    /// - Throws: ``WebhookError/Code/urlMalformed``, ``WebhookError/Code/urlScheme``,
    ///   ``WebhookError/Code/urlCredentials``, ``WebhookError/Code/addressForbidden``.
    public func check(url text: String) throws(WebhookError) -> Target {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              var host = components.host, !host.isEmpty
        else {
            throw WebhookError(.urlMalformed, "\(text.prefix(120).debugDescription) is not an absolute URL with a host")
        }
        guard components.user == nil, components.password == nil, !(components.percentEncodedHost ?? "").contains("@") else {
            throw WebhookError(.urlCredentials, "a webhook URL may not carry user:password@")
        }
        guard components.fragment == nil else { throw WebhookError(.urlMalformed, "a webhook URL has no #fragment") }
        switch scheme {
        case "https": break
        case "http" where allowsPrivateTargets: break
        default:
            throw WebhookError(.urlScheme, "\(text.prefix(120).debugDescription) is not https (http only with the unsafe setting)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw WebhookError(.urlMalformed, "port \(port) is out of range") }
        let address = IPAddress(host)
        if let address {
            try check(address: address, host: host)
        } else {
            guard !host.contains("%"), !host.contains(":") else { throw WebhookError(.urlMalformed, "host \(host.debugDescription) is not a name or an address") }
            if host == "localhost" || host.hasSuffix(".localhost"), !allowsPrivateTargets {
                throw WebhookError(.addressForbidden, "\(host) is loopback")
            }
            // 127.1, 0x7f.0.0.1, 2130706433: other spellings of addresses that resolvers accept.
            let lastLabel = host.split(separator: ".").last ?? ""
            if lastLabel.first?.isNumber == true, lastLabel.allSatisfy({ $0.isHexDigit || $0 == "x" }) {
                throw WebhookError(.addressForbidden, "\(host) is a numeric host that is not a dotted quad")
            }
        }
        return Target(url: text, isHTTPS: scheme == "https", host: host, port: port, address: address)
    }

    /// Checks one address (an IP literal, or one the host resolved to).
    /// - Throws: ``WebhookError/Code/addressForbidden``.
    public func check(address: IPAddress, host: String) throws(WebhookError) {
        let scope = address.scope
        switch scope {
        case .global: return
        case .loopback, .privateNetwork, .linkLocal:
            if allowsPrivateTargets { return }
        case .reserved, .multicast: break
        }
        throw WebhookError(.addressForbidden, "\(host) is \(address) (\(scope.rawValue))")
    }
}
