// passkeyd's browser helper: from passkeyd's begin answers to navigator.credentials and back, and the Signal API
// calls from passkeyd's `signal` data. One module with no imports at run time (passkeyd serves it to its demo page
// as /demo/passkeyd-browser.js).
//
// Options go through PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON and credentials
// through credential.toJSON() where the browser has them (checked at each call), through the base64url fallback
// below where it does not (or with { fallback: true }). The page sends the JSON this returns to its backend, which
// hands it to passkeyd's finish (the TypeScript client's registrationFinish / authenticationFinish).

import type {
  AcceptedCredentialsSignal,
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "./generated/openapi.js";

export type {
  AcceptedCredentialsSignal,
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
};

/** signalUnknownCredential's arguments (passkeyd's `signal` on a `credential_unknown` error). */
export interface UnknownCredentialSignal {
  rpId: string;
  credentialId: string;
}

/** passkeyd's answer to a registration begin (`/v1/registration/begin`, `/v1/me/registration/begin`). */
export interface RegistrationBegin {
  publicKey: PublicKeyCredentialCreationOptionsJSON;
  /** `"conditional"` for an automatic upgrade: passed to navigator.credentials.create (conditional create). */
  mediation?: "conditional";
}

/** passkeyd's answer to an authentication begin (`/v1/authentication/begin`). */
export interface AuthenticationBegin {
  publicKey: PublicKeyCredentialRequestOptionsJSON;
}

export interface JSONOptions {
  /** Use the base64url fallback even where the browser has the native JSON helpers. */
  fallback?: boolean;
}

export interface CreateOptions extends JSONOptions {
  /** Mediation for navigator.credentials.create; default: the begin answer's (`"conditional"` for an upgrade). */
  mediation?: Mediation;
  signal?: AbortSignal;
}

export interface GetOptions extends JSONOptions {
  /** `"conditional"` for conditional UI (autofill: the input needs `autocomplete="username webauthn"`). */
  mediation?: Mediation;
  signal?: AbortSignal;
}

export type Mediation = "conditional" | "optional" | "required" | "silent";

// ---- what this TypeScript's DOM library does not declare yet (WebAuthn Level 3, the Signal API) ----

interface PublicKeyCredentialStatics {
  parseCreationOptionsFromJSON?: (json: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions;
  isConditionalMediationAvailable?: () => Promise<boolean>;
  getClientCapabilities?: () => Promise<Record<string, boolean>>;
  signalUnknownCredential?: (options: { rpId: string; credentialId: string }) => Promise<void>;
  signalAllAcceptedCredentials?: (options: { rpId: string; userId: string; allAcceptedCredentialIds: string[] }) => Promise<void>;
  signalCurrentUserDetails?: (options: { rpId: string; userId: string; name: string; displayName: string }) => Promise<void>;
  prototype?: { toJSON?: unknown };
}

interface CredentialLike {
  id: string;
  rawId: ArrayBuffer;
  type: string;
  authenticatorAttachment?: string | null;
  response: ResponseLike;
  getClientExtensionResults(): Record<string, unknown>;
  toJSON?: () => unknown;
}

interface ResponseLike {
  clientDataJSON: ArrayBuffer;
  attestationObject?: ArrayBuffer;
  authenticatorData?: ArrayBuffer;
  signature?: ArrayBuffer;
  userHandle?: ArrayBuffer | null;
  getTransports?: () => string[];
  getAuthenticatorData?: () => ArrayBuffer;
  getPublicKey?: () => ArrayBuffer | null;
  getPublicKeyAlgorithm?: () => number;
}

function statics(): PublicKeyCredentialStatics | undefined {
  const value = (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
  return typeof value === "function" ? (value as unknown as PublicKeyCredentialStatics) : undefined;
}

// ---- base64url ----

/** base64url (RFC 4648 §5) without padding, as passkeyd's JSON carries binary values. */
export const base64url = {
  encode(data: ArrayBuffer | ArrayBufferView): string {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    let binary = "";
    for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  decode(text: string): ArrayBuffer {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  },
};

/** Which native JSON helpers this browser has (each is used where present). */
export function nativeJSONSupport(): { parseCreationOptionsFromJSON: boolean; parseRequestOptionsFromJSON: boolean; toJSON: boolean } {
  const PKC = statics();
  return {
    parseCreationOptionsFromJSON: typeof PKC?.parseCreationOptionsFromJSON === "function",
    parseRequestOptionsFromJSON: typeof PKC?.parseRequestOptionsFromJSON === "function",
    toJSON: typeof PKC?.prototype?.toJSON === "function",
  };
}

// ---- options: JSON → navigator.credentials ----

/** Creation options for navigator.credentials.create from passkeyd's `publicKey` JSON. */
export function creationOptionsFromJSON(json: PublicKeyCredentialCreationOptionsJSON, options: JSONOptions = {}): PublicKeyCredentialCreationOptions {
  const PKC = statics();
  if (!options.fallback && typeof PKC?.parseCreationOptionsFromJSON === "function") return PKC.parseCreationOptionsFromJSON(json);
  const { extensions, ...rest } = json;
  const result: Record<string, unknown> = {
    ...rest,
    challenge: base64url.decode(json.challenge),
    user: { ...json.user, id: base64url.decode(json.user.id) },
    excludeCredentials: (json.excludeCredentials ?? []).map(descriptor),
  };
  if (extensions) result.extensions = extensionInputs(extensions);
  return result as unknown as PublicKeyCredentialCreationOptions;
}

/** Request options for navigator.credentials.get from passkeyd's `publicKey` JSON. */
export function requestOptionsFromJSON(json: PublicKeyCredentialRequestOptionsJSON, options: JSONOptions = {}): PublicKeyCredentialRequestOptions {
  const PKC = statics();
  if (!options.fallback && typeof PKC?.parseRequestOptionsFromJSON === "function") return PKC.parseRequestOptionsFromJSON(json);
  const { extensions, ...rest } = json;
  const result: Record<string, unknown> = {
    ...rest,
    challenge: base64url.decode(json.challenge),
    allowCredentials: (json.allowCredentials ?? []).map(descriptor),
  };
  if (extensions) result.extensions = extensionInputs(extensions);
  return result as unknown as PublicKeyCredentialRequestOptions;
}

function descriptor(json: { type: string; id: string; transports?: string[] }): Record<string, unknown> {
  return { ...json, id: base64url.decode(json.id) };
}

/** The binary extension inputs passkeyd passes through, decoded: prf (eval, evalByCredential) and largeBlob.write. */
function extensionInputs(json: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...json };
  const prf = json.prf as { eval?: PRFJSON; evalByCredential?: Record<string, PRFJSON> } | undefined;
  if (prf && typeof prf === "object") {
    const decoded: Record<string, unknown> = { ...prf };
    if (prf.eval) decoded.eval = prfValues(prf.eval);
    if (prf.evalByCredential) {
      decoded.evalByCredential = Object.fromEntries(Object.entries(prf.evalByCredential).map(([id, values]) => [id, prfValues(values)]));
    }
    result.prf = decoded;
  }
  const largeBlob = json.largeBlob as { write?: string } | undefined;
  if (largeBlob && typeof largeBlob.write === "string") result.largeBlob = { ...largeBlob, write: base64url.decode(largeBlob.write) };
  return result;
}

interface PRFJSON {
  first: string;
  second?: string;
}

function prfValues(values: PRFJSON): Record<string, ArrayBuffer> {
  const result: Record<string, ArrayBuffer> = { first: base64url.decode(values.first) };
  if (values.second !== undefined) result.second = base64url.decode(values.second);
  return result;
}

// ---- credentials: navigator.credentials → JSON ----

/** The JSON passkeyd's finish takes, from a credential navigator.credentials.create or .get returned. */
export function credentialToJSON(credential: PublicKeyCredential, options?: JSONOptions): RegistrationResponseJSON | AuthenticationResponseJSON;
export function credentialToJSON(credential: unknown, options: JSONOptions = {}): RegistrationResponseJSON | AuthenticationResponseJSON {
  const c = credential as CredentialLike;
  if (!options.fallback && typeof c.toJSON === "function") {
    return c.toJSON() as RegistrationResponseJSON | AuthenticationResponseJSON;
  }
  const r = c.response;
  const common = {
    id: c.id,
    rawId: base64url.encode(c.rawId),
    type: "public-key" as const,
    clientExtensionResults: encodeBinary(c.getClientExtensionResults()) as Record<string, unknown>,
    ...(c.authenticatorAttachment ? { authenticatorAttachment: c.authenticatorAttachment } : {}),
  };
  if (r.attestationObject) {
    const response: RegistrationResponseJSON["response"] = {
      clientDataJSON: base64url.encode(r.clientDataJSON),
      attestationObject: base64url.encode(r.attestationObject),
      transports: typeof r.getTransports === "function" ? r.getTransports() : [],
    };
    if (typeof r.getAuthenticatorData === "function") response.authenticatorData = base64url.encode(r.getAuthenticatorData());
    if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    const publicKey = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
    if (publicKey) response.publicKey = base64url.encode(publicKey);
    return { ...common, response };
  }
  if (!r.authenticatorData || !r.signature) throw new TypeError("credentialToJSON: neither an attestation nor an assertion response");
  const response: AuthenticationResponseJSON["response"] = {
    clientDataJSON: base64url.encode(r.clientDataJSON),
    authenticatorData: base64url.encode(r.authenticatorData),
    signature: base64url.encode(r.signature),
  };
  if (r.userHandle) response.userHandle = base64url.encode(r.userHandle);
  return { ...common, response };
}

/** Client extension results with their binary values (prf results, largeBlob.blob) as base64url, as toJSON() has them. */
function encodeBinary(value: unknown): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return base64url.encode(value as ArrayBuffer | ArrayBufferView);
  if (Array.isArray(value)) return value.map(encodeBinary);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, encodeBinary(v)]));
  }
  return value;
}

// ---- the ceremonies ----

/**
 * Creates a passkey with passkeyd's registration begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>, nickname?}`). An upgrade's answer (`mediation: "conditional"`) makes it a conditional create:
 * the passkey provider creates the passkey without a prompt, or the promise rejects (NotAllowedError).
 */
export async function createPasskey(begin: RegistrationBegin, options: CreateOptions = {}): Promise<RegistrationResponseJSON> {
  const request: Record<string, unknown> = { publicKey: creationOptionsFromJSON(begin.publicKey, options) };
  const mediation = options.mediation ?? begin.mediation;
  if (mediation) request.mediation = mediation;
  if (options.signal) request.signal = options.signal;
  const credential = await navigator.credentials.create(request as CredentialCreationOptions);
  if (!credential) throw new DOMException("navigator.credentials.create returned no credential", "NotAllowedError");
  return credentialToJSON(credential as PublicKeyCredential, options) as RegistrationResponseJSON;
}

/**
 * Signs in with passkeyd's authentication begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>}`). `mediation: "conditional"` is conditional UI: the request waits for the person to pick a
 * passkey in the autofill of an input with `autocomplete="username webauthn"` (abort it with `signal` before a
 * modal sign-in).
 */
export async function getPasskey(begin: AuthenticationBegin, options: GetOptions = {}): Promise<AuthenticationResponseJSON> {
  const request: Record<string, unknown> = { publicKey: requestOptionsFromJSON(begin.publicKey, options) };
  if (options.mediation) request.mediation = options.mediation;
  if (options.signal) request.signal = options.signal;
  const credential = await navigator.credentials.get(request as CredentialRequestOptions);
  if (!credential) throw new DOMException("navigator.credentials.get returned no credential", "NotAllowedError");
  return credentialToJSON(credential as PublicKeyCredential, options) as AuthenticationResponseJSON;
}

/** Whether the browser offers conditional UI (passkeys in autofill). */
export async function isConditionalMediationAvailable(): Promise<boolean> {
  const PKC = statics();
  if (typeof PKC?.isConditionalMediationAvailable !== "function") return false;
  return PKC.isConditionalMediationAvailable().catch(() => false);
}

/** Whether the browser can create a passkey without a prompt (conditional create: getClientCapabilities). */
export async function isConditionalCreateAvailable(): Promise<boolean> {
  const PKC = statics();
  if (typeof PKC?.getClientCapabilities !== "function") return false;
  const capabilities = await PKC.getClientCapabilities().catch(() => ({} as Record<string, boolean>));
  return capabilities.conditionalCreate === true;
}

// ---- the Signal API (hints: a browser without these functions, or one that refuses them, changes nothing) ----

/** The Signal API functions a call made (those the browser has), in order. */
export type SignalCalls = ("signalUnknownCredential" | "signalAllAcceptedCredentials" | "signalCurrentUserDetails")[];

/**
 * After a sign-in (passkeyd's `signal` in the authentication finish answer, or `GET /v1/users/{id}/signals`): the
 * passkey provider drops this user's passkeys that passkeyd no longer accepts (signalAllAcceptedCredentials) and
 * shows the current names (signalCurrentUserDetails).
 */
export async function signalAcceptedCredentials(signal: AcceptedCredentialsSignal | null | undefined): Promise<SignalCalls> {
  const calls: SignalCalls = [];
  if (!signal) return calls;
  const PKC = statics();
  const { rpId, userId, allAcceptedCredentialIds, name, displayName } = signal;
  if (typeof PKC?.signalAllAcceptedCredentials === "function") {
    calls.push("signalAllAcceptedCredentials");
    await PKC.signalAllAcceptedCredentials({ rpId, userId, allAcceptedCredentialIds }).catch(() => {});
  }
  if (typeof PKC?.signalCurrentUserDetails === "function") {
    calls.push("signalCurrentUserDetails");
    await PKC.signalCurrentUserDetails({ rpId, userId, name, displayName }).catch(() => {});
  }
  return calls;
}

/** A passkey passkeyd does not know (its `signal` on `credential_unknown`): the provider may hide it. */
export async function signalUnknownCredential(signal: UnknownCredentialSignal | null | undefined): Promise<SignalCalls> {
  const PKC = statics();
  if (!signal || typeof PKC?.signalUnknownCredential !== "function") return [];
  const { rpId, credentialId } = signal;
  await PKC.signalUnknownCredential({ rpId, credentialId }).catch(() => {});
  return ["signalUnknownCredential"];
}

/**
 * From a failed sign-in: when the error is passkeyd's `credential_unknown` with its `signal` (a PasskeydError of the
 * TypeScript client, or anything with `code` and `signal`), signalUnknownCredential; otherwise nothing.
 */
export async function signalFromError(error: unknown): Promise<SignalCalls> {
  const e = error as { code?: unknown; signal?: unknown } | null;
  if (!e || typeof e !== "object" || e.code !== "credential_unknown") return [];
  const signal = e.signal as UnknownCredentialSignal | undefined;
  if (!signal || typeof signal.rpId !== "string" || typeof signal.credentialId !== "string") return [];
  return signalUnknownCredential(signal);
}
