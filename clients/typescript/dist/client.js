import { operations } from "./generated/openapi.js";
import { PasskeydError } from "./errors.js";
/**
 * A client for every operation of passkeyd's HTTP API (openapi.json): each method is named by its operationId and
 * takes the request body (and path parameters) the document declares; it resolves to the answer's body, typed from
 * the document, or rejects with a {@link PasskeydError}. Credentials follow each operation's security: the API key
 * on API-key calls (none is sent when the client has none: passkeyd without API keys leaves those calls open), the
 * admin key on admin calls, a user's access token (`options.accessToken`, or the first argument of the `me*` calls)
 * on the calls that speak for a signed-in person.
 */
export class PasskeydClient {
    constructor(options) {
        if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
            throw new TypeError("PasskeydClient: baseUrl is required");
        }
        this.baseUrl = options.baseUrl.replace(/\/+$/, "");
        this.apiKey = options.apiKey;
        this.adminKey = options.adminKey;
        const platformFetch = typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : undefined;
        const chosen = options.fetch ?? platformFetch;
        if (!chosen)
            throw new TypeError("PasskeydClient: no fetch (Node 18 or later, or pass options.fetch)");
        this.fetchFunction = chosen;
        this.headers = { ...(options.headers ?? {}) };
        this.credentials = options.credentials;
    }
    // ---- registration ----
    /** POST /v1/registration/begin: creation options for a new user (`{user: {name}}`) or an existing one (`{user: {id}}`). */
    registrationBegin(body, options) {
        return this.call("registrationBegin", { body }, options);
    }
    /** POST /v1/registration/finish: verifies and stores the credential (`{credential, nickname?}`). */
    registrationFinish(body, options) {
        return this.call("registrationFinish", { body }, options);
    }
    /** POST /v1/users: an account without a sign-in method yet, to upgrade by id. */
    createUser(body, options) {
        return this.call("createUser", { body }, options);
    }
    // ---- authentication ----
    /** POST /v1/authentication/begin: request options (no body, or `{}`: a discoverable-credential request). */
    authenticationBegin(body, options) {
        return this.call("authenticationBegin", { body }, options);
    }
    /** POST /v1/authentication/finish: verifies the assertion; the answer's `signal` is for the Signal API. */
    authenticationFinish(body, options) {
        return this.call("authenticationFinish", { body }, options);
    }
    /** GET /v1/users/{userId}/signals: signalAllAcceptedCredentials' and signalCurrentUserDetails' arguments. */
    getUserSignals(userId, options) {
        return this.call("getUserSignals", { pathParams: { userId } }, options);
    }
    // ---- operations ----
    /** GET /healthz: the process is up. */
    getHealth(options) {
        return this.call("getHealth", {}, options);
    }
    /** GET /readyz: the database is reachable (503 otherwise). */
    getReadiness(options) {
        return this.call("getReadiness", {}, options);
    }
    /** GET /metrics: Prometheus text. */
    getMetrics(options) {
        return this.call("getMetrics", {}, options);
    }
    /** GET /openapi.json: the API document of exactly what this server's configuration serves. */
    getOpenAPIDocument(options) {
        return this.call("getOpenAPIDocument", {}, options);
    }
    // ---- admin (the admin key) ----
    /** GET /v1/admin/users: a page of users (`name` filters exactly; `after` is the previous page's `next`). */
    adminListUsers(query, options) {
        return this.call("adminListUsers", { query }, options);
    }
    /** GET /v1/admin/users/{userId}: the user with their credentials. */
    adminGetUser(userId, options) {
        return this.call("adminGetUser", { pathParams: { userId } }, options);
    }
    /** DELETE /v1/admin/users/{userId}: the user and all their credentials. */
    adminDeleteUser(userId, options) {
        return this.call("adminDeleteUser", { pathParams: { userId } }, options);
    }
    /** GET /v1/admin/users/{userId}/credentials. */
    adminListUserCredentials(userId, options) {
        return this.call("adminListUserCredentials", { pathParams: { userId } }, options);
    }
    /** GET /v1/admin/credentials/{credentialId}: the credential with its owner. */
    adminGetCredential(credentialId, options) {
        return this.call("adminGetCredential", { pathParams: { credentialId } }, options);
    }
    /** PATCH /v1/admin/credentials/{credentialId}: `{nickname}` sets it, `{nickname: null}` clears it. */
    adminRenameCredential(credentialId, body, options) {
        return this.call("adminRenameCredential", { pathParams: { credentialId }, body }, options);
    }
    /** DELETE /v1/admin/credentials/{credentialId}. */
    adminDeleteCredential(credentialId, options) {
        return this.call("adminDeleteCredential", { pathParams: { credentialId } }, options);
    }
    /** GET /v1/admin/audit-events: a page of the audit trail (`user`, `since`, `until`, `limit`, `after`). */
    adminAuditEvents(query, options) {
        return this.call("adminAuditEvents", { query }, options);
    }
    /** GET /v1/admin/users/{userId}/identities: the user's provider identities. */
    adminListUserIdentities(userId, options) {
        return this.call("adminListUserIdentities", { pathParams: { userId } }, options);
    }
    /** DELETE /v1/admin/users/{userId}/identities/{identityId}. */
    adminUnlinkIdentity(userId, identityId, options) {
        return this.call("adminUnlinkIdentity", { pathParams: { userId, identityId } }, options);
    }
    /** GET /v1/admin/users/{userId}/sessions. */
    adminListUserSessions(userId, options) {
        return this.call("adminListUserSessions", { pathParams: { userId } }, options);
    }
    /** DELETE /v1/admin/users/{userId}/sessions: revokes every session of the user. */
    adminRevokeUserSessions(userId, options) {
        return this.call("adminRevokeUserSessions", { pathParams: { userId } }, options);
    }
    /** DELETE /v1/admin/users/{userId}/sessions/{sessionId}. */
    adminRevokeUserSession(userId, sessionId, options) {
        return this.call("adminRevokeUserSession", { pathParams: { userId, sessionId } }, options);
    }
    adminListWebhookEndpoints(options) {
        return this.call("adminListWebhookEndpoints", {}, options);
    }
    adminListWebhookDeliveries(endpointId, query, options) {
        return this.call("adminListWebhookDeliveries", { pathParams: { endpointId }, query }, options);
    }
    adminRedeliverWebhook(deliveryId, options) {
        return this.call("adminRedeliverWebhook", { pathParams: { deliveryId } }, options);
    }
    adminPauseWebhookEndpoint(endpointId, options) {
        return this.call("adminPauseWebhookEndpoint", { pathParams: { endpointId } }, options);
    }
    adminResumeWebhookEndpoint(endpointId, options) {
        return this.call("adminResumeWebhookEndpoint", { pathParams: { endpointId } }, options);
    }
    // ---- FIDO conformance binding (PASSKEYD_FIDO_CONFORMANCE=on) ----
    /** POST /attestation/options. */
    conformanceAttestationOptions(body, options) {
        return this.call("conformanceAttestationOptions", { body }, options);
    }
    /** POST /attestation/result. */
    conformanceAttestationResult(body, options) {
        return this.call("conformanceAttestationResult", { body }, options);
    }
    /** POST /assertion/options. */
    conformanceAssertionOptions(body, options) {
        return this.call("conformanceAssertionOptions", { body }, options);
    }
    /** POST /assertion/result. */
    conformanceAssertionResult(body, options) {
        return this.call("conformanceAssertionResult", { body }, options);
    }
    // ---- ID tokens ----
    /** POST /v1/idtoken/begin: a session and the nonce to hand to the provider (`providerNonce`). */
    idTokenBegin(body, options) {
        return this.call("idTokenBegin", { body }, options);
    }
    /** POST /v1/idtoken/finish: verifies the provider's ID token; signs the user in (or up, or links by `user.id`). */
    idTokenFinish(body, options) {
        return this.call("idTokenFinish", { body }, options);
    }
    // ---- sessions ----
    /** GET /.well-known/jwks.json: the access tokens' public keys. */
    getSessionJWKS(options) {
        return this.call("getSessionJWKS", {}, options);
    }
    /** POST /v1/sessions/refresh: `{refreshToken}` (or, from a browser, the session cookie with no body). */
    refreshSession(body, options) {
        return this.call("refreshSession", { body }, options);
    }
    /** POST /v1/sessions/revoke: `{refreshToken}`, the cookie, or `options.accessToken` with no body. */
    revokeSession(body, options) {
        return this.call("revokeSession", { body }, options);
    }
    /** POST /v1/sessions/introspect: RFC 7662 (`{token}`). */
    introspectAccessToken(body, options) {
        return this.call("introspectAccessToken", { body }, options);
    }
    /**
     * POST /v1/handoff: a one-time code for a web view. From the app: `options.accessToken` and `{codeChallenge?}`;
     * from the backend: the API key and `{userId, codeChallenge?}`.
     */
    createHandoffCode(body, options) {
        return this.call("createHandoffCode", { body }, options);
    }
    /** POST /v1/handoff/exchange: `{code, codeVerifier?, cookie?}` for a session of the web view's own. */
    exchangeHandoffCode(body, options) {
        return this.call("exchangeHandoffCode", { body }, options);
    }
    // ---- the signed-in person's own account (their access token) ----
    /** GET /v1/me/credentials. */
    meListCredentials(accessToken, options) {
        return this.call("meListCredentials", {}, { ...options, accessToken });
    }
    /** PATCH /v1/me/credentials/{credentialId}: `{nickname}` or `{nickname: null}`. */
    meRenameCredential(accessToken, credentialId, body, options) {
        return this.call("meRenameCredential", { pathParams: { credentialId }, body }, { ...options, accessToken });
    }
    /** DELETE /v1/me/credentials/{credentialId} (409 when it is the last way to sign in). */
    meDeleteCredential(accessToken, credentialId, options) {
        return this.call("meDeleteCredential", { pathParams: { credentialId } }, { ...options, accessToken });
    }
    /** POST /v1/me/registration/begin: creation options for one more passkey of the signed-in person. */
    meRegistrationBegin(accessToken, body, options) {
        return this.call("meRegistrationBegin", { body }, { ...options, accessToken });
    }
    /** POST /v1/me/registration/finish. */
    meRegistrationFinish(accessToken, body, options) {
        return this.call("meRegistrationFinish", { body }, { ...options, accessToken });
    }
    /** GET /v1/me/identities. */
    meListIdentities(accessToken, options) {
        return this.call("meListIdentities", {}, { ...options, accessToken });
    }
    /** DELETE /v1/me/identities/{identityId}. */
    meUnlinkIdentity(accessToken, identityId, options) {
        return this.call("meUnlinkIdentity", { pathParams: { identityId } }, { ...options, accessToken });
    }
    // ---- App Attest ----
    /** POST /v1/appattest/challenge: a single-use challenge. */
    appAttestChallenge(options) {
        return this.call("appAttestChallenge", { body: {} }, options);
    }
    /** POST /v1/appattest/attestations: verifies and stores an App Attest key. */
    appAttestAttestation(body, options) {
        return this.call("appAttestAttestation", { body }, options);
    }
    /** POST /v1/appattest/assertions: verifies an assertion of a stored key. */
    appAttestAssertion(body, options) {
        return this.call("appAttestAssertion", { body }, options);
    }
    // ---- App Store ----
    /** POST /v1/appstore/transactions: keeps a verified StoreKit transaction (`{userId, signedTransaction}`). */
    appStorePostTransaction(body, options) {
        return this.call("appStorePostTransaction", { body }, options);
    }
    /** POST /v1/appstore/renewals: keeps verified renewal information (`{signedRenewalInfo}`). */
    appStorePostRenewalInfo(body, options) {
        return this.call("appStorePostRenewalInfo", { body }, options);
    }
    /** POST /v1/appstore/notifications: an App Store Server Notification V2 (`{signedPayload}`). */
    appStoreNotification(body, options) {
        return this.call("appStoreNotification", { body }, options);
    }
    /** GET /v1/users/{userId}/entitlements: what the user's purchases grant now, and their `appAccountToken`. */
    appStoreEntitlements(userId, options) {
        return this.call("appStoreEntitlements", { pathParams: { userId } }, options);
    }
    // ---- association documents ----
    /** GET /.well-known/apple-app-site-association. */
    getAppleAppSiteAssociation(options) {
        return this.call("getAppleAppSiteAssociation", {}, options);
    }
    /** GET /.well-known/assetlinks.json. */
    getAssetLinks(options) {
        return this.call("getAssetLinks", {}, options);
    }
    /** GET /.well-known/webauthn: the related origins. */
    getRelatedOrigins(options) {
        return this.call("getRelatedOrigins", {}, options);
    }
    // ---- any operation ----
    /** Operation K by its operationId: resolves to the answer's body. */
    async call(operationId, input, options) {
        return (await this.request(operationId, input, options)).body;
    }
    /** Operation K by its operationId: resolves to the answer's status, headers and body. */
    async request(operationId, input, options = {}) {
        const spec = operations[operationId];
        if (!spec)
            throw new TypeError(`PasskeydClient: no operation ${String(operationId)}`);
        const { pathParams, query, body } = input;
        const headers = { Accept: spec.response === "text" ? "text/plain" : "application/json", ...this.headers };
        const bearer = authorization(spec, { apiKey: this.apiKey, adminKey: this.adminKey, accessToken: options.accessToken });
        if (bearer)
            headers.Authorization = bearer;
        const init = { method: spec.method, headers };
        if (this.credentials)
            init.credentials = this.credentials;
        if (options.signal)
            init.signal = options.signal;
        if (body !== undefined && spec.body !== "none") {
            headers["Content-Type"] = "application/json";
            init.body = JSON.stringify(body);
        }
        Object.assign(headers, options.headers ?? {});
        const response = await this.fetchFunction(requestUrl(this.baseUrl, spec, pathParams, query), init);
        if (!response.ok)
            throw await PasskeydError.fromResponse(response, operationId);
        return { status: response.status, headers: response.headers, body: (await readAnswer(response, spec, operationId)) };
    }
}
/** The request URL: baseUrl, the path with its parameters filled in (percent-encoded), the query. */
function requestUrl(baseUrl, spec, pathParams, query) {
    const path = spec.path.replace(/\{([^}]+)\}/g, (_, name) => {
        const value = pathParams?.[name];
        if (typeof value !== "string" || value === "")
            throw new TypeError(`PasskeydClient: ${spec.path} needs ${name}`);
        return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const name of spec.queryParams) {
        const value = query?.[name];
        if (value !== undefined && value !== null)
            search.append(name, String(value));
    }
    const text = search.toString();
    return baseUrl + path + (text ? `?${text}` : "");
}
/** The Bearer token for the first of the operation's security alternatives these credentials meet. */
function authorization(spec, credentials) {
    for (const scheme of spec.security) {
        if (scheme === null)
            return undefined;
        const token = credentials[scheme];
        if (token)
            return `Bearer ${token}`;
    }
    // None: sent without credentials, and passkeyd answers 401 unauthorized.
    return undefined;
}
/** The body of a 2xx answer: undefined (204), text, or parsed JSON. */
async function readAnswer(response, spec, operationId) {
    if (spec.response === "none" || response.status === 204) {
        await response.body?.cancel().catch(() => { });
        return undefined;
    }
    const text = await response.text();
    if (spec.response === "text")
        return text;
    try {
        return JSON.parse(text);
    }
    catch {
        throw new PasskeydError({
            status: response.status,
            code: "invalid_response",
            message: `${operationId}: the answer is not JSON`,
            body: text,
            operationId,
        });
    }
}
