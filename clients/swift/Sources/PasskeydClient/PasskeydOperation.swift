/// One operation of passkeyd's HTTP API (`openapi.json`): its operationId (also the name of its
/// ``PasskeydClient`` method), HTTP method, path template and the credential it takes. The coverage tests check this
/// table against `openapi.json` and against the client's methods.
public struct PasskeydOperation: Sendable, Hashable, CustomStringConvertible {
    /// The operationId, e.g. `registrationBegin`.
    public let id: String
    public let method: String
    /// The path template, e.g. `/v1/admin/users/{userId}`.
    public let path: String
    /// The security schemes it accepts (`openapi.json`'s names); empty: public.
    public let security: Set<SecurityScheme>
    let kind: Kind

    public enum SecurityScheme: String, Sendable, Hashable, CaseIterable {
        /// One of `PASSKEYD_API_KEYS` (``PasskeydClient/apiKey``).
        case apiKey
        /// One of `PASSKEYD_ADMIN_KEYS` (``PasskeydClient/adminKey``).
        case adminKey
        /// A signed-in person's access token (a method parameter).
        case accessToken
    }

    /// What a retry of it risks, which decides whether ``RetryPolicy`` retries it by default.
    enum Kind: Sendable, Hashable {
        /// Starts a ceremony: a retry only leaves an unused challenge to expire.
        case begin
        /// Changes nothing.
        case read
        /// A finish, a create, a change, a delete, a one-time exchange: a second attempt may be refused or act twice.
        case write
        /// `/readyz`: a 503 is its answer, not a reason to wait.
        case probe
    }

    init(_ id: String, _ method: String, _ path: String, _ security: Set<SecurityScheme>, _ kind: Kind) {
        self.id = id
        self.method = method
        self.path = path
        self.security = security
        self.kind = kind
    }

    public var description: String { "\(id) (\(method) \(path))" }

    // MARK: passkeys: registration and sign-in
    static let registrationBegin = Self("registrationBegin", "POST", "/v1/registration/begin", [.apiKey], .begin)
    static let registrationFinish = Self("registrationFinish", "POST", "/v1/registration/finish", [.apiKey], .write)
    static let createUser = Self("createUser", "POST", "/v1/users", [.apiKey], .write)
    static let authenticationBegin = Self("authenticationBegin", "POST", "/v1/authentication/begin", [.apiKey], .begin)
    static let authenticationFinish = Self("authenticationFinish", "POST", "/v1/authentication/finish", [.apiKey], .write)
    static let getUserSignals = Self("getUserSignals", "GET", "/v1/users/{userId}/signals", [.apiKey], .read)
    // MARK: ID tokens
    static let idTokenBegin = Self("idTokenBegin", "POST", "/v1/idtoken/begin", [.apiKey], .begin)
    static let idTokenFinish = Self("idTokenFinish", "POST", "/v1/idtoken/finish", [.apiKey], .write)
    // MARK: sessions and handoff
    static let getSessionJWKS = Self("getSessionJWKS", "GET", "/.well-known/jwks.json", [], .read)
    static let refreshSession = Self("refreshSession", "POST", "/v1/sessions/refresh", [], .write)
    static let revokeSession = Self("revokeSession", "POST", "/v1/sessions/revoke", [.accessToken], .write)
    static let introspectAccessToken = Self("introspectAccessToken", "POST", "/v1/sessions/introspect", [.apiKey], .read)
    static let createHandoffCode = Self("createHandoffCode", "POST", "/v1/handoff", [.accessToken, .apiKey], .write)
    static let exchangeHandoffCode = Self("exchangeHandoffCode", "POST", "/v1/handoff/exchange", [], .write)
    // MARK: self-service, with the signed-in person's access token
    static let meListCredentials = Self("meListCredentials", "GET", "/v1/me/credentials", [.accessToken], .read)
    static let meRenameCredential = Self("meRenameCredential", "PATCH", "/v1/me/credentials/{credentialId}", [.accessToken], .write)
    static let meDeleteCredential = Self("meDeleteCredential", "DELETE", "/v1/me/credentials/{credentialId}", [.accessToken], .write)
    static let meRegistrationBegin = Self("meRegistrationBegin", "POST", "/v1/me/registration/begin", [.accessToken], .begin)
    static let meRegistrationFinish = Self("meRegistrationFinish", "POST", "/v1/me/registration/finish", [.accessToken], .write)
    static let meListIdentities = Self("meListIdentities", "GET", "/v1/me/identities", [.accessToken], .read)
    static let meUnlinkIdentity = Self("meUnlinkIdentity", "DELETE", "/v1/me/identities/{identityId}", [.accessToken], .write)
    // MARK: App Store
    static let appStorePostTransaction = Self("appStorePostTransaction", "POST", "/v1/appstore/transactions", [.apiKey], .write)
    static let appStorePostRenewalInfo = Self("appStorePostRenewalInfo", "POST", "/v1/appstore/renewals", [.apiKey], .write)
    static let appStoreNotification = Self("appStoreNotification", "POST", "/v1/appstore/notifications", [], .write)
    static let appStoreEntitlements = Self("appStoreEntitlements", "GET", "/v1/users/{userId}/entitlements", [.apiKey], .read)
    // MARK: App Attest
    static let appAttestChallenge = Self("appAttestChallenge", "POST", "/v1/appattest/challenge", [.apiKey], .begin)
    static let appAttestAttestation = Self("appAttestAttestation", "POST", "/v1/appattest/attestations", [.apiKey], .write)
    static let appAttestAssertion = Self("appAttestAssertion", "POST", "/v1/appattest/assertions", [.apiKey], .write)
    // MARK: admin
    static let adminListUsers = Self("adminListUsers", "GET", "/v1/admin/users", [.adminKey], .read)
    static let adminGetUser = Self("adminGetUser", "GET", "/v1/admin/users/{userId}", [.adminKey], .read)
    static let adminDeleteUser = Self("adminDeleteUser", "DELETE", "/v1/admin/users/{userId}", [.adminKey], .write)
    static let adminListUserCredentials = Self("adminListUserCredentials", "GET", "/v1/admin/users/{userId}/credentials", [.adminKey], .read)
    static let adminGetCredential = Self("adminGetCredential", "GET", "/v1/admin/credentials/{credentialId}", [.adminKey], .read)
    static let adminRenameCredential = Self("adminRenameCredential", "PATCH", "/v1/admin/credentials/{credentialId}", [.adminKey], .write)
    static let adminDeleteCredential = Self("adminDeleteCredential", "DELETE", "/v1/admin/credentials/{credentialId}", [.adminKey], .write)
    static let adminAuditEvents = Self("adminAuditEvents", "GET", "/v1/admin/audit-events", [.adminKey], .read)
    static let adminListUserIdentities = Self("adminListUserIdentities", "GET", "/v1/admin/users/{userId}/identities", [.adminKey], .read)
    static let adminUnlinkIdentity = Self(
        "adminUnlinkIdentity", "DELETE", "/v1/admin/users/{userId}/identities/{identityId}", [.adminKey], .write)
    static let adminListUserSessions = Self("adminListUserSessions", "GET", "/v1/admin/users/{userId}/sessions", [.adminKey], .read)
    static let adminRevokeUserSessions = Self("adminRevokeUserSessions", "DELETE", "/v1/admin/users/{userId}/sessions", [.adminKey], .write)
    static let adminRevokeUserSession = Self(
        "adminRevokeUserSession", "DELETE", "/v1/admin/users/{userId}/sessions/{sessionId}", [.adminKey], .write)
    static let adminListWebhookEndpoints = Self("adminListWebhookEndpoints", "GET", "/v1/admin/webhooks/endpoints", [.adminKey], .read)
    static let adminListWebhookDeliveries = Self(
        "adminListWebhookDeliveries", "GET", "/v1/admin/webhooks/endpoints/{endpointId}/deliveries", [.adminKey], .read)
    static let adminRedeliverWebhook = Self(
        "adminRedeliverWebhook", "POST", "/v1/admin/webhooks/deliveries/{deliveryId}/redeliver", [.adminKey], .write)
    static let adminPauseWebhookEndpoint = Self(
        "adminPauseWebhookEndpoint", "POST", "/v1/admin/webhooks/endpoints/{endpointId}/pause", [.adminKey], .write)
    static let adminResumeWebhookEndpoint = Self(
        "adminResumeWebhookEndpoint", "POST", "/v1/admin/webhooks/endpoints/{endpointId}/resume", [.adminKey], .write)
    // MARK: FIDO conformance binding
    static let conformanceAttestationOptions = Self("conformanceAttestationOptions", "POST", "/attestation/options", [.apiKey], .begin)
    static let conformanceAttestationResult = Self("conformanceAttestationResult", "POST", "/attestation/result", [.apiKey], .write)
    static let conformanceAssertionOptions = Self("conformanceAssertionOptions", "POST", "/assertion/options", [.apiKey], .begin)
    static let conformanceAssertionResult = Self("conformanceAssertionResult", "POST", "/assertion/result", [.apiKey], .write)
    // MARK: the service and its public documents
    static let getHealth = Self("getHealth", "GET", "/healthz", [], .read)
    static let getReadiness = Self("getReadiness", "GET", "/readyz", [], .probe)
    static let getMetrics = Self("getMetrics", "GET", "/metrics", [], .read)
    static let getOpenAPIDocument = Self("getOpenAPIDocument", "GET", "/openapi.json", [], .read)
    static let getAppleAppSiteAssociation = Self("getAppleAppSiteAssociation", "GET", "/.well-known/apple-app-site-association", [], .read)
    static let getAssetLinks = Self("getAssetLinks", "GET", "/.well-known/assetlinks.json", [], .read)
    static let getRelatedOrigins = Self("getRelatedOrigins", "GET", "/.well-known/webauthn", [], .read)

    /// Every operation, in `openapi.json`'s groups.
    public static let all: [PasskeydOperation] = [
        registrationBegin, registrationFinish, createUser, authenticationBegin, authenticationFinish, getUserSignals,
        idTokenBegin, idTokenFinish,
        getSessionJWKS, refreshSession, revokeSession, introspectAccessToken, createHandoffCode, exchangeHandoffCode,
        meListCredentials, meRenameCredential, meDeleteCredential, meRegistrationBegin, meRegistrationFinish,
        meListIdentities, meUnlinkIdentity,
        appStorePostTransaction, appStorePostRenewalInfo, appStoreNotification, appStoreEntitlements,
        appAttestChallenge, appAttestAttestation, appAttestAssertion,
        adminListUsers, adminGetUser, adminDeleteUser, adminListUserCredentials, adminGetCredential,
        adminRenameCredential, adminDeleteCredential, adminAuditEvents, adminListUserIdentities, adminUnlinkIdentity,
        adminListUserSessions, adminRevokeUserSessions, adminRevokeUserSession, adminListWebhookEndpoints,
        adminListWebhookDeliveries, adminRedeliverWebhook, adminPauseWebhookEndpoint, adminResumeWebhookEndpoint,
        conformanceAttestationOptions, conformanceAttestationResult, conformanceAssertionOptions,
        conformanceAssertionResult,
        getHealth, getReadiness, getMetrics, getOpenAPIDocument, getAppleAppSiteAssociation, getAssetLinks,
        getRelatedOrigins,
    ]
}
