import Foundation
import IdentityCore
import JOSE
import WebAuthnModel

/// The `idtoken` target: an ID token through `UnverifiedIDToken` and `IDTokenSignIn.verify` under two profiles whose
/// keys and times are those of the shared vectors (LINE ES256 at its recorded time with nonce `ABCABC`, and Apple
/// RS256 at its time), so the seeded tokens reach the claim checks and mutations of them explore every check.
extension FuzzTarget {
    struct IDTokenCase: Sendable {
        let profile: ProviderProfile
        let session: PendingIDTokenSession
        let now: Date
    }

    /// The vectors' key sets (from `PASSKEYD_FUZZ_ROOTS/../apple/idtoken`); empty when they are not there.
    static let idTokenKeys: JWKSet = {
        guard let roots = ProcessInfo.processInfo.environment["PASSKEYD_FUZZ_ROOTS"] else { return JWKSet(keys: []) }
        let base = URL(fileURLWithPath: roots).deletingLastPathComponent().appendingPathComponent("apple/idtoken")
        var keys: [JWK] = []
        func collect(_ file: String, _ path: (JSONValue) -> JSONValue?) {
            guard let data = FileManager.default.contents(atPath: base.appendingPathComponent(file).path),
                  let document = try? JSONReader.parse(Array(data), maxDepth: 64), let jwks = path(document),
                  let set = try? JWKSet(json: JSONText.bytes(of: jwks))
            else { return }
            keys += set.keys
        }
        collect("line/line-sdk-ios-es256.json") { $0["jwks"] }
        collect("apple/aspnet-contrib-apple-bundle.json") { document in
            guard case .array(let items)? = document["items"], items.count > 1 else { return nil }
            return items[1]["contentJson"]
        }
        return JWKSet(keys: keys)
    }()

    static let idTokenCases: [IDTokenCase] = {
        let line = ProviderProfile.line(channelIDs: ["12345"], channelSecret: Array("fuzz-channel-secret-0123".utf8))
        let apple = ProviderProfile.apple(audiences: ["com.martincostello.signinwithapple.test.client"])
        func session(_ profile: ProviderProfile, _ nonce: String, _ at: Double) -> IDTokenCase {
            IDTokenCase(
                profile: profile,
                session: PendingIDTokenSession(
                    id: Array(repeating: 1, count: 16), provider: profile.name, nonce: nonce,
                    expiresAt: Date(timeIntervalSince1970: at + 300)),
                now: Date(timeIntervalSince1970: at))
        }
        return [session(line, "ABCABC", 1_535_959_800), session(apple, "ABCABC", 1_587_211_600)]
    }()

    /// Parse and verify under each profile; accepted when any profile accepts it.
    static func idToken(_ input: [UInt8]) -> Bool {
        var accepted = false
        for entry in idTokenCases {
            do {
                let token = try UnverifiedIDToken(input, profile: entry.profile)
                _ = token.keyID
                _ = try IDTokenSignIn.verify(token, session: entry.session, profile: entry.profile, keys: idTokenKeys, now: entry.now)
                accepted = true
            } catch {
                _ = error.code
            }
        }
        return accepted
    }
}
