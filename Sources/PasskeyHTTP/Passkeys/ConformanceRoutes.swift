import PasskeyApp
// The FIDO conformance transport binding: the four endpoints of the FIDO Alliance "Server Requirements and
// Transport Binding Profile" (conformance-test-tools-resources docs/FIDO2/Server/Conformance-Test-API.md), served
// when `HTTPConfiguration.conformanceBinding` is on (PASSKEYD_FIDO_CONFORMANCE=on). Off by default.
//
//   POST /attestation/options   ServerPublicKeyCredentialCreationOptionsRequest → …Response (+ session cookie)
//   POST /attestation/result    ServerPublicKeyCredential (ServerAuthenticatorAttestationResponse) → ServerResponse
//   POST /assertion/options     ServerPublicKeyCredentialGetOptionsRequest → …Response (+ session cookie)
//   POST /assertion/result      ServerPublicKeyCredential (ServerAuthenticatorAssertionResponse) → ServerResponse
//
// This file only translates shapes: every ceremony runs through CeremonyService (results through ConformanceResults,
// which ends their session) and the engine, exactly as /v1 does, under the same relying-party policies. Decisions
// (docs/fido-conformance.md):
//
// - Correlation. The pending ceremony stays in the store keyed by its challenge, as for /v1. Options also set a
//   session cookie (`passkeyd_attestation` on Path=/attestation, `passkeyd_assertion` on Path=/assertion; HttpOnly,
//   SameSite=Strict, Max-Age = the challenge timeout) whose value is that challenge, base64url. A result is accepted
//   only when its clientData challenge equals its cookie's: without a readable cookie it is refused
//   (`session_missing`, nothing consumed); with another session's challenge it is refused (`challenge_mismatch`) and
//   the cookie's own ceremony is consumed. Every result that reaches its session (authorised, body read, readable
//   cookie) consumes the session's ceremony, whatever the outcome, and clears the cookie. The
//   challenge is not a secret (the options gave it to the same client), so the cookie needs no signature; many
//   instances share it through the store. The cookie binds a result to its options call (no crossed sessions); it
//   authenticates nobody (whoever holds a response can read its challenge), which is the API keys' job.
// - Errors. `{"status":"failed","errorMessage":"<code>: <message>"}` with the status /v1 uses for the same failure
//   (400 malformed input, unknown or expired challenge, missing session; 401 no API key; 404 unknown credential;
//   409 duplicate credential; 410 expired; 413 too large; 422 failed verification; 500/503 server faults). The body
//   also carries /v1's `error` object, so one schema and one code list serve both APIs.
// - Echoes. The profile wants `authenticatorSelection` and `extensions` echoed: the response names exactly the
//   `authenticatorSelection` members the request named (with the values the engine enforces, which differ only when
//   the relying party's policy is stricter), and the requested `extensions` (the `credProps` input /v1 adds is not
//   sent here; the engine's state does not depend on it).
// - The profile's `ServerPublicKeyCredential` has no `rawId`: when absent it is `id` (the profile defines `id` as the
//   base64url credential id); `getClientExtensionResults` is read as `clientExtensionResults`; `userHandle: ""` is
//   no user handle.
// - API keys apply as on /v1 (`Authorization: Bearer`); the conformance tools send none, so run them against an
//   instance without PASSKEYD_API_KEYS.
import Foundation
import Hummingbird
import NIOCore
import PasskeyStore
import WebAuthnCore
import WebAuthnModel


/// The session cookie of one ceremony kind.
struct ConformanceSession: Sendable {
    let name: String
    let path: String
    let kind: CeremonyKind

    static let attestation = ConformanceSession(name: "passkeyd_attestation", path: "/attestation", kind: .registration)
    static let assertion = ConformanceSession(name: "passkeyd_assertion", path: "/assertion", kind: .authentication)

    static let missing = APIError(
        status: 400, code: "session_missing",
        message: "No session cookie from an options call of this ceremony: request options first and send its cookie.")

    /// The cookie that binds `challenge` to this client.
    func cookie(challenge: String, lifetime: Int) -> Cookie {
        Cookie(name: name, value: challenge, maxAge: lifetime, path: path, httpOnly: true, sameSite: .strict)
    }

    /// The cookie that ends the session (sent by every result that reached the session).
    var expired: Cookie { Cookie(name: name, value: "", maxAge: 0, path: path, httpOnly: true, sameSite: .strict) }

    /// The challenge the request's cookie carries (16–64 bytes, strict base64url), or nil.
    func challenge(in request: Request) -> [UInt8]? {
        guard let value = request.cookies[name]?.value, let bytes = Base64URL.decodeStrict(value), (16...64).contains(bytes.count)
        else { return nil }
        return bytes
    }
}

/// Registers the four endpoints of the conformance transport binding.
func addConformanceRoutes(to router: Router<PasskeyRequestContext>, api: API) {
    let results = ConformanceResults(ceremonies: api.service)
    router.on(.conformanceAttestationOptions) { request, context in
        await api.handleConformance(request, context, .conformanceAttestationOptions, ending: nil) { body in
            try await api.conformanceAttestationOptions(body)
        }
    }
    router.on(.conformanceAttestationResult) { request, context in
        await api.handleConformance(request, context, .conformanceAttestationResult, ending: .attestation) { body in
            try await api.conformanceResult(body, request: request, session: .attestation, results: results)
        }
    }
    router.on(.conformanceAssertionOptions) { request, context in
        await api.handleConformance(request, context, .conformanceAssertionOptions, ending: nil) { body in
            try await api.conformanceAssertionOptions(body)
        }
    }
    router.on(.conformanceAssertionResult) { request, context in
        await api.handleConformance(request, context, .conformanceAssertionResult, ending: .assertion) { body in
            try await api.conformanceResult(body, request: request, session: .assertion, results: results)
        }
    }
}

// MARK: - response shapes

/// `ServerPublicKeyCredentialCreationOptionsResponse`.
struct ConformanceCreationOptions: Encodable {
    let status = "ok"
    let errorMessage = ""
    let rp: RelyingPartyEntityJSON
    let user: UserEntityJSON
    let challenge: String
    let pubKeyCredParams: [CredentialParametersJSON]
    let timeout: Int?
    let excludeCredentials: [CredentialDescriptorJSON]
    let authenticatorSelection: AuthenticatorSelectionJSON?
    let attestation: String?
    let extensions: [String: JSONValue]?
}

/// `ServerPublicKeyCredentialGetOptionsResponse`.
struct ConformanceRequestOptions: Encodable {
    let status = "ok"
    let errorMessage = ""
    let challenge: String
    let timeout: Int?
    let rpId: String?
    let allowCredentials: [CredentialDescriptorJSON]
    let userVerification: String?
    let extensions: [String: JSONValue]?
}

extension APIError {
    /// The profile's `ServerResponse` for a failure, with /v1's `error` object alongside.
    var conformanceBody: [UInt8] {
        var text = #"{"status":"failed","errorMessage":"#
        JSONString.append("\(code): \(message)", to: &text)
        text += #","error":{"code":"#
        JSONString.append(code, to: &text)
        text += #","message":"#
        JSONString.append(message, to: &text)
        text += "}}"
        return Array(text.utf8)
    }
}

extension API {
    static let conformanceOK: [UInt8] = Array(#"{"status":"ok","errorMessage":""}"#.utf8)

    /// ``handle(_:_:_:_:)`` with the profile's failure body: authenticates, reads the body (capped), runs `body`,
    /// records and logs the outcome. `ending`: the session a result ends; its cookie is cleared by every reply that
    /// reached the session (success or failure), not by one refused before (401, 413, no readable cookie).
    func handleConformance(
        _ request: Request, _ context: PasskeyRequestContext, _ operation: Operation, ending: ConformanceSession?,
        _ body: @escaping @Sendable ([UInt8]) async throws -> Response
    ) async -> Response {
        await handle(
            request, context, operation, failureBody: { $0.conformanceBody },
            adjust: { response, failed in
                // A result that reached its session (a readable cookie, authorised, body read) ended it.
                if let ending, ending.challenge(in: request) != nil, ![401, 413].contains(failed?.error.status) {
                    response.setCookie(ending.expired)
                }
            }
        ) { bytes, _ in try await body(bytes) }
    }

    /// The challenge lifetime in whole seconds (at least 1), for the cookie's Max-Age.
    var sessionLifetime: Int {
        let (seconds, attoseconds) = service.relyingParty.challengeTimeout.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    // MARK: options

    /// `ServerPublicKeyCredentialCreationOptionsRequest` {username, displayName, authenticatorSelection,
    /// attestation, extensions}.
    func conformanceAttestationOptions(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        guard case .string(let username)? = members["username"], !username.isEmpty, API.isText(username),
            !username.utf8.contains(0)
        else {
            throw APIError(status: 400, code: "malformed_json", message: "username is required (a string of 1-256 characters, without U+0000).")
        }
        let displayName: String
        switch members["displayName"] {
        case nil, .null?: displayName = username
        case .string(let value)? where API.isText(value): displayName = value
        default: throw APIError(status: 400, code: "malformed_json", message: "displayName must be a string of at most 256 characters, without U+0000.")
        }
        let requestedSelection = try decode(AuthenticatorSelectionJSON.self, members["authenticatorSelection"])
        let extensions = try decode([String: JSONValue].self, members["extensions"])
        let request = RegistrationRequest(
            authenticatorSelection: requestedSelection, attestation: try decode(String.self, members["attestation"]),
            extensions: extensions)
        // The test plan registers one username repeatedly and expects its credentials excluded: find or create by
        // name, which only this binding (off by default, never for production) does.
        let options = try await service.withCeremonyTable.beginRegistration(
            for: .nameForConformanceTesting(name: username, displayName: displayName), request: request)

        // Echo the selection members the request named, with the values the engine enforces.
        var selection = options.authenticatorSelection
        if let requestedSelection, let enforced = selection {
            selection = AuthenticatorSelectionJSON(
                authenticatorAttachment: requestedSelection.authenticatorAttachment == nil ? nil : enforced.authenticatorAttachment,
                residentKey: requestedSelection.residentKey == nil ? nil : enforced.residentKey,
                requireResidentKey: requestedSelection.requireResidentKey == nil ? nil : enforced.requireResidentKey,
                userVerification: requestedSelection.userVerification == nil ? nil : enforced.userVerification)
        }
        let reply = ConformanceCreationOptions(
            rp: options.rp, user: options.user, challenge: options.challenge, pubKeyCredParams: options.pubKeyCredParams,
            timeout: options.timeout, excludeCredentials: options.excludeCredentials, authenticatorSelection: selection,
            attestation: options.attestation,
            extensions: extensions.map { requested in options.extensions?.filter { requested[$0.key] != nil } ?? [:] })
        var response = try json(status: .ok, reply)
        response.setCookie(ConformanceSession.attestation.cookie(challenge: options.challenge, lifetime: sessionLifetime))
        return response
    }

    /// `ServerPublicKeyCredentialGetOptionsRequest` {username, userVerification, extensions}. An unknown username
    /// gets options of the same shape as a known one (as on /v1: names cannot be probed); an empty one asks for a
    /// discoverable credential.
    func conformanceAssertionOptions(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        guard case .string(let username)? = members["username"], API.isText(username) else {
            throw APIError(status: 400, code: "malformed_json", message: "username is required (a string of at most 256 characters, without U+0000).")
        }
        var userVerification: UserVerificationRequirement?
        switch members["userVerification"] {
        case nil, .null?: break  // the relying party's policy
        case .string(let text)?:
            guard let requirement = UserVerificationRequirement(rawValue: text) else {
                throw APIError(status: 400, code: "malformed_json", message: "userVerification must be required, preferred or discouraged.")
            }
            userVerification = requirement
        default: throw APIError(status: 400, code: "malformed_json", message: "userVerification must be required, preferred or discouraged.")
        }
        let options = try await service.withCeremonyTable.beginAuthentication(
            user: username.isEmpty ? nil : .name(username), userVerification: userVerification,
            extensions: try decode([String: JSONValue].self, members["extensions"]))
        var response = try json(
            status: .ok,
            ConformanceRequestOptions(
                challenge: options.challenge, timeout: options.timeout, rpId: options.rpId, allowCredentials: options.allowCredentials,
                userVerification: options.userVerification, extensions: options.extensions))
        response.setCookie(ConformanceSession.assertion.cookie(challenge: options.challenge, lifetime: sessionLifetime))
        return response
    }

    // MARK: results

    /// `ServerPublicKeyCredential` with a `ServerAuthenticatorAttestationResponse` or
    /// `ServerAuthenticatorAssertionResponse`: finishes the ceremony of the cookie's session (``ConformanceResults``:
    /// the response must carry the session's challenge, and the session ends whatever the outcome).
    func conformanceResult(
        _ body: [UInt8], request: Request, session: ConformanceSession, results: ConformanceResults
    ) async throws -> Response {
        guard let sessionChallenge = session.challenge(in: request) else { throw ConformanceSession.missing }
        switch session.kind {
        case .registration:
            let response = Result { () throws -> RegistrationResponseJSON in
                let credential = try Self.w3cCredential(try object(body))
                do throws(JSONShapeError) {
                    return try RegistrationResponseJSON(json: credential)
                } catch {
                    throw WebAuthnError(.malformedResponse, error.reason)
                }
            }
            let finished = try await results.finishRegistration(response, session: sessionChallenge, audit: RequestScope.audit)
            RequestScope.logRegistration(user: finished.user.handle, credential: finished.credential.id, createdUser: finished.createdUser)
        case .authentication:
            let response = Result { () throws -> UnverifiedAuthenticationResponse in
                let credential = try Self.w3cCredential(try object(body))
                do {
                    return try UnverifiedAuthenticationResponse(AuthenticationResponseJSON(json: credential))
                } catch let error as JSONShapeError {
                    throw WebAuthnError(.malformedResponse, error.reason)
                }
            }
            try await results.finishAuthentication(response, session: sessionChallenge)
        case .idToken, .appAttest:
            preconditionFailure("conformance sessions are passkey ceremonies")
        }
        return rawJSON(status: .ok, Self.conformanceOK)
    }

    /// The profile's `ServerPublicKeyCredential` as W3C JSON: `rawId` defaults to `id` (when `id` is a string), and
    /// `getClientExtensionResults` stands for `clientExtensionResults`. Everything else is read by the engine.
    static func w3cCredential(_ members: [String: JSONValue]) throws -> JSONValue {
        var members = members
        if members["rawId"] == nil, case .string? = members["id"] { members["rawId"] = members["id"] }
        if members["clientExtensionResults"] == nil, let results = members["getClientExtensionResults"] {
            members["clientExtensionResults"] = results
        }
        members["getClientExtensionResults"] = nil
        return .object(members)
    }
}
