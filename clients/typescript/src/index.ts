// passkeyd's TypeScript client: every operation of its HTTP API (openapi.json), typed from the document.
// Node 18 or later and browsers; no dependencies (the platform's fetch). The browser helper is "./browser".
export { PasskeydClient } from "./client.js";
export type { Answer, Body, OperationInput, PasskeydClientOptions, PasskeydResponse, PathParams, Query, RequestOptions } from "./client.js";
export { PasskeydError, parseRetryAfter } from "./errors.js";
export type { PasskeydErrorInit, UnknownCredentialSignal } from "./errors.js";
// The document's types (User, Credential, Session, …, Operations, OperationId, ErrorCode) and the operations table.
export * from "./generated/openapi.js";
