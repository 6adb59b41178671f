public import Foundation
import COSECrypto
public import JOSE
import WebAuthnModel

/// The claims of a passkeyd access token (a JWT, RFC 9068-like: header `typ` `at+jwt`). Times are whole seconds.
public struct AccessTokenClaims: Sendable, Hashable {
    public let issuer: String
    /// One audience is written as a string, several as an array.
    public let audiences: [String]
    /// The user id (base64url of the user handle).
    public let subject: String
    public let issuedAt: Int64
    public let expiresAt: Int64
    /// The token's own id (base64url of 16 random bytes).
    public let tokenID: String
    /// The session id (base64url).
    public let sessionID: String
    public let authTime: Int64
    public let amr: [String]

    public init(
        issuer: String, audiences: [String], subject: String, issuedAt: Int64, expiresAt: Int64, tokenID: String, sessionID: String,
        authTime: Int64, amr: [String]
    ) {
        self.issuer = issuer
        self.audiences = audiences
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.sessionID = sessionID
        self.authTime = authTime
        self.amr = amr
    }

    /// The JSON payload, members in a fixed order, written directly (no encoder on the sign-in path).
    public var payload: [UInt8] {
        var out = "{\"iss\":" + Self.quoted(issuer) + ",\"sub\":" + Self.quoted(subject) + ",\"aud\":"
        out += audiences.count == 1 ? Self.quoted(audiences[0]) : "[" + audiences.map(Self.quoted).joined(separator: ",") + "]"
        out += ",\"iat\":\(issuedAt),\"exp\":\(expiresAt),\"jti\":" + Self.quoted(tokenID) + ",\"sid\":" + Self.quoted(sessionID)
        out += ",\"auth_time\":\(authTime),\"amr\":[" + amr.map(Self.quoted).joined(separator: ",") + "]"
        out += "}"
        return Array(out.utf8)
    }

    /// Reads the claims of a token (after its signature verified), refusing wrong types and missing members.
    public init(payload: [UInt8]) throws(SessionError) {
        guard case .object(let members)? = try? JSONReader.parse(payload, maxDepth: 4) else {
            throw SessionError(.accessTokenMalformed, "the claims are not a JSON object")
        }
        func string(_ name: String) throws(SessionError) -> String {
            guard case .string(let value)? = members[name] else { throw SessionError(.accessTokenMalformed, "\(name) is not a string") }
            return value
        }
        func seconds(_ name: String) throws(SessionError) -> Int64 {
            guard case .number(let value)? = members[name], value == value.rounded(), abs(value) < 1e15 else {
                throw SessionError(.accessTokenMalformed, "\(name) is not a whole number of seconds")
            }
            return Int64(value)
        }
        func strings(_ value: JSONValue?, _ name: String) throws(SessionError) -> [String] {
            guard case .array(let entries)? = value else { throw SessionError(.accessTokenMalformed, "\(name) is not an array") }
            var list: [String] = []
            for entry in entries {
                guard case .string(let text) = entry else { throw SessionError(.accessTokenMalformed, "\(name) holds a non-string") }
                list.append(text)
            }
            return list
        }
        issuer = try string("iss")
        subject = try string("sub")
        if case .string(let one)? = members["aud"] { audiences = [one] } else { audiences = try strings(members["aud"], "aud") }
        issuedAt = try seconds("iat")
        expiresAt = try seconds("exp")
        tokenID = try string("jti")
        sessionID = try string("sid")
        authTime = try seconds("auth_time")
        amr = try strings(members["amr"], "amr")
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = ""
        JSONString.append(text, to: &out)
        return out
    }
}

/// Issues and verifies passkeyd's access tokens.
public enum AccessTokens {
    /// The header `typ` (RFC 9068 §2.1).
    public static let type = "at+jwt"
    /// Larger tokens are refused before parsing.
    public static let maxLength = 8 * 1024

    /// Signs `claims` with `key` (its `kid` in the header).
    public static func issue(_ claims: AccessTokenClaims, key: SessionSigningKey) throws(JOSEError) -> String {
        try JWSSigner.sign(
            payload: claims.payload, algorithm: key.algorithm.jws, key: .privateKey(key.privateKey), keyID: key.keyID, type: type)
    }

    /// Verifies a token: form, `alg` (only the keys' algorithms), `kid` among the published keys, signature, `iss`,
    /// `aud`, then `exp` (expired when `now >= exp`). One ``SessionError`` code per check, in that order.
    public static func verify(_ token: String, keys: SessionKeyRing, policy: SessionPolicy, now: Date) throws(SessionError) -> AccessTokenClaims {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(compact: Array(token.utf8), maxLength: maxLength)
        } catch {
            throw SessionError(.accessTokenMalformed, error.reason)
        }
        guard jws.header["crit"] == nil else { throw SessionError(.accessTokenMalformed, "crit in the header") }
        guard let algorithm = SessionSigningAlgorithm(rawValue: jws.algorithmName) else {
            throw SessionError(.accessTokenAlgorithm, "alg \(jws.algorithmName.prefix(16))")
        }
        guard let kid = jws.keyID, let key = keys.published(at: now).first(where: { $0.keyID == kid }) else {
            throw SessionError(.accessTokenKeyUnknown, "kid \(jws.keyID?.prefix(64) ?? "absent")")
        }
        guard key.algorithm == algorithm else { throw SessionError(.accessTokenAlgorithm, "alg \(algorithm.rawValue) for a \(key.algorithm.rawValue) key") }
        do {
            try JWSVerifier.verify(jws, algorithm: algorithm.jws, key: .publicKey(key.privateKey.publicKey))
        } catch {
            throw SessionError(.accessTokenSignature, error.reason)
        }
        let claims = try AccessTokenClaims(payload: jws.payload)
        guard claims.issuer == policy.issuer else { throw SessionError(.accessTokenIssuer, "iss \(claims.issuer.prefix(128))") }
        guard claims.audiences.contains(where: policy.audiences.contains) else {
            throw SessionError(.accessTokenAudience, "aud \(claims.audiences.prefix(4))")
        }
        guard Double(claims.expiresAt) > now.timeIntervalSince1970 else {
            throw SessionError(.accessTokenExpired, "exp \(claims.expiresAt) is not after \(Int64(now.timeIntervalSince1970.rounded(.down)))")
        }
        return claims
    }
}
