/**
 * An error answer of passkeyd: `{"error":{"code","message"}}` with the HTTP status, as documented per operation in
 * openapi.json. `code` is passkeyd's stable snake_case code; two codes come from the client itself: `http_<status>`
 * for an error answer without passkeyd's JSON body (a proxy's page, say) and `invalid_response` for a success answer
 * whose body is not the JSON the operation declares.
 */
export class PasskeydError extends Error {
    constructor(init) {
        super(init.message);
        this.name = "PasskeydError";
        this.status = init.status;
        this.code = init.code;
        this.retryAfter = init.retryAfter;
        this.signal = init.signal;
        this.body = init.body;
        this.operationId = init.operationId;
    }
    /** The error of a non-2xx answer; reads its body. */
    static async fromResponse(response, operationId) {
        const text = await response.text().catch(() => "");
        let json = undefined;
        try {
            json = text ? JSON.parse(text) : undefined;
        }
        catch {
            json = undefined;
        }
        const error = isObject(json) && isObject(json.error) ? json.error : undefined;
        const code = typeof error?.code === "string" ? error.code : `http_${response.status}`;
        const message = typeof error?.message === "string" ? error.message : text.slice(0, 500) || response.statusText || `HTTP ${response.status}`;
        const signal = isObject(json) ? unknownCredentialSignal(json.signal) : undefined;
        return new PasskeydError({
            status: response.status,
            code,
            message,
            retryAfter: parseRetryAfter(response.headers.get("retry-after")),
            signal,
            body: json ?? text,
            operationId,
        });
    }
}
/**
 * Seconds from a `Retry-After` value: delay-seconds, or an HTTP date (seconds from `now` until then, at least 0).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value, now = Date.now()) {
    if (value == null)
        return undefined;
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed))
        return Number(trimmed);
    const date = Date.parse(trimmed);
    if (Number.isNaN(date))
        return undefined;
    return Math.max(0, Math.ceil((date - now) / 1000));
}
function isObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
function unknownCredentialSignal(value) {
    if (!isObject(value) || typeof value.rpId !== "string" || typeof value.credentialId !== "string")
        return undefined;
    return { rpId: value.rpId, credentialId: value.credentialId };
}
