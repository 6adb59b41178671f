import type { ErrorCode } from "./generated/openapi.js";
/**
 * signalUnknownCredential's arguments, which passkeyd adds to a `credential_unknown` answer of an authentication
 * finish: the passkey provider may hide that passkey (`PublicKeyCredential.signalUnknownCredential`).
 */
export interface UnknownCredentialSignal {
    rpId: string;
    credentialId: string;
}
/** What a {@link PasskeydError} is made of. */
export interface PasskeydErrorInit {
    status: number;
    code: string;
    message: string;
    retryAfter?: number;
    signal?: UnknownCredentialSignal;
    body?: unknown;
    operationId?: string;
}
/**
 * An error answer of passkeyd: `{"error":{"code","message"}}` with the HTTP status, as documented per operation in
 * openapi.json. `code` is passkeyd's stable snake_case code; two codes come from the client itself: `http_<status>`
 * for an error answer without passkeyd's JSON body (a proxy's page, say) and `invalid_response` for a success answer
 * whose body is not the JSON the operation declares.
 */
export declare class PasskeydError extends Error {
    /** The HTTP status (400, 401, 404, 409, 410, 413, 422, 429, 503, …). */
    readonly status: number;
    /** passkeyd's stable error code (`user_exists`, `challenge_unknown_or_expired`, `rate_limited`, …). */
    readonly code: ErrorCode | (string & {});
    /** Seconds to wait before trying again, from `Retry-After` (429 `rate_limited`, 503 `ceremony_capacity_reached`). */
    readonly retryAfter: number | undefined;
    /** passkeyd's `signal` data (on `credential_unknown`): the arguments of `signalUnknownCredential`. */
    readonly signal: UnknownCredentialSignal | undefined;
    /** The parsed answer body (the JSON error, or the text when it was not JSON). */
    readonly body: unknown;
    /** The operation that failed. */
    readonly operationId: string | undefined;
    constructor(init: PasskeydErrorInit);
    /** The error of a non-2xx answer; reads its body. */
    static fromResponse(response: Response, operationId?: string): Promise<PasskeydError>;
}
/**
 * Seconds from a `Retry-After` value: delay-seconds, or an HTTP date (seconds from `now` until then, at least 0).
 * Undefined when absent or unreadable.
 */
export declare function parseRetryAfter(value: string | null | undefined, now?: number): number | undefined;
