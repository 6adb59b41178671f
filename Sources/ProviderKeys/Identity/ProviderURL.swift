import Foundation
import IdentityCore

/// The one rule for every URL this module fetches: `https://`, or plain `http://` to a loopback host (tests and a local
/// walkthrough). Userinfo (`user:password@`) is refused so no credential ends up in a URL or a log line.
enum ProviderURL {
    /// Hosts that may be reached over plain HTTP.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "[::1]", "localhost"]

    /// Checks `text` and returns it unchanged.
    /// - Throws: ``ProviderKeyFailure/insecureURL``.
    @discardableResult
    static func check(_ text: String, what: String) throws(ProviderKeyError) -> String {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            throw ProviderKeyFailure.insecureURL.error("\(what) \(text.prefix(120).debugDescription) is not an absolute URL")
        }
        guard components.user == nil, components.password == nil else {
            throw ProviderKeyFailure.insecureURL.error("\(what) carries credentials")
        }
        switch scheme {
        case "https":
            return text
        case "http" where loopbackHosts.contains(host.lowercased()):
            return text
        default:
            throw ProviderKeyFailure.insecureURL.error(
                "\(what) \(text.prefix(120).debugDescription) is not https (plain http only for loopback hosts)")
        }
    }
}
