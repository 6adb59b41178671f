import { type OperationId, type Operations } from "./generated/openapi.js";
/** The request body of an operation (openapi.json's requestBody). */
export declare type Body<K extends OperationId> = Operations[K]["body"];
/** The answer of an operation (its 2xx body; `void` for 204, `string` for text). */
export declare type Answer<K extends OperationId> = Operations[K]["response"];
/** The query parameters of an operation. */
export declare type Query<K extends OperationId> = Operations[K]["query"];
/** The path parameters of an operation. */
export declare type PathParams<K extends OperationId> = Operations[K]["pathParams"];
/** What {@link PasskeydClient.request} takes for operation K: its path parameters, query and body, as it declares them. */
export declare type OperationInput<K extends OperationId> = ([keyof PathParams<K>] extends [never] ? {
    pathParams?: undefined;
} : {
    pathParams: PathParams<K>;
}) & ([keyof Query<K>] extends [never] ? {
    query?: undefined;
} : {
    query?: Query<K>;
}) & ([Body<K>] extends [never] ? {
    body?: undefined;
} : Operations[K]["bodyRequired"] extends true ? {
    body: Body<K>;
} : {
    body?: Body<K>;
});
export interface PasskeydClientOptions {
    /** passkeyd's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept: `https://example.com/passkeyd`). */
    baseUrl: string;
    /** An API key (`PASSKEYD_API_KEYS`): sent on the ceremony, App Store, App Attest, introspection and signal calls. */
    apiKey?: string;
    /** An admin key (`PASSKEYD_ADMIN_KEYS`): sent on the `/v1/admin` calls. */
    adminKey?: string;
    /** The fetch to use (default: the platform's `globalThis.fetch`). */
    fetch?: typeof fetch;
    /** Headers sent with every request. */
    headers?: Record<string, string>;
    /** fetch's `credentials` (browsers: `"include"` to send passkeyd's session cookie to another origin). */
    credentials?: RequestCredentials;
}
export interface RequestOptions {
    /**
     * A user's access token (a passkeyd `session`'s `accessToken`): sent as the Bearer token on the calls that take
     * one (`/v1/me/*`, `revokeSession`, `createHandoffCode` from the app), instead of the API key.
     */
    accessToken?: string;
    /** Aborts the request. */
    signal?: AbortSignal;
    /** Headers for this request (they win over the client's). */
    headers?: Record<string, string>;
}
/** An answer with its HTTP status and headers ({@link PasskeydClient.request}). */
export interface PasskeydResponse<K extends OperationId> {
    status: number;
    headers: Headers;
    body: Answer<K>;
}
/**
 * A client for every operation of passkeyd's HTTP API (openapi.json): each method is named by its operationId and
 * takes the request body (and path parameters) the document declares; it resolves to the answer's body, typed from
 * the document, or rejects with a {@link PasskeydError}. Credentials follow each operation's security: the API key
 * on API-key calls (none is sent when the client has none: passkeyd without API keys leaves those calls open), the
 * admin key on admin calls, a user's access token (`options.accessToken`, or the first argument of the `me*` calls)
 * on the calls that speak for a signed-in person.
 */
export declare class PasskeydClient {
    readonly baseUrl: string;
    apiKey: string | undefined;
    adminKey: string | undefined;
    private readonly fetchFunction;
    private readonly headers;
    private readonly credentials;
    constructor(options: PasskeydClientOptions);
    /** POST /v1/registration/begin: creation options for a new user (`{user: {name}}`) or an existing one (`{user: {id}}`). */
    registrationBegin(body: Body<"registrationBegin">, options?: RequestOptions): Promise<Answer<"registrationBegin">>;
    /** POST /v1/registration/finish: verifies and stores the credential (`{credential, nickname?}`). */
    registrationFinish(body: Body<"registrationFinish">, options?: RequestOptions): Promise<Answer<"registrationFinish">>;
    /** POST /v1/users: an account without a sign-in method yet, to upgrade by id. */
    createUser(body: Body<"createUser">, options?: RequestOptions): Promise<Answer<"createUser">>;
    /** POST /v1/authentication/begin: request options (no body, or `{}`: a discoverable-credential request). */
    authenticationBegin(body?: Body<"authenticationBegin">, options?: RequestOptions): Promise<Answer<"authenticationBegin">>;
    /** POST /v1/authentication/finish: verifies the assertion; the answer's `signal` is for the Signal API. */
    authenticationFinish(body: Body<"authenticationFinish">, options?: RequestOptions): Promise<Answer<"authenticationFinish">>;
    /** GET /v1/users/{userId}/signals: signalAllAcceptedCredentials' and signalCurrentUserDetails' arguments. */
    getUserSignals(userId: string, options?: RequestOptions): Promise<Answer<"getUserSignals">>;
    /** GET /healthz: the process is up. */
    getHealth(options?: RequestOptions): Promise<Answer<"getHealth">>;
    /** GET /readyz: the database is reachable (503 otherwise). */
    getReadiness(options?: RequestOptions): Promise<Answer<"getReadiness">>;
    /** GET /metrics: Prometheus text. */
    getMetrics(options?: RequestOptions): Promise<Answer<"getMetrics">>;
    /** GET /openapi.json: the API document of exactly what this server's configuration serves. */
    getOpenAPIDocument(options?: RequestOptions): Promise<Answer<"getOpenAPIDocument">>;
    /** GET /v1/admin/users: a page of users (`name` filters exactly; `after` is the previous page's `next`). */
    adminListUsers(query?: Query<"adminListUsers">, options?: RequestOptions): Promise<Answer<"adminListUsers">>;
    /** GET /v1/admin/users/{userId}: the user with their credentials. */
    adminGetUser(userId: string, options?: RequestOptions): Promise<Answer<"adminGetUser">>;
    /** DELETE /v1/admin/users/{userId}: the user and all their credentials. */
    adminDeleteUser(userId: string, options?: RequestOptions): Promise<Answer<"adminDeleteUser">>;
    /** GET /v1/admin/users/{userId}/credentials. */
    adminListUserCredentials(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserCredentials">>;
    /** GET /v1/admin/credentials/{credentialId}: the credential with its owner. */
    adminGetCredential(credentialId: string, options?: RequestOptions): Promise<Answer<"adminGetCredential">>;
    /** PATCH /v1/admin/credentials/{credentialId}: `{nickname}` sets it, `{nickname: null}` clears it. */
    adminRenameCredential(credentialId: string, body: Body<"adminRenameCredential">, options?: RequestOptions): Promise<Answer<"adminRenameCredential">>;
    /** DELETE /v1/admin/credentials/{credentialId}. */
    adminDeleteCredential(credentialId: string, options?: RequestOptions): Promise<Answer<"adminDeleteCredential">>;
    /** GET /v1/admin/audit-events: a page of the audit trail (`user`, `since`, `until`, `limit`, `after`). */
    adminAuditEvents(query?: Query<"adminAuditEvents">, options?: RequestOptions): Promise<Answer<"adminAuditEvents">>;
    /** GET /v1/admin/users/{userId}/identities: the user's provider identities. */
    adminListUserIdentities(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserIdentities">>;
    /** DELETE /v1/admin/users/{userId}/identities/{identityId}. */
    adminUnlinkIdentity(userId: string, identityId: string, options?: RequestOptions): Promise<Answer<"adminUnlinkIdentity">>;
    /** GET /v1/admin/users/{userId}/sessions. */
    adminListUserSessions(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserSessions">>;
    /** DELETE /v1/admin/users/{userId}/sessions: revokes every session of the user. */
    adminRevokeUserSessions(userId: string, options?: RequestOptions): Promise<Answer<"adminRevokeUserSessions">>;
    /** DELETE /v1/admin/users/{userId}/sessions/{sessionId}. */
    adminRevokeUserSession(userId: string, sessionId: string, options?: RequestOptions): Promise<Answer<"adminRevokeUserSession">>;
    adminListWebhookEndpoints(options?: RequestOptions): Promise<Answer<"adminListWebhookEndpoints">>;
    adminListWebhookDeliveries(endpointId: string, query?: Query<"adminListWebhookDeliveries">, options?: RequestOptions): Promise<Answer<"adminListWebhookDeliveries">>;
    adminRedeliverWebhook(deliveryId: string, options?: RequestOptions): Promise<Answer<"adminRedeliverWebhook">>;
    adminPauseWebhookEndpoint(endpointId: string, options?: RequestOptions): Promise<Answer<"adminPauseWebhookEndpoint">>;
    adminResumeWebhookEndpoint(endpointId: string, options?: RequestOptions): Promise<Answer<"adminResumeWebhookEndpoint">>;
    /** POST /attestation/options. */
    conformanceAttestationOptions(body: Body<"conformanceAttestationOptions">, options?: RequestOptions): Promise<Answer<"conformanceAttestationOptions">>;
    /** POST /attestation/result. */
    conformanceAttestationResult(body: Body<"conformanceAttestationResult">, options?: RequestOptions): Promise<Answer<"conformanceAttestationResult">>;
    /** POST /assertion/options. */
    conformanceAssertionOptions(body: Body<"conformanceAssertionOptions">, options?: RequestOptions): Promise<Answer<"conformanceAssertionOptions">>;
    /** POST /assertion/result. */
    conformanceAssertionResult(body: Body<"conformanceAssertionResult">, options?: RequestOptions): Promise<Answer<"conformanceAssertionResult">>;
    /** POST /v1/idtoken/begin: a session and the nonce to hand to the provider (`providerNonce`). */
    idTokenBegin(body: Body<"idTokenBegin">, options?: RequestOptions): Promise<Answer<"idTokenBegin">>;
    /** POST /v1/idtoken/finish: verifies the provider's ID token; signs the user in (or up, or links by `user.id`). */
    idTokenFinish(body: Body<"idTokenFinish">, options?: RequestOptions): Promise<Answer<"idTokenFinish">>;
    /** GET /.well-known/jwks.json: the access tokens' public keys. */
    getSessionJWKS(options?: RequestOptions): Promise<Answer<"getSessionJWKS">>;
    /** POST /v1/sessions/refresh: `{refreshToken}` (or, from a browser, the session cookie with no body). */
    refreshSession(body?: Body<"refreshSession">, options?: RequestOptions): Promise<Answer<"refreshSession">>;
    /** POST /v1/sessions/revoke: `{refreshToken}`, the cookie, or `options.accessToken` with no body. */
    revokeSession(body?: Body<"revokeSession">, options?: RequestOptions): Promise<Answer<"revokeSession">>;
    /** POST /v1/sessions/introspect: RFC 7662 (`{token}`). */
    introspectAccessToken(body: Body<"introspectAccessToken">, options?: RequestOptions): Promise<Answer<"introspectAccessToken">>;
    /**
     * POST /v1/handoff: a one-time code for a web view. From the app: `options.accessToken` and `{codeChallenge?}`;
     * from the backend: the API key and `{userId, codeChallenge?}`.
     */
    createHandoffCode(body?: Body<"createHandoffCode">, options?: RequestOptions): Promise<Answer<"createHandoffCode">>;
    /** POST /v1/handoff/exchange: `{code, codeVerifier?, cookie?}` for a session of the web view's own. */
    exchangeHandoffCode(body: Body<"exchangeHandoffCode">, options?: RequestOptions): Promise<Answer<"exchangeHandoffCode">>;
    /** GET /v1/me/credentials. */
    meListCredentials(accessToken: string, options?: RequestOptions): Promise<Answer<"meListCredentials">>;
    /** PATCH /v1/me/credentials/{credentialId}: `{nickname}` or `{nickname: null}`. */
    meRenameCredential(accessToken: string, credentialId: string, body: Body<"meRenameCredential">, options?: RequestOptions): Promise<Answer<"meRenameCredential">>;
    /** DELETE /v1/me/credentials/{credentialId} (409 when it is the last way to sign in). */
    meDeleteCredential(accessToken: string, credentialId: string, options?: RequestOptions): Promise<Answer<"meDeleteCredential">>;
    /** POST /v1/me/registration/begin: creation options for one more passkey of the signed-in person. */
    meRegistrationBegin(accessToken: string, body?: Body<"meRegistrationBegin">, options?: RequestOptions): Promise<Answer<"meRegistrationBegin">>;
    /** POST /v1/me/registration/finish. */
    meRegistrationFinish(accessToken: string, body: Body<"meRegistrationFinish">, options?: RequestOptions): Promise<Answer<"meRegistrationFinish">>;
    /** GET /v1/me/identities. */
    meListIdentities(accessToken: string, options?: RequestOptions): Promise<Answer<"meListIdentities">>;
    /** DELETE /v1/me/identities/{identityId}. */
    meUnlinkIdentity(accessToken: string, identityId: string, options?: RequestOptions): Promise<Answer<"meUnlinkIdentity">>;
    /** POST /v1/appattest/challenge: a single-use challenge. */
    appAttestChallenge(options?: RequestOptions): Promise<Answer<"appAttestChallenge">>;
    /** POST /v1/appattest/attestations: verifies and stores an App Attest key. */
    appAttestAttestation(body: Body<"appAttestAttestation">, options?: RequestOptions): Promise<Answer<"appAttestAttestation">>;
    /** POST /v1/appattest/assertions: verifies an assertion of a stored key. */
    appAttestAssertion(body: Body<"appAttestAssertion">, options?: RequestOptions): Promise<Answer<"appAttestAssertion">>;
    /** POST /v1/appstore/transactions: keeps a verified StoreKit transaction (`{userId, signedTransaction}`). */
    appStorePostTransaction(body: Body<"appStorePostTransaction">, options?: RequestOptions): Promise<Answer<"appStorePostTransaction">>;
    /** POST /v1/appstore/renewals: keeps verified renewal information (`{signedRenewalInfo}`). */
    appStorePostRenewalInfo(body: Body<"appStorePostRenewalInfo">, options?: RequestOptions): Promise<Answer<"appStorePostRenewalInfo">>;
    /** POST /v1/appstore/notifications: an App Store Server Notification V2 (`{signedPayload}`). */
    appStoreNotification(body: Body<"appStoreNotification">, options?: RequestOptions): Promise<Answer<"appStoreNotification">>;
    /** GET /v1/users/{userId}/entitlements: what the user's purchases grant now, and their `appAccountToken`. */
    appStoreEntitlements(userId: string, options?: RequestOptions): Promise<Answer<"appStoreEntitlements">>;
    /** GET /.well-known/apple-app-site-association. */
    getAppleAppSiteAssociation(options?: RequestOptions): Promise<Answer<"getAppleAppSiteAssociation">>;
    /** GET /.well-known/assetlinks.json. */
    getAssetLinks(options?: RequestOptions): Promise<Answer<"getAssetLinks">>;
    /** GET /.well-known/webauthn: the related origins. */
    getRelatedOrigins(options?: RequestOptions): Promise<Answer<"getRelatedOrigins">>;
    /** Operation K by its operationId: resolves to the answer's body. */
    call<K extends OperationId>(operationId: K, input: OperationInput<K>, options?: RequestOptions): Promise<Answer<K>>;
    /** Operation K by its operationId: resolves to the answer's status, headers and body. */
    request<K extends OperationId>(operationId: K, input: OperationInput<K>, options?: RequestOptions): Promise<PasskeydResponse<K>>;
}
