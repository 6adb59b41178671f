// The browser helper (dist/browser.js) in Node, with a stand-in PublicKeyCredential and navigator.credentials: the
// base64url fallback both ways, the native JSON helpers where present, conditional mediation, the Signal API.
// (scripts/test/e2e.sh runs the same module in Chromium through passkeyd's demo page, native and fallback.)
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import {
  base64url,
  createPasskey,
  creationOptionsFromJSON,
  credentialToJSON,
  getPasskey,
  isConditionalCreateAvailable,
  isConditionalMediationAvailable,
  nativeJSONSupport,
  requestOptionsFromJSON,
  signalAcceptedCredentials,
  signalFromError,
  signalUnknownCredential,
} from "../dist/browser.js";

const bytes = (...values) => new Uint8Array(values).buffer;
const same = (buffer, ...values) => assert.deepEqual([...new Uint8Array(buffer)], values);

let calls;
let created;
// A browser without the native JSON helpers and the Signal API (each test adds what it needs).
function install({ native = false, signals = false, conditional = false, capabilities = {} } = {}) {
  calls = [];
  class PublicKeyCredential {}
  if (native) {
    PublicKeyCredential.parseCreationOptionsFromJSON = (json) => ({ native: "creation", json });
    PublicKeyCredential.parseRequestOptionsFromJSON = (json) => ({ native: "request", json });
    PublicKeyCredential.prototype.toJSON = function () { return { native: "toJSON", id: this.id }; };
  }
  if (signals) {
    for (const name of ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"]) {
      PublicKeyCredential[name] = async (options) => { calls.push([name, options]); };
    }
  }
  PublicKeyCredential.isConditionalMediationAvailable = async () => conditional;
  PublicKeyCredential.getClientCapabilities = async () => capabilities;
  globalThis.PublicKeyCredential = PublicKeyCredential;
  const credentials = {
    async create(options) { calls.push(["create", options]); return created(PublicKeyCredential, "attestation"); },
    async get(options) { calls.push(["get", options]); return created(PublicKeyCredential, "assertion"); },
  };
  Object.defineProperty(globalThis, "navigator", { value: { credentials }, configurable: true, writable: true });
}

created = (PublicKeyCredential, kind) => {
  const credential = Object.create(PublicKeyCredential.prototype);
  Object.assign(credential, {
    id: "AQID",
    rawId: bytes(1, 2, 3),
    type: "public-key",
    authenticatorAttachment: "platform",
    getClientExtensionResults: () => ({ credProps: { rk: true }, prf: { enabled: true, results: { first: bytes(9, 9) } } }),
    response: kind === "attestation"
      ? {
        clientDataJSON: bytes(123, 125),
        attestationObject: bytes(0xa0),
        getTransports: () => ["internal", "hybrid"],
        getAuthenticatorData: () => bytes(4, 5),
        getPublicKey: () => bytes(6),
        getPublicKeyAlgorithm: () => -7,
      }
      : { clientDataJSON: bytes(123, 125), authenticatorData: bytes(4, 5), signature: bytes(0x30), userHandle: bytes(7, 7) },
  });
  return credential;
};

const creationJSON = {
  rp: { id: "localhost", name: "passkeyd" },
  user: { id: "dXNlcg", name: "ada", displayName: "Ada" },
  challenge: "Y2hhbGxlbmdl",
  pubKeyCredParams: [{ type: "public-key", alg: -7 }],
  excludeCredentials: [{ type: "public-key", id: "AQID", transports: ["usb"] }],
  authenticatorSelection: { residentKey: "required", userVerification: "required" },
  attestation: "none",
  extensions: { credProps: true, prf: { eval: { first: "AAE" } } },
};
const requestJSON = {
  challenge: "Y2hhbGxlbmdl",
  rpId: "localhost",
  allowCredentials: [{ type: "public-key", id: "AQID" }],
  userVerification: "required",
  extensions: { prf: { evalByCredential: { AQID: { first: "AAE", second: "AgM" } } }, largeBlob: { write: "-_8" } },
};

beforeEach(() => install());

test("base64url: every byte value both ways, no padding, URL alphabet", () => {
  const all = new Uint8Array(256).map((_, i) => i);
  const text = base64url.encode(all);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(new Uint8Array(base64url.decode(text)), all);
  assert.equal(base64url.encode(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64url.encode(new Uint8Array([1, 2, 3, 4]).subarray(1, 3)), "AgM");
  same(base64url.decode("-_8"), 0xfb, 0xff);
  assert.equal(base64url.encode(new ArrayBuffer(0)), "");
});

test("fallback: creation options decoded (challenge, user id, excluded ids, prf inputs)", () => {
  assert.deepEqual(nativeJSONSupport(), { parseCreationOptionsFromJSON: false, parseRequestOptionsFromJSON: false, toJSON: false });
  const options = creationOptionsFromJSON(creationJSON);
  same(options.challenge, ...Buffer.from("challenge"));
  same(options.user.id, ...Buffer.from("user"));
  assert.equal(options.user.name, "ada");
  same(options.excludeCredentials[0].id, 1, 2, 3);
  assert.deepEqual(options.excludeCredentials[0].transports, ["usb"]);
  same(options.extensions.prf.eval.first, 0, 1);
  assert.equal(options.extensions.credProps, true);
  assert.deepEqual(options.authenticatorSelection, creationJSON.authenticatorSelection);
});

test("fallback: request options decoded (challenge, allowed ids, prf by credential, largeBlob write)", () => {
  const options = requestOptionsFromJSON(requestJSON);
  same(options.challenge, ...Buffer.from("challenge"));
  same(options.allowCredentials[0].id, 1, 2, 3);
  same(options.extensions.prf.evalByCredential.AQID.first, 0, 1);
  same(options.extensions.prf.evalByCredential.AQID.second, 2, 3);
  same(options.extensions.largeBlob.write, 0xfb, 0xff);
  assert.equal(options.rpId, "localhost");
  assert.equal(requestOptionsFromJSON({ ...requestJSON, allowCredentials: [], extensions: undefined }).extensions, undefined);
});

test("fallback: a created credential to RegistrationResponseJSON", () => {
  const json = credentialToJSON(created(globalThis.PublicKeyCredential, "attestation"));
  assert.deepEqual(json, {
    id: "AQID",
    rawId: "AQID",
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: { credProps: { rk: true }, prf: { enabled: true, results: { first: "CQk" } } },
    response: {
      clientDataJSON: "e30",
      attestationObject: "oA",
      transports: ["internal", "hybrid"],
      authenticatorData: "BAU",
      publicKeyAlgorithm: -7,
      publicKey: "Bg",
    },
  });
});

test("fallback: an assertion to AuthenticationResponseJSON", () => {
  const json = credentialToJSON(created(globalThis.PublicKeyCredential, "assertion"));
  assert.deepEqual(json.response, { clientDataJSON: "e30", authenticatorData: "BAU", signature: "MA", userHandle: "Bwc" });
  assert.equal(json.rawId, "AQID");
  assert.throws(() => credentialToJSON({ ...json, response: { clientDataJSON: bytes(1) }, getClientExtensionResults: () => ({}) }), TypeError);
});

test("native: parse…FromJSON and toJSON() where the browser has them; { fallback: true } skips them", () => {
  install({ native: true });
  assert.deepEqual(nativeJSONSupport(), { parseCreationOptionsFromJSON: true, parseRequestOptionsFromJSON: true, toJSON: true });
  assert.deepEqual(creationOptionsFromJSON(creationJSON), { native: "creation", json: creationJSON });
  assert.deepEqual(requestOptionsFromJSON(requestJSON), { native: "request", json: requestJSON });
  const credential = created(globalThis.PublicKeyCredential, "assertion");
  assert.deepEqual(credentialToJSON(credential), { native: "toJSON", id: "AQID" });
  assert.equal(credentialToJSON(credential, { fallback: true }).response.signature, "MA");
  same(creationOptionsFromJSON(creationJSON, { fallback: true }).user.id, ...Buffer.from("user"));
});

test("createPasskey: passkeyd's begin answer to navigator.credentials.create, its mediation passed on (conditional create)", async () => {
  const json = await createPasskey({ publicKey: creationJSON, mediation: "conditional" });
  const [name, request] = calls[0];
  assert.equal(name, "create");
  assert.equal(request.mediation, "conditional");
  same(request.publicKey.challenge, ...Buffer.from("challenge"));
  assert.equal(json.response.attestationObject, "oA");

  const controller = new AbortController();
  await createPasskey({ publicKey: creationJSON }, { signal: controller.signal });
  assert.equal(calls[1][1].mediation, undefined);
  assert.equal(calls[1][1].signal, controller.signal);
});

test("getPasskey: conditional UI (mediation conditional) with an abort signal; native JSON where present", async () => {
  install({ native: true });
  const controller = new AbortController();
  const json = await getPasskey({ publicKey: requestJSON }, { mediation: "conditional", signal: controller.signal });
  const [name, request] = calls[0];
  assert.equal(name, "get");
  assert.equal(request.mediation, "conditional");
  assert.equal(request.signal, controller.signal);
  assert.deepEqual(request.publicKey, { native: "request", json: requestJSON });
  assert.deepEqual(json, { native: "toJSON", id: "AQID" });
});

test("a create or get that yields no credential rejects with NotAllowedError", async () => {
  navigator.credentials.get = async () => null;
  await assert.rejects(getPasskey({ publicKey: requestJSON }), { name: "NotAllowedError" });
});

test("capabilities: conditional mediation and conditional create, false where the browser lacks them", async () => {
  assert.equal(await isConditionalMediationAvailable(), false);
  assert.equal(await isConditionalCreateAvailable(), false);
  install({ conditional: true, capabilities: { conditionalCreate: true } });
  assert.equal(await isConditionalMediationAvailable(), true);
  assert.equal(await isConditionalCreateAvailable(), true);
  delete globalThis.PublicKeyCredential;
  assert.equal(await isConditionalMediationAvailable(), false);
  assert.equal(await isConditionalCreateAvailable(), false);
  assert.equal(creationOptionsFromJSON(creationJSON).user.name, "ada"); // no PublicKeyCredential at all: the fallback
});

const accepted = { rpId: "localhost", userId: "dXNlcg", allAcceptedCredentialIds: ["AQID"], name: "ada", displayName: "Ada" };

test("Signal API: accepted credentials and current user details from passkeyd's signal", async () => {
  install({ signals: true });
  assert.deepEqual(await signalAcceptedCredentials(accepted), ["signalAllAcceptedCredentials", "signalCurrentUserDetails"]);
  assert.deepEqual(calls, [
    ["signalAllAcceptedCredentials", { rpId: "localhost", userId: "dXNlcg", allAcceptedCredentialIds: ["AQID"] }],
    ["signalCurrentUserDetails", { rpId: "localhost", userId: "dXNlcg", name: "ada", displayName: "Ada" }],
  ]);
  assert.deepEqual(await signalAcceptedCredentials(undefined), []);
});

test("Signal API: an unknown credential, also from a PasskeydError-shaped error; other errors signal nothing", async () => {
  install({ signals: true });
  const signal = { rpId: "localhost", credentialId: "AQID" };
  assert.deepEqual(await signalUnknownCredential(signal), ["signalUnknownCredential"]);
  assert.deepEqual(await signalFromError({ code: "credential_unknown", signal, status: 404 }), ["signalUnknownCredential"]);
  assert.deepEqual(await signalFromError({ code: "user_exists", signal }), []);
  assert.deepEqual(await signalFromError(new Error("x")), []);
  assert.deepEqual(await signalFromError(null), []);
  assert.deepEqual(calls, [["signalUnknownCredential", signal], ["signalUnknownCredential", signal]]);
});

test("Signal API: absent functions are skipped and refusals swallowed (hints only)", async () => {
  assert.deepEqual(await signalAcceptedCredentials(accepted), []);
  assert.deepEqual(await signalUnknownCredential({ rpId: "localhost", credentialId: "AQID" }), []);
  install({ signals: true });
  globalThis.PublicKeyCredential.signalAllAcceptedCredentials = async () => { throw new DOMException("no", "SecurityError"); };
  assert.deepEqual(await signalAcceptedCredentials(accepted), ["signalAllAcceptedCredentials", "signalCurrentUserDetails"]);
});
