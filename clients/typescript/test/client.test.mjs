// The client's handling of answers, with a fake fetch: typed errors (status, code, message, retryAfter, signal),
// 204 and text answers, URLs, headers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PasskeydClient, PasskeydError, parseRetryAfter } from "../dist/index.js";

function clientAnswering(status, body, headers = {}) {
  const sent = [];
  const fetch = async (url, init) => {
    sent.push({ url, init });
    const text = body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body);
    return new Response(text, { status, headers: { "Content-Type": "application/json", ...headers } });
  };
  return { client: new PasskeydClient({ baseUrl: "http://passkeyd.test/", apiKey: "k", fetch }), sent };
}

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

test("an error answer is a PasskeydError with passkeyd's status, code and message", async () => {
  const { client } = clientAnswering(409, { error: { code: "user_exists", message: "The name is taken." } });
  const error = await rejection(client.registrationBegin({ user: { name: "ada" } }));
  assert.ok(error instanceof PasskeydError && error instanceof Error);
  assert.equal(error.name, "PasskeydError");
  assert.equal(error.status, 409);
  assert.equal(error.code, "user_exists");
  assert.equal(error.message, "The name is taken.");
  assert.equal(error.retryAfter, undefined);
  assert.equal(error.signal, undefined);
  assert.equal(error.operationId, "registrationBegin");
  assert.deepEqual(error.body, { error: { code: "user_exists", message: "The name is taken." } });
});

test("429 carries Retry-After in seconds", async () => {
  const { client } = clientAnswering(429, { error: { code: "rate_limited", message: "Slow down." } }, { "Retry-After": "7" });
  const error = await rejection(client.authenticationBegin());
  assert.equal(error.code, "rate_limited");
  assert.equal(error.retryAfter, 7);
});

test("Retry-After as an HTTP date, and unreadable values", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now), 30);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
  assert.equal(parseRetryAfter(" 12 ", now), 12);
});

test("credential_unknown carries signalUnknownCredential's arguments as signal", async () => {
  const body = {
    error: { code: "credential_unknown", message: "No such credential." },
    signal: { rpId: "example.com", credentialId: "Y3JlZA" },
  };
  const { client } = clientAnswering(404, body);
  const error = await rejection(client.authenticationFinish({ credential: {} }));
  assert.equal(error.code, "credential_unknown");
  assert.deepEqual(error.signal, { rpId: "example.com", credentialId: "Y3JlZA" });
});

test("an error answer that is not passkeyd's JSON gets code http_<status>", async () => {
  const { client } = clientAnswering(502, "<html>Bad gateway</html>", { "Content-Type": "text/html" });
  const error = await rejection(client.getHealth());
  assert.equal(error.status, 502);
  assert.equal(error.code, "http_502");
  assert.equal(error.message, "<html>Bad gateway</html>");
});

test("a success answer that is not JSON is invalid_response", async () => {
  const { client } = clientAnswering(200, "not json");
  const error = await rejection(client.getHealth());
  assert.equal(error.code, "invalid_response");
  assert.equal(error.status, 200);
});

test("204 resolves to undefined; text answers to a string; JSON to the parsed body", async () => {
  assert.equal(await clientAnswering(204).client.adminDeleteUser("AAAA"), undefined);
  const metrics = "# TYPE passkeyd_up gauge\npasskeyd_up 1\n";
  assert.equal(await clientAnswering(200, metrics, { "Content-Type": "text/plain; version=0.0.4" }).client.getMetrics(), metrics);
  assert.deepEqual(await clientAnswering(200, { status: "ok" }).client.getHealth(), { status: "ok" });
});

test("request() gives the status and headers too", async () => {
  const { client } = clientAnswering(201, { user: {}, identity: {}, created: true, linked: false }, { "X-Request-Id": "r1" });
  const answer = await client.request("idTokenFinish", { body: { session: "s", provider: "apple", idToken: "t" } });
  assert.equal(answer.status, 201);
  assert.equal(answer.headers.get("x-request-id"), "r1");
  assert.equal(answer.body.created, true);
});

test("URLs: the base URL's trailing slash, percent-encoded path parameters, the query without empty members", async () => {
  const { client, sent } = clientAnswering(200, { users: [], next: null });
  await client.adminListUsers({ name: "a b&c", limit: 5, after: undefined });
  await client.adminGetCredential("a/b?c");
  assert.equal(sent[0].url, "http://passkeyd.test/v1/admin/users?name=a+b%26c&limit=5");
  assert.equal(sent[1].url, "http://passkeyd.test/v1/admin/credentials/a%2Fb%3Fc");
  await assert.rejects(client.adminGetUser(""), TypeError);
});

test("headers: JSON in and out, the client's and the call's own, the abort signal", async () => {
  const sent = [];
  const fetch = async (url, init) => {
    sent.push(init);
    return new Response("{}", { status: 200 });
  };
  const client = new PasskeydClient({ baseUrl: "http://passkeyd.test", apiKey: "k", fetch, headers: { "X-App": "1" } });
  const controller = new AbortController();
  await client.authenticationBegin({}, { headers: { "X-Call": "2" }, signal: controller.signal });
  assert.equal(sent[0].headers["Content-Type"], "application/json");
  assert.equal(sent[0].headers.Accept, "application/json");
  assert.equal(sent[0].headers["X-App"], "1");
  assert.equal(sent[0].headers["X-Call"], "2");
  assert.equal(sent[0].headers.Authorization, "Bearer k");
  assert.equal(sent[0].signal, controller.signal);
  assert.equal(sent[0].body, "{}");
  // No body where none is passed (passkeyd takes an empty authentication begin).
  await client.authenticationBegin();
  assert.equal(sent[1].body, undefined);
  assert.equal(sent[1].headers["Content-Type"], undefined);
});

test("the constructor wants a base URL", () => {
  assert.throws(() => new PasskeydClient({}), TypeError);
  assert.throws(() => new PasskeydClient({ baseUrl: "" }), TypeError);
});

test("a network failure rejects with fetch's own error", async () => {
  const client = new PasskeydClient({ baseUrl: "http://passkeyd.test", fetch: async () => { throw new TypeError("fetch failed"); } });
  await assert.rejects(client.getHealth(), { name: "TypeError", message: "fetch failed" });
});
