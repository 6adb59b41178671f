// The client covers openapi.json exactly: a method for every operationId and no method without one, and each
// method sends its operation (method, path, query, body, credentials) as the document declares it. Reads the
// document itself, not the generated types, and drives the compiled client (dist/) with a recording fetch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PasskeydClient, operations } from "../dist/index.js";

const document = JSON.parse(readFileSync(new URL("../../../Sources/PasskeyHTTP/Resources/openapi.json", import.meta.url), "utf8"));
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const documented = [];
for (const [path, item] of Object.entries(document.paths)) {
  for (const method of METHODS) {
    const operation = item[method];
    if (!operation) continue;
    const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
      p.$ref ? document.components.parameters[p.$ref.split("/").pop()] : p);
    documented.push({ id: operation.operationId, method: method.toUpperCase(), path, operation, parameters });
  }
}
// The client's members that are not operations: the generic entry points.
const GENERIC = new Set(["constructor", "call", "request"]);
const methods = Object.getOwnPropertyNames(PasskeydClient.prototype).filter((name) => !GENERIC.has(name));

test("openapi.json has 57 operations, each with an operationId", () => {
  assert.equal(documented.length, 57);
  for (const { id, method, path } of documented) assert.ok(id, `${method} ${path} has no operationId`);
  assert.equal(new Set(documented.map((o) => o.id)).size, documented.length, "operationIds are unique");
});

test("every operationId has a client method", () => {
  const missing = documented.map((o) => o.id).filter((id) => !methods.includes(id));
  assert.deepEqual(missing, [], `operations without a PasskeydClient method: ${missing.join(", ")}`);
});

test("every client method is an operation of openapi.json", () => {
  const ids = new Set(documented.map((o) => o.id));
  const extra = methods.filter((name) => !ids.has(name));
  assert.deepEqual(extra, [], `PasskeydClient methods without an operation: ${extra.join(", ")}`);
});

test("the generated operations table matches openapi.json", () => {
  assert.deepEqual(Object.keys(operations).sort(), documented.map((o) => o.id).sort());
  for (const { id, method, path } of documented) {
    assert.equal(operations[id].method, method, id);
    assert.equal(operations[id].path, path, id);
  }
});

// The parameter names of a compiled method (tsc keeps them): accessToken, a path parameter, body, query, options.
function parameterNames(fn) {
  const match = /^[\w$]+\s*\(([^)]*)\)/.exec(fn.toString());
  assert.ok(match, `cannot read the parameters of ${fn.name}`);
  return match[1].split(",").map((p) => p.trim().split(/\s*=/)[0]).filter(Boolean);
}

const KEYS = { apiKey: "the-api-key", adminKey: "the-admin-key", accessToken: "the-access-token" };

for (const { id, method, path, operation, parameters } of documented) {
  test(`${id}: sends ${method} ${path} with the credentials its security names`, async () => {
    const sent = [];
    const fetch = async (url, init) => {
      sent.push({ url: new URL(url), init });
      return new Response(null, { status: 204 });
    };
    const client = new PasskeydClient({ baseUrl: "http://passkeyd.test/prefix", apiKey: KEYS.apiKey, adminKey: KEYS.adminKey, fetch });
    const pathNames = parameters.filter((p) => p.in === "path").map((p) => p.name);
    const queryNames = parameters.filter((p) => p.in === "query").map((p) => p.name);
    const probe = { probe: id };
    const query = Object.fromEntries(queryNames.map((name) => [name, `q-${name}`]));
    const args = parameterNames(client[id]).map((name) => {
      if (name === "accessToken") return KEYS.accessToken;
      if (pathNames.includes(name)) return `p/${name}`;
      if (name === "body") return probe;
      if (name === "query") return query;
      if (name === "options") return { accessToken: KEYS.accessToken };
      throw new Error(`${id}: unexpected parameter ${name}`);
    });
    await client[id](...args);
    assert.equal(sent.length, 1);
    const { url, init } = sent[0];
    assert.equal(init.method, method);
    const expectedPath = "/prefix" + path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(`p/${name}`));
    assert.equal(url.pathname, expectedPath);
    for (const name of queryNames) assert.equal(url.searchParams.get(name), `q-${name}`, `${id}: query ${name}`);
    assert.equal([...url.searchParams.keys()].length, queryNames.length);

    // The body: the one passed, as JSON, where the operation has one (appAttestChallenge sends {}).
    if (operation.requestBody) {
      const expected = parameterNames(client[id]).includes("body") ? probe : {};
      assert.deepEqual(JSON.parse(init.body), expected, `${id}: body`);
      assert.equal(init.headers["Content-Type"], "application/json");
    } else {
      assert.equal(init.body, undefined, `${id}: no body`);
    }

    // Credentials: with every kind at hand, the first alternative of the operation's security.
    const security = operation.security ?? document.security ?? [];
    const first = security.length ? Object.keys(security[0])[0] : undefined;
    const expected = first ? `Bearer ${KEYS[first]}` : undefined;
    assert.equal(init.headers.Authorization, expected, `${id}: security ${JSON.stringify(security)}`);
  });
}

test("without its credentials an operation is sent without them (passkeyd answers 401), or with the next alternative", async () => {
  const sent = [];
  const fetch = async (url, init) => {
    sent.push(init.headers.Authorization);
    return new Response("{}", { status: 200 });
  };
  const client = new PasskeydClient({ baseUrl: "http://passkeyd.test", fetch });
  await client.authenticationBegin();              // apiKey or none: none
  await client.adminListUsers();                   // adminKey only: none
  client.apiKey = "k";
  await client.createHandoffCode({ userId: "AAAA" }); // accessToken, apiKey, none: the API key
  await client.refreshSession({ refreshToken: "pkd_rt_x" }); // public: never a key
  assert.deepEqual(sent, [undefined, undefined, "Bearer k", undefined]);
});
