export { PasskeydClient } from "./client.js";
export type { Answer, Body, OperationInput, PasskeydClientOptions, PasskeydResponse, PathParams, Query, RequestOptions } from "./client.js";
export { PasskeydError, parseRetryAfter } from "./errors.js";
export type { PasskeydErrorInit, UnknownCredentialSignal } from "./errors.js";
export * from "./generated/openapi.js";
