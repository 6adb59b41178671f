import PasskeyApp
import WebAuthnModel
import Foundation
import IdentityCore
import PasskeyStore
import WebAuthnCore
import SessionCore
import AppleSignedData

/// An error as clients see it: a 4xx/5xx status and a stable snake_case code. Details stay in the logs.
public struct APIError: Error, Sendable, Equatable {
    public let status: Int
    public let code: String
    public let message: String
    /// A sign-in with a credential passkeyd does not know: what the client passes to the Signal API
    /// (`PublicKeyCredential.signalUnknownCredential({rpId, credentialId})`) so the passkey provider can hide it.
    /// Sent as the body's `signal` member next to `error`.
    public var unknownCredential: UnknownCredentialSignal?

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `credential_unknown` for an assertion by `credentialID` (base64url in the body).
    static func credentialUnknown(rpID: String, credentialID: [UInt8]) -> APIError {
        var error = credentialUnknown
        error.unknownCredential = UnknownCredentialSignal(rpId: rpID, credentialId: Base64URL.encode(credentialID))
        return error
    }

    static let malformedJSON = APIError(status: 400, code: "malformed_json", message: "The request body is not the expected JSON.")
    static let bodyTooLarge = APIError(status: 413, code: "body_too_large", message: "The request body is too large.")
    static let unauthorized = APIError(status: 401, code: "unauthorized", message: "A valid API key is required.")
    static let adminUnauthorized = APIError(status: 401, code: "unauthorized", message: "A valid admin key is required.")
    static let userUnknown = APIError(status: 404, code: "user_unknown", message: "No user has this id.")
    static let userExists = APIError(
        status: 409, code: "user_exists",
        message: "A user with this name exists: to add a passkey to that account, begin with its user id.")
    static let challengeUnknown = APIError(
        status: 400, code: "challenge_unknown_or_expired",
        message: "No pending ceremony has this challenge: it is unknown, expired or already used.")
    static let credentialUnknown = APIError(status: 404, code: "credential_unknown", message: "The credential is not registered.")
    static let conditionalCreateDisabled = APIError(
        status: 400, code: "conditional_create_disabled", message: "Automatic passkey upgrades (mediation conditional) are turned off here.")
    static let conditionalCreateNeedsUserID = APIError(
        status: 400, code: "conditional_create_needs_user_id",
        message: "An automatic passkey upgrade (mediation conditional) is for an existing user: begin with {\"user\": {\"id\"}}.")
    static let internalError = APIError(status: 500, code: "internal_error", message: "The request failed.")
    /// No route has this path (RouteFallbackMiddleware).
    static let routeUnknown = APIError(status: 404, code: "route_unknown", message: "No route has this path.")
    /// A route has this path, not with this method; the answer's `Allow` lists its methods.
    static let methodNotAllowed = APIError(status: 405, code: "method_not_allowed", message: "This path does not take this method.")

    /// Engine failures: malformed input is 400, an expired ceremony 410, anything else a failed verification (422).
    init(_ error: WebAuthnError) {
        let status: Int
        switch error.code {
        case .malformedResponse, .malformedBase64, .malformedClientData, .malformedAttestationObject,
            .malformedAuthenticatorData, .invalidCredentialType, .invalidUserEntity, .extensionUnsupported,
            .extensionInputInvalid:
            status = 400
        case .challengeExpired:
            status = 410
        default:
            status = 422
        }
        let message = switch status {
        case 400: "The request is malformed."
        case 410: "The ceremony has expired; start again."
        default: "The ceremony failed verification."
        }
        self.init(status: status, code: error.code.rawValue, message: message)
    }

    /// The passkey use cases' own refusals.
    init(_ error: CeremonyError) {
        switch error.code {
        case .challengeUnknown: self = .challengeUnknown
        case .userExists: self = .userExists
        case .userUnknown: self = .userUnknown
        case .credentialUnknown:
            if let (rpID, credentialID) = error.unknownCredential {
                self = .credentialUnknown(rpID: rpID, credentialID: credentialID)
            } else {
                self = .credentialUnknown
            }
        case .conditionalCreateDisabled: self = .conditionalCreateDisabled
        case .conditionalCreateNeedsUserID: self = .conditionalCreateNeedsUserID
        default: self.init(status: 400, code: error.code.rawValue, message: "The request was refused.")
        }
    }

    /// The admin use cases: what they name does not exist.
    init(_ error: AdminError) {
        switch error.code {
        case .userUnknown: self = .userUnknown
        case .sessionUnknown: self = .sessionUnknown
        case .credentialUnknown: self = .credentialUnknown
        case .identityUnknown: self = .identityUnknown
        case .webhookEndpointUnknown: self.init(status: 404, code: error.code.rawValue, message: "No webhook endpoint in the settings has this id.")
        case .webhookDeliveryUnknown: self.init(status: 404, code: error.code.rawValue, message: "No webhook delivery has this id.")
        default: self.init(status: 404, code: error.code.rawValue, message: "Not found.")
        }
    }

    /// The self-service use cases.
    init(_ error: SelfServiceError) {
        switch error.code {
        case .reauthenticationRequired: self = .reauthenticationRequired
        case .lastSignInMethod: self = .lastSignInMethod
        case .credentialUnknown: self = .credentialUnknown
        case .identityUnknown: self = .identityUnknown
        default: self.init(status: 400, code: error.code.rawValue, message: "The request was refused.")
        }
    }

    /// Storage failures.
    init(_ error: StoreError) {
        switch error.code {
        case .duplicateCredential:
            self.init(status: 409, code: error.code.rawValue, message: "This credential is already registered.")
        case .userExists:
            self = .userExists
        case .userUnknown:
            self = .userUnknown
        case .ceremonyTaken:
            self = .challengeUnknown
        case .tooManyPendingCeremonies:
            self.init(
                status: 429, code: error.code.rawValue,
                message: "This user has too many sign-ins or registrations in progress; finish one or retry later.")
        case .ceremonyCapacityReached:
            self.init(status: 503, code: error.code.rawValue, message: "Too many ceremonies are in progress; retry shortly.")
        case .identityLinkedElsewhere:
            self.init(status: 409, code: error.code.rawValue, message: "This identity already belongs to another user.")
        case .appStoreTransactionOwnedElsewhere:
            self.init(status: 409, code: error.code.rawValue, message: "This purchase already belongs to another user.")
        default:
            self.init(status: 503, code: error.code.rawValue, message: "Storage is unavailable; try again.")
        }
    }

    /// `{"error":{"code":...,"message":...}}`, with both strings escaped as JSON strings.
    init(_ error: IdentityError) {
        switch error.code {
        case .sessionUnknown:
            self.init(
                status: 400, code: error.code.rawValue,
                message: "No pending sign-in has this session: it is unknown, expired or already used; begin again.")
        case .providerUnknown:
            self.init(status: 400, code: error.code.rawValue, message: "This identity provider is not configured.")
        case .providerMismatch:
            self.init(status: 400, code: error.code.rawValue, message: "The session was begun for another provider.")
        case .tooLarge, .malformed, .criticalHeader:
            self.init(status: 400, code: error.code.rawValue, message: "The ID token is malformed.")
        default:
            self.init(status: 422, code: error.code.rawValue, message: "The ID token failed verification.")
        }
    }

    /// App Store signed data: 400 when it is not even a JWS or its payload is not of its kind, 422 when a check fails.
    init(_ error: AppStoreError) {
        switch error.code {
        case .jwsMalformed, .payloadMalformed:
            self.init(status: 400, code: error.code.rawValue, message: "The signed App Store data is malformed.")
        case .appAccountTokenMismatch:
            self.init(status: 422, code: error.code.rawValue, message: "The purchase's appAccountToken names another user.")
        default:
            self.init(status: 422, code: error.code.rawValue, message: "The signed App Store data failed verification.")
        }
    }

    static let providerUnavailable = APIError(
        status: 503, code: "provider_unavailable", message: "The identity provider's keys are unavailable; try again.")

    var jsonBody: [UInt8] {
        var text = #"{"error":{"code":"#
        JSONString.append(code, to: &text)
        text += #","message":"#
        JSONString.append(message, to: &text)
        text += "}"
        if let unknownCredential {
            text += #","signal":{"credentialId":"#
            JSONString.append(unknownCredential.credentialId, to: &text)
            text += #","rpId":"#
            JSONString.append(unknownCredential.rpId, to: &text)
            text += "}"
        }
        text += "}"
        return Array(text.utf8)
    }
}

/// The arguments of `PublicKeyCredential.signalUnknownCredential` (Signal API).
public struct UnknownCredentialSignal: Sendable, Hashable, Encodable {
    public let rpId: String
    /// base64url.
    public let credentialId: String
}

/// A failed request: the error the client sees and, for the log only, the detail behind it.
struct FailedRequest: Sendable {
    let error: APIError
    /// The engine's or store's `reason`, or the type of an unexpected error. Never sent to the client.
    let reason: String?
    /// Seconds for a `Retry-After` header (rate limits, capacity).
    var retryAfter: Int?

    /// Maps anything a handler throws.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self.error = error
            reason = nil
        case let error as RateLimited:
            self.error = APIError(status: 429, code: "rate_limited", message: "Too many requests; retry after the Retry-After seconds.")
            reason = "rate limit: \(error.scope)"
            retryAfter = error.retryAfter
        case let error as WebAuthnError:
            self.error = APIError(error)
            reason = error.reason
        case let error as CeremonyError:
            self.error = APIError(error)
            reason = error.reason
        case let error as AdminError:
            self.error = APIError(error)
            reason = error.reason
        case let error as SelfServiceError:
            self.error = APIError(error)
            reason = error.reason
        case let error as IdentityError:
            self.error = APIError(error)
            reason = error.reason
        case let error as SessionError:
            self.error = APIError(error)
            reason = error.reason
        case let error as AppStoreError:
            self.error = APIError(error)
            reason = error.reason
        case let error as AppAttestError:
            self.error = APIError(error)
            reason = error.reason
        case let error as ProviderKeyError:
            self.error = .providerUnavailable
            reason = error.reason
            retryAfter = 30
        case let error as ProviderTokenError:
            switch error.kind {
            case .invalidGrant:
                self.error = APIError(
                    status: 422, code: "apple_authorization_code_invalid",
                    message: "Apple refused the authorization code (expired, already used, or issued to another client or account).")
            case .unavailable:
                self.error = APIError(
                    status: 503, code: "provider_unavailable",
                    message: "The identity provider's token endpoint is unavailable; sign in again (the session is used up).")
                retryAfter = 30
            }
            reason = error.reason
        case let error as StoreError:
            self.error = APIError(error)
            reason = error.reason
            switch error.code {
            case .tooManyPendingCeremonies: retryAfter = 60
            case .ceremonyCapacityReached: retryAfter = 10
            default: break
            }
        case let error as DecodingError:
            // Only the path: a decoding error's description may quote the input.
            self.error = .malformedJSON
            reason = "JSON decoding failed at \(Self.codingPath(error))"
        default:
            // Only the type: an unexpected error's description may carry values.
            self.error = .internalError
            reason = "unexpected \(String(reflecting: type(of: error)))"
        }
    }

    /// `/readyz`: any failure of the store's ping is "storage unavailable".
    init(readiness error: any Error) {
        if let error = error as? StoreError {
            self.init(error)
        } else {
            self.init(StoreError(.unavailable, "ping failed: \(String(reflecting: type(of: error)))"))
        }
    }

    private static func codingPath(_ error: DecodingError) -> String {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            path = context.codingPath
        @unknown default:
            path = []
        }
        return path.isEmpty ? "the top level" : path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
