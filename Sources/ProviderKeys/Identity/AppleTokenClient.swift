public import AsyncHTTPClient
public import Foundation
public import IdentityCore
public import Logging
import NIOCore
import NIOHTTP1
import WebAuthnModel

/// Sign in with Apple's token endpoints: redeeming an authorization code for a refresh token, and revoking a refresh
/// token (as Apple requires when an account is deleted).
///
/// Both are form POSTs (`application/x-www-form-urlencoded`) with the client id and a client secret
/// (``AppleClientSecret``). URLs follow the module's rule (`https://`, or plain `http://` to a loopback host); each
/// request has ``timeout`` from connection to last byte; redirects are never followed (a 3xx is a failure; the
/// `HTTPClient` passed in should disallow them, and this type refuses any answer that came from elsewhere).
/// Apple's `4xx {"error":"invalid_grant"}` is ``ProviderTokenError/Kind/invalidGrant``; a network failure, a timeout,
/// a 5xx, a 3xx, another 4xx (`invalid_client`: a configuration problem, not the code's) or an unreadable answer is
/// ``ProviderTokenError/Kind/unavailable``.
///
/// The `HTTPClient` belongs to the caller; this type never shuts it down.
public struct AppleTokenClient: ProviderTokenEndpoint {
    public static let defaultTokenURL = "https://appleid.apple.com/auth/token"
    public static let defaultRevokeURL = "https://appleid.apple.com/auth/revoke"

    public let tokenURL: String
    public let revokeURL: String
    public let timeout: TimeInterval
    /// The largest answer read.
    public let maxResponseBytes: Int
    let client: HTTPClient
    let logger: Logger

    /// - Throws: ``ProviderKeyError`` (``ProviderKeyFailure/insecureURL``) for a URL that is not https (or loopback
    ///   http).
    public init(
        tokenURL: String = Self.defaultTokenURL, revokeURL: String = Self.defaultRevokeURL, httpClient: HTTPClient,
        timeout: TimeInterval = 5, maxResponseBytes: Int = 64 * 1024, logger: Logger
    ) throws(ProviderKeyError) {
        self.tokenURL = try ProviderURL.check(tokenURL, what: "Apple token URL")
        self.revokeURL = try ProviderURL.check(revokeURL, what: "Apple revoke URL")
        self.client = httpClient
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.logger = logger
    }

    public func exchange(code: String, clientID: String, clientSecret: String) async throws(ProviderTokenError) -> ProviderTokenGrant {
        let body = try await post(tokenURL, what: "Apple token endpoint", fields: [
            ("client_id", clientID), ("client_secret", clientSecret), ("code", code), ("grant_type", "authorization_code"),
        ])
        guard case .object(let members)? = try? JSONReader.parse(body, maxDepth: 8) else {
            throw ProviderTokenError(.unavailable, "Apple token endpoint answered 200 without a JSON object")
        }
        guard case .string(let refreshToken)? = members["refresh_token"], !refreshToken.isEmpty else {
            throw ProviderTokenError(.unavailable, "Apple token endpoint answered without a refresh_token")
        }
        var idToken: String?
        if case .string(let token)? = members["id_token"] { idToken = token }
        return ProviderTokenGrant(refreshToken: refreshToken, idToken: idToken)
    }

    public func revoke(token: String, clientID: String, clientSecret: String) async throws(ProviderTokenError) {
        _ = try await post(revokeURL, what: "Apple revoke endpoint", fields: [
            ("client_id", clientID), ("client_secret", clientSecret), ("token", token), ("token_type_hint", "refresh_token"),
        ])
    }

    /// POSTs the form; returns the body of a 200.
    private func post(_ url: String, what: String, fields: [(String, String)]) async throws(ProviderTokenError) -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.form(fields)))
        let deadline = NIODeadline.now() + .nanoseconds(Int64(min(max(0, timeout), 3600) * 1_000_000_000))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline, logger: logger)
        } catch {
            let detail = (error as? HTTPClientError) == .deadlineExceeded ? "timed out" : String(describing: error).prefix(200).description
            throw ProviderTokenError(.unavailable, "\(what) \(url): \(detail)")
        }
        if let final = response.url?.absoluteString, final != url {
            throw ProviderTokenError(.unavailable, "\(what) \(url) redirected")
        }
        let body: [UInt8]
        do {
            var buffer = try await response.body.collect(upTo: maxResponseBytes)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            throw ProviderTokenError(.unavailable, "\(what) \(url) body: \(String(describing: error).prefix(200))")
        }
        let status = Int(response.status.code)
        switch status {
        case 200:
            return body
        case 400..<500:
            // OAuth's error member names the cause (invalid_grant, invalid_client, ...): a short code, safe to log.
            var code = "unknown"
            if case .object(let members)? = try? JSONReader.parse(body, maxDepth: 8), case .string(let text)? = members["error"],
               text.utf8.count <= 64 {
                code = text
            }
            if code == "invalid_grant" {
                throw ProviderTokenError(.invalidGrant, "\(what) answered \(status) \(code)")
            }
            // invalid_client, invalid_request, unauthorized_client, 429, ...: not the code's fault (a configuration,
            // protocol or rate problem on this side), so not reported as a refused code.
            throw ProviderTokenError(.unavailable, "\(what) answered \(status) \(code)")
        default:
            throw ProviderTokenError(.unavailable, "\(what) answered \(status)")
        }
    }

    /// `application/x-www-form-urlencoded`: unreserved characters as they are, everything else percent-encoded.
    static func form(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return output
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
