import HTTPTypes

/// Every route of the API in one table: its method and path (Hummingbird's form, `:name` for a path parameter), the
/// operation name logs and metrics use, who may call it, and its `operationId` in openapi.json (nil: not part of
/// the API document, the demo page's routes). The route files register their handlers by these values
/// (``API/route(_:_:_:)``), and a test checks this table against openapi.json both ways.
struct Operation: Sendable, Hashable {
    let name: String
    let access: Access
    let method: HTTPRequest.Method
    let path: String
    let operationID: String?
}

extension Operation {
    // MARK: Server
    static let healthz = Operation(name: "healthz", access: .public, method: .get, path: "/healthz", operationID: "getHealth")
    static let readyz = Operation(name: "readyz", access: .public, method: .get, path: "/readyz", operationID: "getReadiness")
    static let metrics = Operation(name: "metrics", access: .public, method: .get, path: "/metrics", operationID: "getMetrics")
    static let openAPIDocument = Operation(name: "openapi_document", access: .public, method: .get, path: "/openapi.json", operationID: "getOpenAPIDocument")

    // MARK: Passkeys
    static let userSignals = Operation(name: "user_signals", access: .ceremony, method: .get, path: "/v1/users/:userId/signals", operationID: "getUserSignals")
    static let registrationBegin = Operation(name: "registration_begin", access: .ceremony, method: .post, path: "/v1/registration/begin", operationID: "registrationBegin")
    static let registrationFinish = Operation(name: "registration_finish", access: .ceremony, method: .post, path: "/v1/registration/finish", operationID: "registrationFinish")
    static let createUser = Operation(name: "create_user", access: .ceremony, method: .post, path: "/v1/users", operationID: "createUser")
    static let authenticationBegin = Operation(name: "authentication_begin", access: .ceremony, method: .post, path: "/v1/authentication/begin", operationID: "authenticationBegin")
    static let authenticationFinish = Operation(name: "authentication_finish", access: .ceremony, method: .post, path: "/v1/authentication/finish", operationID: "authenticationFinish")
    static let demoRegistrationBegin = Operation(name: "demo_registration_begin", access: .ceremony, method: .post, path: "/demo/api/registration/begin", operationID: nil)
    static let demoRegistrationFinish = Operation(name: "demo_registration_finish", access: .ceremony, method: .post, path: "/demo/api/registration/finish", operationID: nil)
    static let demoAuthenticationBegin = Operation(name: "demo_authentication_begin", access: .ceremony, method: .post, path: "/demo/api/authentication/begin", operationID: nil)
    static let demoAuthenticationFinish = Operation(name: "demo_authentication_finish", access: .ceremony, method: .post, path: "/demo/api/authentication/finish", operationID: nil)
    static let demoSession = Operation(name: "demo_session", access: .ceremony, method: .get, path: "/demo/api/session", operationID: nil)
    static let demoDeleteCredential = Operation(name: "demo_delete_credential", access: .ceremony, method: .delete, path: "/demo/api/credentials/:credentialId", operationID: nil)
    static let demoSignOut = Operation(name: "demo_sign_out", access: .ceremony, method: .post, path: "/demo/api/signout", operationID: nil)
    static let appleAppSiteAssociation = Operation(name: "apple_app_site_association", access: .public, method: .get, path: "/.well-known/apple-app-site-association", operationID: "getAppleAppSiteAssociation")
    static let assetLinks = Operation(name: "asset_links", access: .public, method: .get, path: "/.well-known/assetlinks.json", operationID: "getAssetLinks")
    static let relatedOrigins = Operation(name: "related_origins", access: .public, method: .get, path: "/.well-known/webauthn", operationID: "getRelatedOrigins")
    static let conformanceAttestationOptions = Operation(name: "conformance_attestation_options", access: .ceremony, method: .post, path: "/attestation/options", operationID: "conformanceAttestationOptions")
    static let conformanceAttestationResult = Operation(name: "conformance_attestation_result", access: .ceremony, method: .post, path: "/attestation/result", operationID: "conformanceAttestationResult")
    static let conformanceAssertionOptions = Operation(name: "conformance_assertion_options", access: .ceremony, method: .post, path: "/assertion/options", operationID: "conformanceAssertionOptions")
    static let conformanceAssertionResult = Operation(name: "conformance_assertion_result", access: .ceremony, method: .post, path: "/assertion/result", operationID: "conformanceAssertionResult")

    // MARK: Identity
    static let idTokenBegin = Operation(name: "idtoken_begin", access: .ceremony, method: .post, path: "/v1/idtoken/begin", operationID: "idTokenBegin")
    static let idTokenFinish = Operation(name: "idtoken_finish", access: .ceremony, method: .post, path: "/v1/idtoken/finish", operationID: "idTokenFinish")

    // MARK: Sessions
    static let sessionJWKS = Operation(name: "session_jwks", access: .public, method: .get, path: "/.well-known/jwks.json", operationID: "getSessionJWKS")
    static let sessionRefresh = Operation(name: "session_refresh", access: .public, method: .post, path: "/v1/sessions/refresh", operationID: "refreshSession")
    static let sessionRevoke = Operation(name: "session_revoke", access: .public, method: .post, path: "/v1/sessions/revoke", operationID: "revokeSession")
    static let sessionIntrospect = Operation(name: "session_introspect", access: .ceremony, method: .post, path: "/v1/sessions/introspect", operationID: "introspectAccessToken")
    static let handoffCreate = Operation(name: "handoff_create", access: .public, method: .post, path: "/v1/handoff", operationID: "createHandoffCode")
    static let handoffExchange = Operation(name: "handoff_exchange", access: .public, method: .post, path: "/v1/handoff/exchange", operationID: "exchangeHandoffCode")

    // MARK: SelfService
    static let meCredentials = Operation(name: "me_credentials", access: .public, method: .get, path: "/v1/me/credentials", operationID: "meListCredentials")
    static let meRenameCredential = Operation(name: "me_rename_credential", access: .public, method: .patch, path: "/v1/me/credentials/:credentialId", operationID: "meRenameCredential")
    static let meDeleteCredential = Operation(name: "me_delete_credential", access: .public, method: .delete, path: "/v1/me/credentials/:credentialId", operationID: "meDeleteCredential")
    static let meRegistrationBegin = Operation(name: "me_registration_begin", access: .public, method: .post, path: "/v1/me/registration/begin", operationID: "meRegistrationBegin")
    static let meRegistrationFinish = Operation(name: "me_registration_finish", access: .public, method: .post, path: "/v1/me/registration/finish", operationID: "meRegistrationFinish")
    static let meIdentities = Operation(name: "me_identities", access: .public, method: .get, path: "/v1/me/identities", operationID: "meListIdentities")
    static let meUnlinkIdentity = Operation(name: "me_unlink_identity", access: .public, method: .delete, path: "/v1/me/identities/:identityId", operationID: "meUnlinkIdentity")

    // MARK: AppStore
    static let appStoreTransaction = Operation(name: "appstore_transaction", access: .ceremony, method: .post, path: "/v1/appstore/transactions", operationID: "appStorePostTransaction")
    static let appStoreRenewal = Operation(name: "appstore_renewal", access: .ceremony, method: .post, path: "/v1/appstore/renewals", operationID: "appStorePostRenewalInfo")
    static let appStoreNotification = Operation(name: "appstore_notification", access: .public, method: .post, path: "/v1/appstore/notifications", operationID: "appStoreNotification")
    static let appStoreEntitlements = Operation(name: "appstore_entitlements", access: .ceremony, method: .get, path: "/v1/users/:userId/entitlements", operationID: "appStoreEntitlements")

    // MARK: AppAttest
    static let appAttestChallenge = Operation(name: "appattest_challenge", access: .ceremony, method: .post, path: "/v1/appattest/challenge", operationID: "appAttestChallenge")
    static let appAttestAttestation = Operation(name: "appattest_attestation", access: .ceremony, method: .post, path: "/v1/appattest/attestations", operationID: "appAttestAttestation")
    static let appAttestAssertion = Operation(name: "appattest_assertion", access: .ceremony, method: .post, path: "/v1/appattest/assertions", operationID: "appAttestAssertion")

    // MARK: Admin
    static let adminUserSessions = Operation(name: "admin_user_sessions", access: .admin, method: .get, path: "/v1/admin/users/:userId/sessions", operationID: "adminListUserSessions")
    static let adminRevokeSession = Operation(name: "admin_revoke_session", access: .admin, method: .delete, path: "/v1/admin/users/:userId/sessions/:sessionId", operationID: "adminRevokeUserSession")
    static let adminRevokeSessions = Operation(name: "admin_revoke_sessions", access: .admin, method: .delete, path: "/v1/admin/users/:userId/sessions", operationID: "adminRevokeUserSessions")
    static let adminUserIdentities = Operation(name: "admin_user_identities", access: .admin, method: .get, path: "/v1/admin/users/:userId/identities", operationID: "adminListUserIdentities")
    static let adminUnlinkIdentity = Operation(name: "admin_unlink_identity", access: .admin, method: .delete, path: "/v1/admin/users/:userId/identities/:identityId", operationID: "adminUnlinkIdentity")
    static let adminListUsers = Operation(name: "admin_list_users", access: .admin, method: .get, path: "/v1/admin/users", operationID: "adminListUsers")
    static let adminGetUser = Operation(name: "admin_get_user", access: .admin, method: .get, path: "/v1/admin/users/:userId", operationID: "adminGetUser")
    static let adminUserCredentials = Operation(name: "admin_user_credentials", access: .admin, method: .get, path: "/v1/admin/users/:userId/credentials", operationID: "adminListUserCredentials")
    static let adminDeleteUser = Operation(name: "admin_delete_user", access: .admin, method: .delete, path: "/v1/admin/users/:userId", operationID: "adminDeleteUser")
    static let adminGetCredential = Operation(name: "admin_get_credential", access: .admin, method: .get, path: "/v1/admin/credentials/:credentialId", operationID: "adminGetCredential")
    static let adminRenameCredential = Operation(name: "admin_rename_credential", access: .admin, method: .patch, path: "/v1/admin/credentials/:credentialId", operationID: "adminRenameCredential")
    static let adminAuditEvents = Operation(name: "admin_audit_events", access: .admin, method: .get, path: "/v1/admin/audit-events", operationID: "adminAuditEvents")
    static let adminDeleteCredential = Operation(name: "admin_delete_credential", access: .admin, method: .delete, path: "/v1/admin/credentials/:credentialId", operationID: "adminDeleteCredential")

    // MARK: Events
    static let adminWebhookEndpoints = Operation(name: "admin_webhook_endpoints", access: .admin, method: .get, path: "/v1/admin/webhooks/endpoints", operationID: "adminListWebhookEndpoints")
    static let adminWebhookDeliveries = Operation(name: "admin_webhook_deliveries", access: .admin, method: .get, path: "/v1/admin/webhooks/endpoints/:endpointId/deliveries", operationID: "adminListWebhookDeliveries")
    static let adminWebhookRedeliver = Operation(name: "admin_webhook_redeliver", access: .admin, method: .post, path: "/v1/admin/webhooks/deliveries/:deliveryId/redeliver", operationID: "adminRedeliverWebhook")
    static let adminWebhookPause = Operation(name: "admin_webhook_pause", access: .admin, method: .post, path: "/v1/admin/webhooks/endpoints/:endpointId/pause", operationID: "adminPauseWebhookEndpoint")
    static let adminWebhookResume = Operation(name: "admin_webhook_resume", access: .admin, method: .post, path: "/v1/admin/webhooks/endpoints/:endpointId/resume", operationID: "adminResumeWebhookEndpoint")

    /// Every operation, in the order above.
    static let all: [Operation] = [
        .healthz, .readyz, .metrics, .openAPIDocument, .userSignals, .registrationBegin, .registrationFinish,
        .createUser, .authenticationBegin, .authenticationFinish, .demoRegistrationBegin, .demoRegistrationFinish,
        .demoAuthenticationBegin, .demoAuthenticationFinish, .demoSession, .demoDeleteCredential, .demoSignOut,
        .appleAppSiteAssociation, .assetLinks, .relatedOrigins, .conformanceAttestationOptions,
        .conformanceAttestationResult, .conformanceAssertionOptions, .conformanceAssertionResult, .idTokenBegin,
        .idTokenFinish, .sessionJWKS, .sessionRefresh, .sessionRevoke, .sessionIntrospect, .handoffCreate,
        .handoffExchange, .meCredentials, .meRenameCredential, .meDeleteCredential, .meRegistrationBegin,
        .meRegistrationFinish, .meIdentities, .meUnlinkIdentity, .appStoreTransaction, .appStoreRenewal,
        .appStoreNotification, .appStoreEntitlements, .appAttestChallenge, .appAttestAttestation, .appAttestAssertion,
        .adminUserSessions, .adminRevokeSession, .adminRevokeSessions, .adminUserIdentities, .adminUnlinkIdentity,
        .adminListUsers, .adminGetUser, .adminUserCredentials, .adminDeleteUser, .adminGetCredential,
        .adminRenameCredential, .adminAuditEvents, .adminDeleteCredential, .adminWebhookEndpoints, .adminWebhookDeliveries,
        .adminWebhookRedeliver, .adminWebhookPause, .adminWebhookResume,
    ]
}
