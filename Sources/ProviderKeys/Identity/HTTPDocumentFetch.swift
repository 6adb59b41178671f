import AsyncHTTPClient
import Foundation
import IdentityCore
import Logging
import NIOCore
import NIOHTTP1

/// One GET of a small JSON document (a JWK set or a discovery document): a deadline, a size cap, status 200 only, and
/// the URL rule checked again on the URL the response finally came from (a redirect may not leave https).
struct HTTPDocumentFetch {
    struct Document {
        let body: [UInt8]
        let headers: HTTPHeaders
    }

    let client: HTTPClient
    let timeout: TimeInterval
    let maxBytes: Int
    let logger: Logger

    func get(_ url: String, what: String) async throws(ProviderKeyError) -> Document {
        try ProviderURL.check(url, what: what)
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        // Clamped so an absurd configuration cannot overflow the nanosecond count.
        let deadline = NIODeadline.now() + .nanoseconds(Int64(min(max(0, timeout), 3600) * 1_000_000_000))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline, logger: logger)
        } catch {
            throw ProviderKeyFailure.fetchFailed.error("\(what) \(url): \(Self.describe(error))")
        }
        if let final = response.url?.absoluteString, final != url {
            try ProviderURL.check(final, what: "\(what) redirect target")
        }
        guard response.status == .ok else {
            // Drain at most a little of an error body so the connection can be reused; its content is not logged.
            _ = try? await response.body.collect(upTo: 4096)
            throw ProviderKeyFailure.httpStatus.error("\(what) \(url) answered \(response.status.code)")
        }
        do {
            var buffer = try await response.body.collect(upTo: maxBytes)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            return Document(body: bytes, headers: response.headers)
        } catch is NIOTooManyBytesError {
            throw ProviderKeyFailure.tooLarge.error("\(what) \(url) is larger than \(maxBytes) bytes")
        } catch {
            throw ProviderKeyFailure.fetchFailed.error("\(what) \(url) body: \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded { return "timed out" }
            return "\(error)"
        }
        return String(describing: error).prefix(200).description
    }
}

/// How long a fetched document may be used: `Cache-Control: max-age` less `Age`, clamped to `[minimum, maximum]`.
enum CacheLifetime {
    /// The lifetime from `headers`. Without a usable `max-age` (none, `no-cache`, `no-store`, or an unreadable value)
    /// it is `minimum`: the set is needed either way, and the shortest allowed lifetime keeps rotation visible soonest.
    static func lifetime(headers: HTTPHeaders, minimum: TimeInterval, maximum: TimeInterval) -> TimeInterval {
        var maxAge: Double?
        var noCache = false
        for value in headers["Cache-Control"] {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                switch name {
                case "no-cache", "no-store": noCache = true
                case "max-age" where parts.count == 2:
                    let raw = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    if !raw.isEmpty, raw.utf8.count <= 12, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Double(raw) {
                        maxAge = min(maxAge ?? .infinity, seconds)
                    }
                default: continue
                }
            }
        }
        guard !noCache, var seconds = maxAge else { return minimum }
        if let ageText = headers.first(name: "Age"), ageText.utf8.count <= 12, let age = Double(ageText), age >= 0 {
            seconds -= age
        }
        return min(max(seconds, minimum), max(maximum, minimum))
    }
}
