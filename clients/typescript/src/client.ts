import { operations, type OperationId, type Operations, type OperationSpec } from "./generated/openapi.js";
import { PasskeydError } from "./errors.js";

/** The request body of an operation (openapi.json's requestBody). */
export type Body<K extends OperationId> = Operations[K]["body"];
/** The answer of an operation (its 2xx body; `void` for 204, `string` for text). */
export type Answer<K extends OperationId> = Operations[K]["response"];
/** The query parameters of an operation. */
export type Query<K extends OperationId> = Operations[K]["query"];
/** The path parameters of an operation. */
export type PathParams<K extends OperationId> = Operations[K]["pathParams"];

/** What {@link PasskeydClient.request} takes for operation K: its path parameters, query and body, as it declares them. */
export type OperationInput<K extends OperationId> =
  ([keyof PathParams<K>] extends [never] ? { pathParams?: undefined } : { pathParams: PathParams<K> }) &
  ([keyof Query<K>] extends [never] ? { query?: undefined } : { query?: Query<K> }) &
  ([Body<K>] extends [never]
    ? { body?: undefined }
    : Operations[K]["bodyRequired"] extends true
      ? { body: Body<K> }
      : { body?: Body<K> });

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
export class PasskeydClient {
  readonly baseUrl: string;
  apiKey: string | undefined;
  adminKey: string | undefined;
  private readonly fetchFunction: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly credentials: RequestCredentials | undefined;

  constructor(options: PasskeydClientOptions) {
    if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError("PasskeydClient: baseUrl is required");
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.adminKey = options.adminKey;
    const platformFetch = typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : undefined;
    const chosen = options.fetch ?? platformFetch;
    if (!chosen) throw new TypeError("PasskeydClient: no fetch (Node 18 or later, or pass options.fetch)");
    this.fetchFunction = chosen;
    this.headers = { ...(options.headers ?? {}) };
    this.credentials = options.credentials;
  }

  // ---- registration ----

  /** POST /v1/registration/begin: creation options for a new user (`{user: {name}}`) or an existing one (`{user: {id}}`). */
  registrationBegin(body: Body<"registrationBegin">, options?: RequestOptions): Promise<Answer<"registrationBegin">> {
    return this.call("registrationBegin", { body }, options);
  }

  /** POST /v1/registration/finish: verifies and stores the credential (`{credential, nickname?}`). */
  registrationFinish(body: Body<"registrationFinish">, options?: RequestOptions): Promise<Answer<"registrationFinish">> {
    return this.call("registrationFinish", { body }, options);
  }

  /** POST /v1/users: an account without a sign-in method yet, to upgrade by id. */
  createUser(body: Body<"createUser">, options?: RequestOptions): Promise<Answer<"createUser">> {
    return this.call("createUser", { body }, options);
  }

  // ---- authentication ----

  /** POST /v1/authentication/begin: request options (no body, or `{}`: a discoverable-credential request). */
  authenticationBegin(body?: Body<"authenticationBegin">, options?: RequestOptions): Promise<Answer<"authenticationBegin">> {
    return this.call("authenticationBegin", { body }, options);
  }

  /** POST /v1/authentication/finish: verifies the assertion; the answer's `signal` is for the Signal API. */
  authenticationFinish(body: Body<"authenticationFinish">, options?: RequestOptions): Promise<Answer<"authenticationFinish">> {
    return this.call("authenticationFinish", { body }, options);
  }

  /** GET /v1/users/{userId}/signals: signalAllAcceptedCredentials' and signalCurrentUserDetails' arguments. */
  getUserSignals(userId: string, options?: RequestOptions): Promise<Answer<"getUserSignals">> {
    return this.call("getUserSignals", { pathParams: { userId } }, options);
  }

  // ---- operations ----

  /** GET /healthz: the process is up. */
  getHealth(options?: RequestOptions): Promise<Answer<"getHealth">> {
    return this.call("getHealth", {}, options);
  }

  /** GET /readyz: the database is reachable (503 otherwise). */
  getReadiness(options?: RequestOptions): Promise<Answer<"getReadiness">> {
    return this.call("getReadiness", {}, options);
  }

  /** GET /metrics: Prometheus text. */
  getMetrics(options?: RequestOptions): Promise<Answer<"getMetrics">> {
    return this.call("getMetrics", {}, options);
  }

  /** GET /openapi.json: the API document of exactly what this server's configuration serves. */
  getOpenAPIDocument(options?: RequestOptions): Promise<Answer<"getOpenAPIDocument">> {
    return this.call("getOpenAPIDocument", {}, options);
  }

  // ---- admin (the admin key) ----

  /** GET /v1/admin/users: a page of users (`name` filters exactly; `after` is the previous page's `next`). */
  adminListUsers(query?: Query<"adminListUsers">, options?: RequestOptions): Promise<Answer<"adminListUsers">> {
    return this.call("adminListUsers", { query }, options);
  }

  /** GET /v1/admin/users/{userId}: the user with their credentials. */
  adminGetUser(userId: string, options?: RequestOptions): Promise<Answer<"adminGetUser">> {
    return this.call("adminGetUser", { pathParams: { userId } }, options);
  }

  /** DELETE /v1/admin/users/{userId}: the user and all their credentials. */
  adminDeleteUser(userId: string, options?: RequestOptions): Promise<Answer<"adminDeleteUser">> {
    return this.call("adminDeleteUser", { pathParams: { userId } }, options);
  }

  /** GET /v1/admin/users/{userId}/credentials. */
  adminListUserCredentials(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserCredentials">> {
    return this.call("adminListUserCredentials", { pathParams: { userId } }, options);
  }

  /** GET /v1/admin/credentials/{credentialId}: the credential with its owner. */
  adminGetCredential(credentialId: string, options?: RequestOptions): Promise<Answer<"adminGetCredential">> {
    return this.call("adminGetCredential", { pathParams: { credentialId } }, options);
  }

  /** PATCH /v1/admin/credentials/{credentialId}: `{nickname}` sets it, `{nickname: null}` clears it. */
  adminRenameCredential(credentialId: string, body: Body<"adminRenameCredential">, options?: RequestOptions): Promise<Answer<"adminRenameCredential">> {
    return this.call("adminRenameCredential", { pathParams: { credentialId }, body }, options);
  }

  /** DELETE /v1/admin/credentials/{credentialId}. */
  adminDeleteCredential(credentialId: string, options?: RequestOptions): Promise<Answer<"adminDeleteCredential">> {
    return this.call("adminDeleteCredential", { pathParams: { credentialId } }, options);
  }

  /** GET /v1/admin/audit-events: a page of the audit trail (`user`, `since`, `until`, `limit`, `after`). */
  adminAuditEvents(query?: Query<"adminAuditEvents">, options?: RequestOptions): Promise<Answer<"adminAuditEvents">> {
    return this.call("adminAuditEvents", { query }, options);
  }

  /** GET /v1/admin/users/{userId}/identities: the user's provider identities. */
  adminListUserIdentities(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserIdentities">> {
    return this.call("adminListUserIdentities", { pathParams: { userId } }, options);
  }

  /** DELETE /v1/admin/users/{userId}/identities/{identityId}. */
  adminUnlinkIdentity(userId: string, identityId: string, options?: RequestOptions): Promise<Answer<"adminUnlinkIdentity">> {
    return this.call("adminUnlinkIdentity", { pathParams: { userId, identityId } }, options);
  }

  /** GET /v1/admin/users/{userId}/sessions. */
  adminListUserSessions(userId: string, options?: RequestOptions): Promise<Answer<"adminListUserSessions">> {
    return this.call("adminListUserSessions", { pathParams: { userId } }, options);
  }

  /** DELETE /v1/admin/users/{userId}/sessions: revokes every session of the user. */
  adminRevokeUserSessions(userId: string, options?: RequestOptions): Promise<Answer<"adminRevokeUserSessions">> {
    return this.call("adminRevokeUserSessions", { pathParams: { userId } }, options);
  }

  /** DELETE /v1/admin/users/{userId}/sessions/{sessionId}. */
  adminRevokeUserSession(userId: string, sessionId: string, options?: RequestOptions): Promise<Answer<"adminRevokeUserSession">> {
    return this.call("adminRevokeUserSession", { pathParams: { userId, sessionId } }, options);
  }

  adminListWebhookEndpoints(options?: RequestOptions): Promise<Answer<"adminListWebhookEndpoints">> {
    return this.call("adminListWebhookEndpoints", {}, options);
  }

  adminListWebhookDeliveries(
    endpointId: string, query?: Query<"adminListWebhookDeliveries">, options?: RequestOptions,
  ): Promise<Answer<"adminListWebhookDeliveries">> {
    return this.call("adminListWebhookDeliveries", { pathParams: { endpointId }, query }, options);
  }

  adminRedeliverWebhook(deliveryId: string, options?: RequestOptions): Promise<Answer<"adminRedeliverWebhook">> {
    return this.call("adminRedeliverWebhook", { pathParams: { deliveryId } }, options);
  }

  adminPauseWebhookEndpoint(endpointId: string, options?: RequestOptions): Promise<Answer<"adminPauseWebhookEndpoint">> {
    return this.call("adminPauseWebhookEndpoint", { pathParams: { endpointId } }, options);
  }

  adminResumeWebhookEndpoint(endpointId: string, options?: RequestOptions): Promise<Answer<"adminResumeWebhookEndpoint">> {
    return this.call("adminResumeWebhookEndpoint", { pathParams: { endpointId } }, options);
  }

  // ---- FIDO conformance binding (PASSKEYD_FIDO_CONFORMANCE=on) ----

  /** POST /attestation/options. */
  conformanceAttestationOptions(body: Body<"conformanceAttestationOptions">, options?: RequestOptions): Promise<Answer<"conformanceAttestationOptions">> {
    return this.call("conformanceAttestationOptions", { body }, options);
  }

  /** POST /attestation/result. */
  conformanceAttestationResult(body: Body<"conformanceAttestationResult">, options?: RequestOptions): Promise<Answer<"conformanceAttestationResult">> {
    return this.call("conformanceAttestationResult", { body }, options);
  }

  /** POST /assertion/options. */
  conformanceAssertionOptions(body: Body<"conformanceAssertionOptions">, options?: RequestOptions): Promise<Answer<"conformanceAssertionOptions">> {
    return this.call("conformanceAssertionOptions", { body }, options);
  }

  /** POST /assertion/result. */
  conformanceAssertionResult(body: Body<"conformanceAssertionResult">, options?: RequestOptions): Promise<Answer<"conformanceAssertionResult">> {
    return this.call("conformanceAssertionResult", { body }, options);
  }

  // ---- ID tokens ----

  /** POST /v1/idtoken/begin: a session and the nonce to hand to the provider (`providerNonce`). */
  idTokenBegin(body: Body<"idTokenBegin">, options?: RequestOptions): Promise<Answer<"idTokenBegin">> {
    return this.call("idTokenBegin", { body }, options);
  }

  /** POST /v1/idtoken/finish: verifies the provider's ID token; signs the user in (or up, or links by `user.id`). */
  idTokenFinish(body: Body<"idTokenFinish">, options?: RequestOptions): Promise<Answer<"idTokenFinish">> {
    return this.call("idTokenFinish", { body }, options);
  }

  // ---- sessions ----

  /** GET /.well-known/jwks.json: the access tokens' public keys. */
  getSessionJWKS(options?: RequestOptions): Promise<Answer<"getSessionJWKS">> {
    return this.call("getSessionJWKS", {}, options);
  }

  /** POST /v1/sessions/refresh: `{refreshToken}` (or, from a browser, the session cookie with no body). */
  refreshSession(body?: Body<"refreshSession">, options?: RequestOptions): Promise<Answer<"refreshSession">> {
    return this.call("refreshSession", { body }, options);
  }

  /** POST /v1/sessions/revoke: `{refreshToken}`, the cookie, or `options.accessToken` with no body. */
  revokeSession(body?: Body<"revokeSession">, options?: RequestOptions): Promise<Answer<"revokeSession">> {
    return this.call("revokeSession", { body }, options);
  }

  /** POST /v1/sessions/introspect: RFC 7662 (`{token}`). */
  introspectAccessToken(body: Body<"introspectAccessToken">, options?: RequestOptions): Promise<Answer<"introspectAccessToken">> {
    return this.call("introspectAccessToken", { body }, options);
  }

  /**
   * POST /v1/handoff: a one-time code for a web view. From the app: `options.accessToken` and `{codeChallenge?}`;
   * from the backend: the API key and `{userId, codeChallenge?}`.
   */
  createHandoffCode(body?: Body<"createHandoffCode">, options?: RequestOptions): Promise<Answer<"createHandoffCode">> {
    return this.call("createHandoffCode", { body }, options);
  }

  /** POST /v1/handoff/exchange: `{code, codeVerifier?, cookie?}` for a session of the web view's own. */
  exchangeHandoffCode(body: Body<"exchangeHandoffCode">, options?: RequestOptions): Promise<Answer<"exchangeHandoffCode">> {
    return this.call("exchangeHandoffCode", { body }, options);
  }

  // ---- the signed-in person's own account (their access token) ----

  /** GET /v1/me/credentials. */
  meListCredentials(accessToken: string, options?: RequestOptions): Promise<Answer<"meListCredentials">> {
    return this.call("meListCredentials", {}, { ...options, accessToken });
  }

  /** PATCH /v1/me/credentials/{credentialId}: `{nickname}` or `{nickname: null}`. */
  meRenameCredential(accessToken: string, credentialId: string, body: Body<"meRenameCredential">, options?: RequestOptions): Promise<Answer<"meRenameCredential">> {
    return this.call("meRenameCredential", { pathParams: { credentialId }, body }, { ...options, accessToken });
  }

  /** DELETE /v1/me/credentials/{credentialId} (409 when it is the last way to sign in). */
  meDeleteCredential(accessToken: string, credentialId: string, options?: RequestOptions): Promise<Answer<"meDeleteCredential">> {
    return this.call("meDeleteCredential", { pathParams: { credentialId } }, { ...options, accessToken });
  }

  /** POST /v1/me/registration/begin: creation options for one more passkey of the signed-in person. */
  meRegistrationBegin(accessToken: string, body?: Body<"meRegistrationBegin">, options?: RequestOptions): Promise<Answer<"meRegistrationBegin">> {
    return this.call("meRegistrationBegin", { body }, { ...options, accessToken });
  }

  /** POST /v1/me/registration/finish. */
  meRegistrationFinish(accessToken: string, body: Body<"meRegistrationFinish">, options?: RequestOptions): Promise<Answer<"meRegistrationFinish">> {
    return this.call("meRegistrationFinish", { body }, { ...options, accessToken });
  }

  /** GET /v1/me/identities. */
  meListIdentities(accessToken: string, options?: RequestOptions): Promise<Answer<"meListIdentities">> {
    return this.call("meListIdentities", {}, { ...options, accessToken });
  }

  /** DELETE /v1/me/identities/{identityId}. */
  meUnlinkIdentity(accessToken: string, identityId: string, options?: RequestOptions): Promise<Answer<"meUnlinkIdentity">> {
    return this.call("meUnlinkIdentity", { pathParams: { identityId } }, { ...options, accessToken });
  }

  // ---- App Attest ----

  /** POST /v1/appattest/challenge: a single-use challenge. */
  appAttestChallenge(options?: RequestOptions): Promise<Answer<"appAttestChallenge">> {
    return this.call("appAttestChallenge", { body: {} }, options);
  }

  /** POST /v1/appattest/attestations: verifies and stores an App Attest key. */
  appAttestAttestation(body: Body<"appAttestAttestation">, options?: RequestOptions): Promise<Answer<"appAttestAttestation">> {
    return this.call("appAttestAttestation", { body }, options);
  }

  /** POST /v1/appattest/assertions: verifies an assertion of a stored key. */
  appAttestAssertion(body: Body<"appAttestAssertion">, options?: RequestOptions): Promise<Answer<"appAttestAssertion">> {
    return this.call("appAttestAssertion", { body }, options);
  }

  // ---- App Store ----

  /** POST /v1/appstore/transactions: keeps a verified StoreKit transaction (`{userId, signedTransaction}`). */
  appStorePostTransaction(body: Body<"appStorePostTransaction">, options?: RequestOptions): Promise<Answer<"appStorePostTransaction">> {
    return this.call("appStorePostTransaction", { body }, options);
  }

  /** POST /v1/appstore/renewals: keeps verified renewal information (`{signedRenewalInfo}`). */
  appStorePostRenewalInfo(body: Body<"appStorePostRenewalInfo">, options?: RequestOptions): Promise<Answer<"appStorePostRenewalInfo">> {
    return this.call("appStorePostRenewalInfo", { body }, options);
  }

  /** POST /v1/appstore/notifications: an App Store Server Notification V2 (`{signedPayload}`). */
  appStoreNotification(body: Body<"appStoreNotification">, options?: RequestOptions): Promise<Answer<"appStoreNotification">> {
    return this.call("appStoreNotification", { body }, options);
  }

  /** GET /v1/users/{userId}/entitlements: what the user's purchases grant now, and their `appAccountToken`. */
  appStoreEntitlements(userId: string, options?: RequestOptions): Promise<Answer<"appStoreEntitlements">> {
    return this.call("appStoreEntitlements", { pathParams: { userId } }, options);
  }

  // ---- association documents ----

  /** GET /.well-known/apple-app-site-association. */
  getAppleAppSiteAssociation(options?: RequestOptions): Promise<Answer<"getAppleAppSiteAssociation">> {
    return this.call("getAppleAppSiteAssociation", {}, options);
  }

  /** GET /.well-known/assetlinks.json. */
  getAssetLinks(options?: RequestOptions): Promise<Answer<"getAssetLinks">> {
    return this.call("getAssetLinks", {}, options);
  }

  /** GET /.well-known/webauthn: the related origins. */
  getRelatedOrigins(options?: RequestOptions): Promise<Answer<"getRelatedOrigins">> {
    return this.call("getRelatedOrigins", {}, options);
  }

  // ---- any operation ----

  /** Operation K by its operationId: resolves to the answer's body. */
  async call<K extends OperationId>(operationId: K, input: OperationInput<K>, options?: RequestOptions): Promise<Answer<K>> {
    return (await this.request(operationId, input, options)).body;
  }

  /** Operation K by its operationId: resolves to the answer's status, headers and body. */
  async request<K extends OperationId>(operationId: K, input: OperationInput<K>, options: RequestOptions = {}): Promise<PasskeydResponse<K>> {
    const spec: OperationSpec | undefined = operations[operationId];
    if (!spec) throw new TypeError(`PasskeydClient: no operation ${String(operationId)}`);
    const { pathParams, query, body } = input as { pathParams?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };

    const headers: Record<string, string> = { Accept: spec.response === "text" ? "text/plain" : "application/json", ...this.headers };
    const bearer = authorization(spec, { apiKey: this.apiKey, adminKey: this.adminKey, accessToken: options.accessToken });
    if (bearer) headers.Authorization = bearer;
    const init: RequestInit = { method: spec.method, headers };
    if (this.credentials) init.credentials = this.credentials;
    if (options.signal) init.signal = options.signal;
    if (body !== undefined && spec.body !== "none") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    Object.assign(headers, options.headers ?? {});

    const response = await this.fetchFunction(requestUrl(this.baseUrl, spec, pathParams, query), init);
    if (!response.ok) throw await PasskeydError.fromResponse(response, operationId);
    return { status: response.status, headers: response.headers, body: (await readAnswer(response, spec, operationId)) as Answer<K> };
  }
}

/** The request URL: baseUrl, the path with its parameters filled in (percent-encoded), the query. */
function requestUrl(baseUrl: string, spec: OperationSpec, pathParams: Record<string, string> | undefined, query: Record<string, unknown> | undefined): string {
  const path = spec.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams?.[name];
    if (typeof value !== "string" || value === "") throw new TypeError(`PasskeydClient: ${spec.path} needs ${name}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const name of spec.queryParams) {
    const value = query?.[name];
    if (value !== undefined && value !== null) search.append(name, String(value));
  }
  const text = search.toString();
  return baseUrl + path + (text ? `?${text}` : "");
}

/** The Bearer token for the first of the operation's security alternatives these credentials meet. */
function authorization(spec: OperationSpec, credentials: { apiKey?: string; adminKey?: string; accessToken?: string }): string | undefined {
  for (const scheme of spec.security) {
    if (scheme === null) return undefined;
    const token = credentials[scheme];
    if (token) return `Bearer ${token}`;
  }
  // None: sent without credentials, and passkeyd answers 401 unauthorized.
  return undefined;
}

/** The body of a 2xx answer: undefined (204), text, or parsed JSON. */
async function readAnswer(response: Response, spec: OperationSpec, operationId: string): Promise<unknown> {
  if (spec.response === "none" || response.status === 204) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const text = await response.text();
  if (spec.response === "text") return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new PasskeydError({
      status: response.status,
      code: "invalid_response",
      message: `${operationId}: the answer is not JSON`,
      body: text,
      operationId,
    });
  }
}
