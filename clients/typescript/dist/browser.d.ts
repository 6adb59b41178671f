import type { AcceptedCredentialsSignal, AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from "./generated/openapi.js";
export type { AcceptedCredentialsSignal, AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON, };
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
export declare type Mediation = "conditional" | "optional" | "required" | "silent";
/** base64url (RFC 4648 §5) without padding, as passkeyd's JSON carries binary values. */
export declare const base64url: {
    encode(data: ArrayBuffer | ArrayBufferView): string;
    decode(text: string): ArrayBuffer;
};
/** Which native JSON helpers this browser has (each is used where present). */
export declare function nativeJSONSupport(): {
    parseCreationOptionsFromJSON: boolean;
    parseRequestOptionsFromJSON: boolean;
    toJSON: boolean;
};
/** Creation options for navigator.credentials.create from passkeyd's `publicKey` JSON. */
export declare function creationOptionsFromJSON(json: PublicKeyCredentialCreationOptionsJSON, options?: JSONOptions): PublicKeyCredentialCreationOptions;
/** Request options for navigator.credentials.get from passkeyd's `publicKey` JSON. */
export declare function requestOptionsFromJSON(json: PublicKeyCredentialRequestOptionsJSON, options?: JSONOptions): PublicKeyCredentialRequestOptions;
/** The JSON passkeyd's finish takes, from a credential navigator.credentials.create or .get returned. */
export declare function credentialToJSON(credential: PublicKeyCredential, options?: JSONOptions): RegistrationResponseJSON | AuthenticationResponseJSON;
/**
 * Creates a passkey with passkeyd's registration begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>, nickname?}`). An upgrade's answer (`mediation: "conditional"`) makes it a conditional create:
 * the passkey provider creates the passkey without a prompt, or the promise rejects (NotAllowedError).
 */
export declare function createPasskey(begin: RegistrationBegin, options?: CreateOptions): Promise<RegistrationResponseJSON>;
/**
 * Signs in with passkeyd's authentication begin answer and resolves to the JSON its finish takes
 * (`{credential: <this>}`). `mediation: "conditional"` is conditional UI: the request waits for the person to pick a
 * passkey in the autofill of an input with `autocomplete="username webauthn"` (abort it with `signal` before a
 * modal sign-in).
 */
export declare function getPasskey(begin: AuthenticationBegin, options?: GetOptions): Promise<AuthenticationResponseJSON>;
/** Whether the browser offers conditional UI (passkeys in autofill). */
export declare function isConditionalMediationAvailable(): Promise<boolean>;
/** Whether the browser can create a passkey without a prompt (conditional create: getClientCapabilities). */
export declare function isConditionalCreateAvailable(): Promise<boolean>;
/** The Signal API functions a call made (those the browser has), in order. */
export declare type SignalCalls = ("signalUnknownCredential" | "signalAllAcceptedCredentials" | "signalCurrentUserDetails")[];
/**
 * After a sign-in (passkeyd's `signal` in the authentication finish answer, or `GET /v1/users/{id}/signals`): the
 * passkey provider drops this user's passkeys that passkeyd no longer accepts (signalAllAcceptedCredentials) and
 * shows the current names (signalCurrentUserDetails).
 */
export declare function signalAcceptedCredentials(signal: AcceptedCredentialsSignal | null | undefined): Promise<SignalCalls>;
/** A passkey passkeyd does not know (its `signal` on `credential_unknown`): the provider may hide it. */
export declare function signalUnknownCredential(signal: UnknownCredentialSignal | null | undefined): Promise<SignalCalls>;
/**
 * From a failed sign-in: when the error is passkeyd's `credential_unknown` with its `signal` (a PasskeydError of the
 * TypeScript client, or anything with `code` and `signal`), signalUnknownCredential; otherwise nothing.
 */
export declare function signalFromError(error: unknown): Promise<SignalCalls>;
