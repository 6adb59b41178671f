public import Foundation
import COSECrypto
import JOSE
import WebAuthnModel

/// A person as a provider vouched for them, after every check passed. Only ``IDTokenSignIn/verify`` makes one.
public struct VerifiedIdentity: Sendable, Hashable {
    public let provider: String
    public let issuer: String
    public let subject: String
    /// The audience that matched (the client id the token was issued to).
    public let audience: String
    public let email: String?
    /// What the provider says about the e-mail; `nil` when it says nothing. Never a reason to link accounts.
    public let emailVerified: Bool?
    /// Apple: the e-mail is a private relay address.
    public let isPrivateEmail: Bool?
    /// Apple's `real_user_status` (0 unsupported, 1 unknown, 2 likely real).
    public let realUserStatus: Int?
    /// LINE and Google carry a display name.
    public let name: String?
    public let issuedAt: Date
    public let expiresAt: Date
}

/// The claims of an ID token, read with passkeyd's strict JSON reader (duplicate members refused).
struct IDTokenClaims {
    let members: [String: JSONValue]

    init(payload: [UInt8]) throws(IdentityError) {
        let value: JSONValue
        do {
            value = try JSONReader.parse(payload, maxDepth: 16)
        } catch {
            throw IdentityError(.malformed, "claims: \(error)")
        }
        guard case .object(let members) = value else { throw IdentityError(.malformed, "claims are not a JSON object") }
        self.members = members
    }

    func verified(session: PendingIDTokenSession, profile: ProviderProfile, now: Date) throws(IdentityError) -> VerifiedIdentity {
        // iss
        guard case .string(let issuer)? = members["iss"], profile.issuers.contains(issuer) else {
            throw IdentityError(.issuerMismatch, "iss \(describe(members["iss"])) is not \(profile.issuers)")
        }
        // Every accepted spelling names one issuer: the identity is (canonical issuer, subject) whichever was used.
        // aud (a string or an array); with several audiences, azp must name ours (OpenID Connect Core §3.1.3.7).
        let audiences: [String]
        switch members["aud"] {
        case .string(let one)?: audiences = [one]
        case .array(let many)?:
            var list: [String] = []
            for entry in many {
                guard case .string(let text) = entry else { throw IdentityError(.malformed, "aud entry is not a string") }
                list.append(text)
            }
            audiences = list
        default: throw IdentityError(.audienceMismatch, "aud \(describe(members["aud"]))")
        }
        guard let audience = audiences.first(where: profile.audiences.contains) else {
            throw IdentityError(.audienceMismatch, "aud \(audiences.prefix(4)) holds no configured client id")
        }
        if audiences.count > 1 {
            guard case .string(let azp)? = members["azp"], profile.audiences.contains(azp) else {
                throw IdentityError(.audienceMismatch, "several audiences and azp \(describe(members["azp"])) is not ours")
            }
        }
        // exp, nbf, iat (each a JSON number when present; auth_time too, though nothing reads its value)
        guard let exp = try numericDate("exp") else { throw IdentityError(.expired, "no exp") }
        guard now.timeIntervalSince1970 <= exp + profile.clockSkew else {
            throw IdentityError(.expired, "exp \(Int(exp)) is before now \(Int(now.timeIntervalSince1970)) - \(Int(profile.clockSkew)) s")
        }
        if let nbf = try numericDate("nbf") {
            guard nbf <= now.timeIntervalSince1970 + profile.clockSkew else {
                throw IdentityError(
                    .notYetValid, "nbf \(Int(nbf)) is after now \(Int(now.timeIntervalSince1970)) + \(Int(profile.clockSkew)) s")
            }
        }
        guard let iat = try numericDate("iat") else { throw IdentityError(.issuedAtInvalid, "no iat") }
        guard iat <= now.timeIntervalSince1970 + profile.clockSkew else {
            throw IdentityError(.issuedAtInvalid, "iat \(Int(iat)) is after now \(Int(now.timeIntervalSince1970)) + \(Int(profile.clockSkew)) s")
        }
        guard now.timeIntervalSince1970 - iat <= profile.maxTokenAge + profile.clockSkew else {
            throw IdentityError(.issuedAtInvalid, "token issued \(Int(now.timeIntervalSince1970 - iat)) s ago (max \(Int(profile.maxTokenAge)) s)")
        }
        _ = try numericDate("auth_time")
        // nonce, compared in constant time under the provider's rule.
        guard let nonceValue = members["nonce"] else { throw IdentityError(.nonceMissing, "the token has no nonce") }
        guard case .string(let nonce) = nonceValue else { throw IdentityError(.nonceMismatch, "nonce is not a string") }
        let expected = IDTokenSignIn.providerNonce(for: session.nonce, rule: profile.nonceRule)
        guard constantTimeEquals(Array(nonce.utf8), Array(expected.utf8)) else {
            throw IdentityError(.nonceMismatch, "nonce is not the \(profile.nonceRule.rawValue) form of this session's nonce")
        }
        // sub
        guard case .string(let subject)? = members["sub"], !subject.isEmpty, subject.utf8.count <= 255 else {
            throw IdentityError(.subjectMissing, "sub \(describe(members["sub"]))")
        }
        return VerifiedIdentity(
            provider: profile.name, issuer: profile.canonicalIssuer, subject: subject, audience: audience,
            email: string("email"), emailVerified: flag("email_verified"), isPrivateEmail: flag("is_private_email"),
            realUserStatus: integer("real_user_status"), name: string("name"),
            issuedAt: Date(timeIntervalSince1970: iat), expiresAt: Date(timeIntervalSince1970: exp))
    }

    /// A NumericDate (RFC 7519 §2): a JSON number of seconds since 1970, 0 ≤ value < 10¹¹. Anything else, a string
    /// of digits included (the aspnet-contrib Apple-shaped vectors carry `iat` so), is `malformed`; `nil` when absent.
    private func numericDate(_ name: String) throws(IdentityError) -> Double? {
        switch members[name] {
        case nil: return nil
        case .number(let value)?:
            guard value.isFinite, value >= 0, value < 1e11 else { throw IdentityError(.malformed, "\(name) is out of range") }
            return value
        default: throw IdentityError(.malformed, "\(name) is not a NumericDate (a JSON number)")
        }
    }

    private func string(_ name: String) -> String? {
        if case .string(let text)? = members[name], text.utf8.count <= 320 { return text }
        return nil
    }

    /// Apple sends its flags as booleans or as the strings "true" / "false".
    private func flag(_ name: String) -> Bool? {
        switch members[name] {
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    private func integer(_ name: String) -> Int? {
        if case .number(let value)? = members[name], value == value.rounded(), abs(value) < 1e9 { return Int(value) }
        return nil
    }

    private func describe(_ value: JSONValue?) -> String {
        switch value {
        case nil: return "missing"
        case .string(let text)?: return text.prefix(64).debugDescription
        default: return "of the wrong type"
        }
    }
}
