import AppleSignedData
import Foundation
import IdentityCore
import JOSE
// @testable for APIError's mappings and FailedRequest (internal).
@testable import PasskeyHTTP
import SessionCore
import Testing

/// Pins, for every code of the five domain error types (JOSEError, IdentityError, SessionError, AppStoreError,
/// AppAttestError), its raw value and what a client sees when a handler throws it: status, code and message. Written
/// from the mappings as they were before the codes became open structs (enums then), so a change of any answer
/// fails here; `allIsComplete` checks each type's `Code.all` against its declarations.
@Suite("Error codes: raw values and HTTP answers")
struct ErrorCodeStatusTests {
    struct Row<Code: Sendable>: Sendable {
        let code: Code
        let raw: String
        let status: Int
        let message: String
        init(_ code: Code, _ raw: String, _ status: Int, _ message: String) {
            self.code = code
            self.raw = raw
            self.status = status
            self.message = message
        }
    }

    /// What FailedRequest (the one mapping every handler's error goes through) makes of `error`.
    func answer(_ error: any Error, reason: String, sourceLocation: SourceLocation = #_sourceLocation) -> APIError {
        let failed = FailedRequest(error)
        #expect(failed.reason == reason, sourceLocation: sourceLocation)
        return failed.error
    }

    func check(_ answer: APIError, _ raw: String, _ status: Int, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == status, "\(raw): status", sourceLocation: sourceLocation)
        #expect(answer.code == raw, "\(raw): code", sourceLocation: sourceLocation)
        #expect(answer.message == message, "\(raw): message", sourceLocation: sourceLocation)
        #expect(answer.unknownCredential == nil, "\(raw): signal", sourceLocation: sourceLocation)
    }

    // MARK: JOSEError (no HTTP mapping of its own: a JOSEError that escaped a handler is a 500)

    static let internalMessage = "The request failed."
    static let jose: [Row<JOSEError.Code>] = [
        Row(.tooLarge, "jws_too_large", 500, internalMessage),
        Row(.malformed, "jws_malformed", 500, internalMessage),
        Row(.criticalHeader, "jws_critical_header", 500, internalMessage),
        Row(.algorithmNotAllowed, "jws_algorithm_not_allowed", 500, internalMessage),
        Row(.keyUnknown, "jws_key_unknown", 500, internalMessage),
        Row(.keyInvalid, "jws_key_invalid", 500, internalMessage),
        Row(.signatureInvalid, "jws_signature_invalid", 500, internalMessage),
        Row(.keySetMalformed, "jwks_malformed", 500, internalMessage),
    ]

    @Test("JOSEError: every code's raw value; escaping a handler it is 500 internal_error")
    func joseCodes() {
        #expect(Set(Self.jose.map(\.raw)) == Set(JOSEError.Code.all.map(\.rawValue)))
        #expect(Self.jose.count == JOSEError.Code.all.count)
        for row in Self.jose {
            #expect(row.code.rawValue == row.raw)
            let failed = FailedRequest(JOSEError(row.code, "detail"))
            #expect(failed.error.status == row.status && failed.error.code == "internal_error", "\(row.raw)")
            #expect(failed.error.message == row.message, "\(row.raw)")
            #expect(failed.reason == "unexpected JOSE.JOSEError", "\(row.raw)")
        }
    }

    // MARK: IdentityError

    static let idMalformed = "The ID token is malformed."
    static let idFailed = "The ID token failed verification."
    static let identity: [Row<IdentityError.Code>] = [
        Row(.sessionUnknown, "idtoken_session_unknown", 400,
            "No pending sign-in has this session: it is unknown, expired or already used; begin again."),
        Row(.providerMismatch, "idtoken_provider_mismatch", 400, "The session was begun for another provider."),
        Row(.providerUnknown, "idtoken_provider_unknown", 400, "This identity provider is not configured."),
        Row(.tooLarge, "idtoken_too_large", 400, idMalformed),
        Row(.malformed, "idtoken_malformed", 400, idMalformed),
        Row(.criticalHeader, "idtoken_critical_header", 400, idMalformed),
        Row(.algorithmNotAllowed, "idtoken_algorithm_not_allowed", 422, idFailed),
        Row(.keyUnknown, "idtoken_key_unknown", 422, idFailed),
        Row(.keyInvalid, "idtoken_key_invalid", 422, idFailed),
        Row(.signatureInvalid, "idtoken_signature_invalid", 422, idFailed),
        Row(.issuerMismatch, "idtoken_issuer_mismatch", 422, idFailed),
        Row(.audienceMismatch, "idtoken_audience_mismatch", 422, idFailed),
        Row(.expired, "idtoken_expired", 422, idFailed),
        Row(.notYetValid, "idtoken_not_yet_valid", 422, idFailed),
        Row(.issuedAtInvalid, "idtoken_issued_at_invalid", 422, idFailed),
        Row(.nonceMissing, "idtoken_nonce_missing", 422, idFailed),
        Row(.nonceMismatch, "idtoken_nonce_mismatch", 422, idFailed),
        Row(.subjectMissing, "idtoken_subject_missing", 422, idFailed),
    ]

    @Test("IdentityError: every code's raw value, status and message")
    func identityCodes() {
        #expect(Set(Self.identity.map(\.raw)) == Set(IdentityError.Code.all.map(\.rawValue)))
        #expect(Self.identity.count == IdentityError.Code.all.count)
        for row in Self.identity {
            #expect(row.code.rawValue == row.raw)
            check(APIError(IdentityError(row.code, "detail")), row.raw, row.status, row.message)
            check(answer(IdentityError(row.code, "detail"), reason: "detail"), row.raw, row.status, row.message)
        }
    }

    // MARK: SessionError

    static let tokenInvalid = "The access token is not valid here."
    static let sessionEnded = "The session has ended; sign in again."
    static let handoffUnknown = "The handoff code is unknown, used or expired."
    static let verifierMismatch = "The code verifier does not match the handoff code's challenge."
    static let session: [Row<SessionError.Code>] = [
        Row(.accessTokenMalformed, "access_token_malformed", 401, tokenInvalid),
        Row(.accessTokenAlgorithm, "access_token_algorithm_not_allowed", 401, tokenInvalid),
        Row(.accessTokenKeyUnknown, "access_token_key_unknown", 401, tokenInvalid),
        Row(.accessTokenSignature, "access_token_signature_invalid", 401, tokenInvalid),
        Row(.accessTokenIssuer, "access_token_issuer_mismatch", 401, tokenInvalid),
        Row(.accessTokenAudience, "access_token_audience_mismatch", 401, tokenInvalid),
        Row(.accessTokenExpired, "access_token_expired", 401, tokenInvalid),
        Row(.sessionRevoked, "session_revoked", 401, tokenInvalid),
        Row(.refreshTokenMalformed, "refresh_token_malformed", 400, "This is not a refresh token."),
        Row(.refreshTokenUnknown, "refresh_token_unknown", 401, sessionEnded),
        Row(.refreshTokenReused, "refresh_token_reused", 401,
            "This refresh token was already used; the session is revoked. Sign in again."),
        Row(.sessionInactive, "session_inactive", 401, sessionEnded),
        Row(.handoffCodeMalformed, "handoff_code_malformed", 400, handoffUnknown),
        Row(.handoffCodeUnknown, "handoff_code_unknown", 400, handoffUnknown),
        Row(.handoffCodeExpired, "handoff_code_expired", 400, handoffUnknown),
        Row(.handoffVerifierRequired, "handoff_verifier_required", 400, verifierMismatch),
        Row(.handoffVerifierUnexpected, "handoff_verifier_unexpected", 400,
            "The handoff code was issued without a code challenge; a code verifier is refused."),
        Row(.handoffVerifierMalformed, "handoff_verifier_malformed", 400, verifierMismatch),
        Row(.handoffVerifierMismatch, "handoff_verifier_mismatch", 400, verifierMismatch),
    ]

    @Test("SessionError: every code's raw value, status and message")
    func sessionCodes() {
        #expect(Set(Self.session.map(\.raw)) == Set(SessionError.Code.all.map(\.rawValue)))
        #expect(Self.session.count == SessionError.Code.all.count)
        for row in Self.session {
            #expect(row.code.rawValue == row.raw)
            check(APIError(SessionError(row.code, "detail")), row.raw, row.status, row.message)
            check(answer(SessionError(row.code, "detail"), reason: "detail"), row.raw, row.status, row.message)
        }
    }

    // MARK: AppStoreError

    static let storeMalformed = "The signed App Store data is malformed."
    static let storeFailed = "The signed App Store data failed verification."
    static let appStore: [Row<AppStoreError.Code>] = [
        Row(.jwsMalformed, "appstore_jws_malformed", 400, storeMalformed),
        Row(.algorithmNotAllowed, "appstore_algorithm_not_allowed", 422, storeFailed),
        Row(.payloadMalformed, "appstore_payload_malformed", 400, storeMalformed),
        Row(.chainLengthInvalid, "appstore_chain_length_invalid", 422, storeFailed),
        Row(.leafOIDMissing, "appstore_leaf_oid_missing", 422, storeFailed),
        Row(.intermediateOIDMissing, "appstore_intermediate_oid_missing", 422, storeFailed),
        Row(.chainUntrusted, "appstore_chain_untrusted", 422, storeFailed),
        Row(.chainExpired, "appstore_chain_expired", 422, storeFailed),
        Row(.signatureInvalid, "appstore_signature_invalid", 422, storeFailed),
        Row(.bundleIDMismatch, "appstore_bundle_id_mismatch", 422, storeFailed),
        Row(.appAppleIDMismatch, "appstore_app_apple_id_mismatch", 422, storeFailed),
        Row(.environmentMismatch, "appstore_environment_mismatch", 422, storeFailed),
        Row(.productUnknown, "appstore_product_unknown", 422, storeFailed),
        Row(.appAccountTokenMismatch, "appstore_app_account_token_mismatch", 422,
            "The purchase's appAccountToken names another user."),
    ]

    @Test("AppStoreError: every code's raw value, status and message")
    func appStoreCodes() {
        #expect(Set(Self.appStore.map(\.raw)) == Set(AppStoreError.Code.all.map(\.rawValue)))
        #expect(Self.appStore.count == AppStoreError.Code.all.count)
        for row in Self.appStore {
            #expect(row.code.rawValue == row.raw)
            check(APIError(AppStoreError(row.code, "detail")), row.raw, row.status, row.message)
            check(answer(AppStoreError(row.code, "detail"), reason: "detail"), row.raw, row.status, row.message)
        }
    }

    // MARK: AppAttestError

    static let attestFailed = "The App Attest data failed verification."
    static let attestMalformed = "The App Attest data is malformed."
    static let appAttest: [Row<AppAttestError.Code>] = [
        Row(.malformed, "appattest_malformed", 400, attestMalformed),
        Row(.formatInvalid, "appattest_format_invalid", 422, attestFailed),
        Row(.chainInvalid, "appattest_chain_invalid", 422, attestFailed),
        Row(.nonceExtensionInvalid, "appattest_nonce_extension_invalid", 422, attestFailed),
        Row(.nonceMismatch, "appattest_nonce_mismatch", 422, attestFailed),
        Row(.keyIDMismatch, "appattest_key_id_mismatch", 422, attestFailed),
        Row(.rpIDMismatch, "appattest_rp_id_mismatch", 422, attestFailed),
        Row(.counterNotZero, "appattest_counter_not_zero", 422, attestFailed),
        Row(.aaguidMismatch, "appattest_aaguid_mismatch", 422, attestFailed),
        Row(.credentialIDMismatch, "appattest_credential_id_mismatch", 422, attestFailed),
        Row(.signatureInvalid, "appattest_signature_invalid", 422, attestFailed),
        Row(.counterNotIncreasing, "appattest_counter_not_increasing", 422, attestFailed),
        Row(.clientDataInvalid, "appattest_client_data_invalid", 400, attestMalformed),
        Row(.challengeInvalid, "appattest_challenge_invalid", 400,
            "The challenge is unknown, expired or already used; get a new one from /v1/appattest/challenge."),
        Row(.keyUnknown, "appattest_key_unknown", 404, "No attested key has this id."),
        Row(.keyExists, "appattest_key_exists", 409, "This key is already attested."),
    ]

    @Test("AppAttestError: every code's raw value, status and message")
    func appAttestCodes() {
        #expect(Set(Self.appAttest.map(\.raw)) == Set(AppAttestError.Code.all.map(\.rawValue)))
        #expect(Self.appAttest.count == AppAttestError.Code.all.count)
        for row in Self.appAttest {
            #expect(row.code.rawValue == row.raw)
            check(APIError(AppAttestError(row.code, "detail")), row.raw, row.status, row.message)
            check(answer(AppAttestError(row.code, "detail"), reason: "detail"), row.raw, row.status, row.message)
        }
    }

    // MARK: each type's `all` against its declarations

    /// The raw values declared as `static let … = Code(rawValue: "…")` in the file that declares `type` (an open code
    /// set has no `allCases`, so each type lists its codes in `Code.all`; this keeps the list honest).
    static func declaredCodes(of type: String, in module: String) throws -> [String] {
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root = root.deletingLastPathComponent()
        }
        let directory = root.appendingPathComponent("Sources").appendingPathComponent(module)
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        let declaring = try files.map { try String(contentsOf: $0, encoding: .utf8) }
            .filter { $0.contains("public struct \(type): CodedError") }
        try #require(declaring.count == 1, "\(type) is declared in one file of Sources/\(module)")
        return declaring[0].matches(of: /static let \w+ = Code\(rawValue: "([a-z0-9_]+)"\)/).map { String($0.1) }
    }

    @Test("Code.all lists every declared code once, in declaration order, for each of the five types")
    func allIsComplete() throws {
        let lists: [(type: String, module: String, all: [String])] = [
            ("JOSEError", "JOSE", JOSEError.Code.all.map(\.rawValue)),
            ("IdentityError", "IdentityCore", IdentityError.Code.all.map(\.rawValue)),
            ("SessionError", "SessionCore", SessionError.Code.all.map(\.rawValue)),
            ("AppStoreError", "AppleSignedData", AppStoreError.Code.all.map(\.rawValue)),
            ("AppAttestError", "AppleSignedData", AppAttestError.Code.all.map(\.rawValue)),
        ]
        for list in lists {
            let declared = try Self.declaredCodes(of: list.type, in: list.module)
            #expect(!declared.isEmpty, "\(list.type)")
            #expect(list.all == declared, "\(list.type): Code.all is not the declared codes in order")
            #expect(Set(list.all).count == list.all.count, "\(list.type): a code twice")
        }
    }

    // MARK: descriptions and equality

    @Test("description is \"code: reason\" and equality compares only the code, for each of the five types")
    func descriptionsAndEquality() {
        #expect("\(JOSEError(.keyUnknown, "no kid"))" == "jws_key_unknown: no kid")
        #expect("\(IdentityError(.nonceMismatch, "hashed"))" == "idtoken_nonce_mismatch: hashed")
        #expect("\(SessionError(.refreshTokenReused, "x"))" == "refresh_token_reused: x")
        #expect("\(AppStoreError(.chainExpired, ""))" == "appstore_chain_expired: ")
        #expect(String(reflecting: AppAttestError(.keyExists, "k")) == "appattest_key_exists: k")
        #expect(JOSEError(.malformed, "a") == JOSEError(.malformed, "b"))
        #expect(JOSEError(.malformed, "a") != JOSEError(.tooLarge, "a"))
        #expect(IdentityError(.expired, "a") == IdentityError(.expired, "b"))
        #expect(SessionError(.sessionInactive, "a") == SessionError(.sessionInactive, "b"))
        #expect(AppStoreError(.productUnknown, "a") == AppStoreError(.productUnknown, "b"))
        #expect(AppAttestError(.keyUnknown, "a") != AppAttestError(.keyExists, "a"))
    }
}
