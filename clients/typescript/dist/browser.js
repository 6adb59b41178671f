// passkeyd's browser helper: from passkeyd's begin answers to navigator.credentials and back, and the Signal API
// calls from passkeyd's `signal` data. One module with no imports at run time (passkeyd serves it to its demo page
// as /demo/passkeyd-browser.js).
//
// Options go through PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON and credentials
// through credential.toJSON() where the browser has them (checked at each call), through the base64url fallback
// below where it does not (or with { fallback: true }). The page sends the JSON this returns to its backend, which
// hands it to passkeyd's finish (the TypeScript client's registrationFinish / authenticationFinish).
function statics() {
    const value = globalThis.PublicKeyCredential;
    return typeof value === "function" ? value : undefined;
}
// ---- base64url ----
/** base64url (RFC 4648 §5) without padding, as passkeyd's JSON carries binary values. */
export const base64url = {
    encode(data) {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        let binary = "";
        for (let i = 0; i < bytes.length; i++)
            binary += String.fromCharCode(bytes[i]);
        return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    },
    decode(text) {
        const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
        const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++)
            bytes[i] = binary.charCodeAt(i);
        return bytes.buffer;
    },
};
/** Which native JSON helpers this browser has (each is used where present). */
export function nativeJSONSupport() {
    const PKC = statics();
    return {
        parseCreationOptionsFromJSON: typeof PKC?.parseCreationOptionsFromJSON === "function",
        parseRequestOptionsFromJSON: typeof PKC?.parseRequestOptionsFromJSON === "function",
        toJSON: typeof PKC?.prototype?.toJSON === "function",
    };
}
// ---- options: JSON → navigator.credentials ----
/** Creation options for navigator.credentials.create from passkeyd's `publicKey` JSON. */
export function creationOptionsFromJSON(json, options = {}) {
    const PKC = statics();
    if (!options.fallback && typeof PKC?.parseCreationOptionsFromJSON === "function")
        return PKC.parseCreationOptionsFromJSON(json);
    const { extensions, ...rest } = json;
    const result = {
        ...rest,
        challenge: base64url.decode(json.challenge),
        user: { ...json.user, id: base64url.decode(json.user.id) },
        excludeCredentials: (json.excludeCredentials ?? []).map(descriptor),
    };
    if (extensions)
        result.extensions = extensionInputs(extensions);
    return result;
}
/** Request options for navigator.credentials.get from passkeyd's `publicKey` JSON. */
export function requestOptionsFromJSON(json, options = {}) {
    const PKC = statics();
    if (!options.fallback && typeof PKC?.parseRequestOptionsFromJSON === "function")
        return PKC.parseRequestOptionsFromJSON(json);
    const { extensions, ...rest } = json;
    const result = {
        ...rest,
        challenge: base64url.decode(json.challenge),
        allowCredentials: (json.allowCredentials ?? []).map(descriptor),
    };
    if (extensions)
        result.extensions = extensionInputs(extensions);
    return result;
}
function descriptor(json) {
    return { ...json, id: base64url.decode(json.id) };
}
/** The binary extension inputs passkeyd passes through, decoded: prf (eval, evalByCredential) and largeBlob.write. */
function extensionInputs(json) {
    const result = { ...json };
    const prf = json.prf;
    if (prf && typeof prf === "object") {
        const decoded = { ...prf };
        if (prf.eval)
            decoded.eval = prfValues(prf.eval);
        if (prf.evalByCredential) {
            decoded.evalByCredential = Object.fromEntries(Object.entries(prf.evalByCredential).map(([id, values]) => [id, prfValues(values)]));
        }
        result.prf = decoded;
    }
    const largeBlob = json.largeBlob;
    if (largeBlob && typeof largeBlob.write === "string")
        result.largeBlob = { ...largeBlob, write: base64url.decode(largeBlob.write) };
    return result;
}
function prfValues(values) {
    const result = { first: base64url.decode(values.first) };
    if (values.second !== undefined)
        result.second = base64url.decode(values.second);
    return result;
}
export function credentialToJSON(credential, options = {}) {
    const c = credential;
    if (!options.fallback && typeof c.toJSON === "function") {
        return c.toJSON();
    }
    const r = c.response;
    const common = {
        id: c.id,
        rawId: base64url.encode(c.rawId),
        type: "public-key",
        clientExtensionResults: encodeBinary(c.getClientExtensionResults()),
        ...(c.authenticatorAttachment ? { authenticatorAttachment: c.authenticatorAttachment } : {}),
    };
    if (r.attestationObject) {
        const response = {
            clientDataJSON: base64url.encode(r.clientDataJSON),
            attestationObject: base64url.encode(r.attestationObject),
            transports: typeof r.getTransports === "function" ? r.getTransports() : [],
        };
        if (typeof r.getAuthenticatorData === "function")
            response.authenticatorData = base64url.encode(r.getAuthenticatorData());
        if (typeof r.getPublicKeyAlgorithm === "function")
            response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
        const publicKey = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
        if (publicKey)
            response.publicKey = base64url.encode(publicKey);
        return { ...common, response };
    }
    if (!r.authenticatorData || !r.signature)
        throw new TypeError("credentialToJSON: neither an attestation nor an assertion response");
    const response = {
        clientDataJSON: base64url.encode(r.clientDataJSON),
        authenticatorData: base64url.encode(r.authenticatorData),
        signature: base64url.encode(r.signature),
    };
    if (r.userHandle)
        response.userHandle = base64url.encode(r.userHandle);
    return { ...common, response };
}
/** Client extension results with their binary values (prf results, largeBlob.blob) as base64url, as toJSON() has them. */
function encodeBinary(value) {
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value))
        return base64url.encode(value);
    if (Array.isArray(value))
        return value.map(encodeBinary);
    if (value && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeBinary(v)]));
    }
    return value;
}
// ---- the ceremonies ----
/**
 * Creates a passkey with passkeyd's registration begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>, nickname?}`). An upgrade's answer (`mediation: "conditional"`) makes it a conditional create:
 * the passkey provider creates the passkey without a prompt, or the promise rejects (NotAllowedError).
 */
export async function createPasskey(begin, options = {}) {
    const request = { publicKey: creationOptionsFromJSON(begin.publicKey, options) };
    const mediation = options.mediation ?? begin.mediation;
    if (mediation)
        request.mediation = mediation;
    if (options.signal)
        request.signal = options.signal;
    const credential = await navigator.credentials.create(request);
    if (!credential)
        throw new DOMException("navigator.credentials.create returned no credential", "NotAllowedError");
    return credentialToJSON(credential, options);
}
/**
 * Signs in with passkeyd's authentication begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>}`). `mediation: "conditional"` is conditional UI: the request waits for the person to pick a
 * passkey in the autofill of an input with `autocomplete="username webauthn"` (abort it with `signal` before a
 * modal sign-in).
 */
export async function getPasskey(begin, options = {}) {
    const request = { publicKey: requestOptionsFromJSON(begin.publicKey, options) };
    if (options.mediation)
        request.mediation = options.mediation;
    if (options.signal)
        request.signal = options.signal;
    const credential = await navigator.credentials.get(request);
    if (!credential)
        throw new DOMException("navigator.credentials.get returned no credential", "NotAllowedError");
    return credentialToJSON(credential, options);
}
/** Whether the browser offers conditional UI (passkeys in autofill). */
export async function isConditionalMediationAvailable() {
    const PKC = statics();
    if (typeof PKC?.isConditionalMediationAvailable !== "function")
        return false;
    return PKC.isConditionalMediationAvailable().catch(() => false);
}
/** Whether the browser can create a passkey without a prompt (conditional create: getClientCapabilities). */
export async function isConditionalCreateAvailable() {
    const PKC = statics();
    if (typeof PKC?.getClientCapabilities !== "function")
        return false;
    const capabilities = await PKC.getClientCapabilities().catch(() => ({}));
    return capabilities.conditionalCreate === true;
}
/**
 * After a sign-in (passkeyd's `signal` in the authentication finish answer, or `GET /v1/users/{id}/signals`): the
 * passkey provider drops this user's passkeys that passkeyd no longer accepts (signalAllAcceptedCredentials) and
 * shows the current names (signalCurrentUserDetails).
 */
export async function signalAcceptedCredentials(signal) {
    const calls = [];
    if (!signal)
        return calls;
    const PKC = statics();
    const { rpId, userId, allAcceptedCredentialIds, name, displayName } = signal;
    if (typeof PKC?.signalAllAcceptedCredentials === "function") {
        calls.push("signalAllAcceptedCredentials");
        await PKC.signalAllAcceptedCredentials({ rpId, userId, allAcceptedCredentialIds }).catch(() => { });
    }
    if (typeof PKC?.signalCurrentUserDetails === "function") {
        calls.push("signalCurrentUserDetails");
        await PKC.signalCurrentUserDetails({ rpId, userId, name, displayName }).catch(() => { });
    }
    return calls;
}
/** A passkey passkeyd does not know (its `signal` on `credential_unknown`): the provider may hide it. */
export async function signalUnknownCredential(signal) {
    const PKC = statics();
    if (!signal || typeof PKC?.signalUnknownCredential !== "function")
        return [];
    const { rpId, credentialId } = signal;
    await PKC.signalUnknownCredential({ rpId, credentialId }).catch(() => { });
    return ["signalUnknownCredential"];
}
/**
 * From a failed sign-in: when the error is passkeyd's `credential_unknown` with its `signal` (a PasskeydError of the
 * TypeScript client, or anything with `code` and `signal`), signalUnknownCredential; otherwise nothing.
 */
export async function signalFromError(error) {
    const e = error;
    if (!e || typeof e !== "object" || e.code !== "credential_unknown")
        return [];
    const signal = e.signal;
    if (!signal || typeof signal.rpId !== "string" || typeof signal.credentialId !== "string")
        return [];
    return signalUnknownCredential(signal);
}
