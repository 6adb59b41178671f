import COSECrypto
import Foundation
import IdentityCore
import JOSE
import WebAuthnModel

/// `../shared/vectors/apple/idtoken` (or `PASSKEYD_VECTORS`).
enum IDTokenVectors {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PASSKEYD_VECTORS"] {
            return URL(fileURLWithPath: override).appendingPathComponent("apple/idtoken")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors/apple/idtoken")
    }()

    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent(path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Failure.unreadable(path) }
        return object
    }

    static func jwks(_ object: Any?) throws -> JWKSet {
        let data = try JSONSerialization.data(withJSONObject: object as Any)
        return try JWKSet(json: Array(data))
    }

    enum Failure: Error { case unreadable(String) }
}

/// Mints ID tokens with this test's own keys (the positive cases and every negative one).
struct Minter {
    let rsa: PrivateKey
    let ec: PrivateKey
    let keys: JWKSet

    static let shared: Minter = {
        let rsa = try! PrivateKey.generate(for: .rs256)
        let ec = try! PrivateKey.generate(for: .es256)
        let members = [
            JWK.members(of: rsa.publicKey, keyID: "rsa-1", algorithm: .rs256)!,
            JWK.members(of: ec.publicKey, keyID: "ec-1", algorithm: .es256)!,
        ]
        let keys = try! JWKSet(json: JSONText.bytes(of: .object(["keys": .array(members.map(JSONValue.object))])))
        return Minter(rsa: rsa, ec: ec, keys: keys)
    }()

    /// Claims for `profile` and `session` at `now`, with `changes` applied (a nil value removes the claim).
    static func claims(
        profile: ProviderProfile, session: PendingIDTokenSession, now: Date, _ changes: [String: JSONValue?] = [:]
    ) -> [UInt8] {
        var claims: [String: JSONValue] = [
            "iss": .string(profile.issuers[0]), "aud": .string(profile.audiences[0]), "sub": .string("001234.abcdef.0001"),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)), "exp": .number(now.timeIntervalSince1970.rounded(.down) + 600),
            "nonce": .string(IDTokenSignIn.providerNonce(for: session.nonce, rule: profile.nonceRule)),
            "email": .string("person@example.com"), "email_verified": .string("true"),
        ]
        for (name, value) in changes { claims[name] = value ?? nil }
        return JSONText.bytes(of: .object(claims))
    }

    func token(
        _ payload: [UInt8], algorithm: JWSAlgorithm = .rs256, keyID: String? = "rsa-1", extraHeader: [String: JSONValue] = [:]
    ) -> [UInt8] {
        let key: JWSSigningKey = algorithm == .es256 ? .privateKey(ec) : .privateKey(rsa)
        return Array(try! JWSSigner.sign(payload: payload, algorithm: algorithm, key: key, keyID: keyID, extraHeader: extraHeader).utf8)
    }

    /// A compact JWS with the given header and payload text and signature bytes (for alg none and other forgeries).
    static func raw(header: String, payload: [UInt8], signature: [UInt8] = []) -> [UInt8] {
        Array((Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)).utf8)
    }
}
