// passkeyd demo page: plain JavaScript (an ES module), no build step of its own, no dependencies.
//
// It calls the demo routes (/demo/api/...), which take and return exactly the JSON of the /v1 ceremony API and
// keep a short-lived demo session cookie after a successful finish. The WebAuthn side goes through passkeyd's
// browser helper (/demo/passkeyd-browser.js: clients/typescript/src/browser.ts compiled by tsc, the TypeScript
// client's "./browser" entry point): options through PublicKeyCredential.parseCreationOptionsFromJSON /
// parseRequestOptionsFromJSON and credentials through toJSON() where the browser has them, its base64url fallback
// otherwise (or with ?fallback=1); conditional UI and conditional create; the Signal API calls from passkeyd's
// `signal` data.
import {
  createPasskey,
  getPasskey,
  isConditionalCreateAvailable,
  isConditionalMediationAvailable,
  nativeJSONSupport,
  signalAcceptedCredentials,
  signalFromError,
} from "/demo/passkeyd-browser.js";

const $ = (id) => document.getElementById(id);
const forceFallback = new URLSearchParams(location.search).get("fallback") === "1";
const json = { fallback: forceFallback }; // the helper's JSON options

// ---- the server ----
class ServerError extends Error {
  constructor(status, code, message, signal) {
    super(message);
    this.status = status;
    this.code = code;
    this.signal = signal; // credential_unknown on a sign-in: signalUnknownCredential's arguments
  }
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (_) {
    json = null;
  }
  if (!response.ok) {
    throw new ServerError(response.status, json?.error?.code || `http_${response.status}`, json?.error?.message || text, json?.signal);
  }
  return json;
}

// ---- Signal API: tell the passkey provider what the RP knows (where the browser has it) ----
// After a sign-in passkeyd answers `signal` ({rpId, userId, allAcceptedCredentialIds, name, displayName}): the
// helper calls signalAllAcceptedCredentials and signalCurrentUserDetails, so the provider drops passkeys of this user
// that the RP no longer accepts and shows the current names. A sign-in with a passkey passkeyd does not know answers
// credential_unknown with `signal` ({rpId, credentialId}): the helper calls signalUnknownCredential, and the provider
// may hide that passkey. Hints only: a browser without these functions, or one that refuses them, changes nothing.

// ---- the page ----
function status(kind, text) {
  const element = $("status");
  element.dataset.kind = kind;
  element.textContent = text;
}

function failed(action, error) {
  // Server errors carry a stable code; browser errors a DOMException name (NotAllowedError, ...).
  const code = error instanceof ServerError ? error.code : error?.name || "error";
  status("error", `${action} failed: ${code}: ${error?.message || ""}`);
}

let signedInUser = null;

function showSignedOut() {
  signedInUser = null;
  $("signed-in").hidden = true;
  $("signed-out").hidden = false;
  startAutofill();
}

function showSignedIn(session) {
  signedInUser = session.user;
  $("signed-out").hidden = true;
  $("signed-in").hidden = false;
  $("who").textContent = session.user.name;
  const body = $("passkeys").querySelector("tbody");
  body.replaceChildren();
  for (const credential of session.credentials) {
    const row = document.createElement("tr");
    row.dataset.id = credential.id;
    const cells = [
      credential.nickname ?? "—",
      credential.id.length > 22 ? credential.id.slice(0, 22) + "…" : credential.id,
      String(credential.publicKeyAlgorithm),
      credential.transports.join(", ") || "—",
      String(credential.signCount),
      new Date(credential.createdAt).toLocaleString(),
      credential.lastUsedAt ? new Date(credential.lastUsedAt).toLocaleString() : "never",
    ];
    cells.forEach((text, index) => {
      const cell = document.createElement("td");
      cell.textContent = text;
      if (index === 1) {
        cell.className = "id";
        cell.title = credential.id;
      }
      row.append(cell);
    });
    const action = document.createElement("td");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete";
    remove.textContent = "Delete";
    remove.dataset.id = credential.id;
    remove.addEventListener("click", () => deletePasskey(credential.id));
    action.append(remove);
    row.append(action);
    body.append(row);
  }
  $("passkeys").dataset.count = String(session.credentials.length);
}

/// Shows the session if there is one; resolves to it (or null).
async function refresh() {
  try {
    const session = await call("GET", "/demo/api/session");
    showSignedIn(session);
    return session;
  } catch (error) {
    if (error instanceof ServerError && error.status === 401) {
      showSignedOut();
      return null;
    }
    throw error;
  }
}

// ---- conditional UI (autofill) ----
let autofill = null;

function stopAutofill() {
  if (autofill) {
    autofill.abort();
    autofill = null;
    $("autofill").textContent = "paused";
  }
}

async function startAutofill() {
  stopAutofill();
  if (!(await isConditionalMediationAvailable())) {
    $("autofill").textContent = "not available here (the browser offers it with a platform authenticator)";
    return;
  }
  const controller = new AbortController();
  autofill = controller;
  try {
    const begin = await call("POST", "/demo/api/authentication/begin", {});
    if (controller.signal.aborted) return;
    $("autofill").textContent = "waiting";
    const credential = await getPasskey(begin, { ...json, mediation: "conditional", signal: controller.signal });
    if (autofill === controller) autofill = null;
    await finishSignIn(credential, "autofill");
  } catch (error) {
    if (controller.signal.aborted || error?.name === "AbortError") return;
    if (autofill === controller) autofill = null;
    if (error instanceof ServerError) {
      // A passkey was picked and the server refused it: say so.
      $("autofill").textContent = "ended";
      failed("Sign-in", error);
    } else {
      // The browser ended the request (no passkey, dismissed, ...): nothing was attempted.
      $("autofill").textContent = `ended (${error?.name || "error"})`;
    }
  }
}

// ---- ceremonies ----
// credential: the JSON of the helper's getPasskey (AuthenticationResponseJSON).
async function finishSignIn(credential, how) {
  let result;
  try {
    result = await call("POST", "/demo/api/authentication/finish", { credential });
  } catch (error) {
    await signalFromError(error);
    throw error;
  }
  await signalAcceptedCredentials(result.signal);
  await refresh();
  status("ok", `Signed in as ${result.user?.name ?? "?"} (${how}).`);
}

async function signIn(name) {
  stopAutofill();
  const how = name ? "username" : "discoverable";
  status("busy", "Waiting for your passkey…");
  try {
    const begin = await call("POST", "/demo/api/authentication/begin", name ? { user: { name } } : {});
    await finishSignIn(await getPasskey(begin, json), how);
  } catch (error) {
    failed("Sign-in", error);
    if (!signedInUser) startAutofill();
  }
}

// user: {name} signs a new user up (passkeyd answers 409 user_exists when the name is taken); {id} adds a passkey to
// the signed-in user's own account (the demo session stands for the backend that authenticated this person).
// silently: an automatic upgrade (only for {id}): passkeyd's answer carries mediation "conditional", which the helper
// passes to navigator.credentials.create with the options (conditional create); the passkey provider then creates it
// without a prompt.
async function register(user, nickname, silently = false) {
  stopAutofill();
  status("busy", silently ? "Asking for a passkey without a prompt…" : "Creating a passkey…");
  try {
    const begin = { user };
    if (silently) begin.mediation = "conditional";
    const answer = await call("POST", "/demo/api/registration/begin", begin);
    const credential = await createPasskey(answer, json);
    const result = await call("POST", "/demo/api/registration/finish", { credential, nickname: nickname || null });
    for (const id of ["reg-name", "reg-nickname", "add-nickname"]) $(id).value = "";
    const session = await refresh();
    const who = session ? ` Signed in as ${session.user.name}.` : "";
    status("ok", `Registered a passkey for ${result.user.name}.${who}`);
  } catch (error) {
    failed("Registration", error);
    if (!signedInUser) startAutofill();
  }
}

async function deletePasskey(id) {
  try {
    await call("DELETE", `/demo/api/credentials/${encodeURIComponent(id)}`);
    const session = await refresh();
    await signalAcceptedCredentials(session?.signal);
    status("ok", `Deleted passkey ${id.slice(0, 12)}….`);
  } catch (error) {
    failed("Deletion", error);
    if (error instanceof ServerError && error.status === 401) await refresh();
  }
}

async function signOut() {
  try {
    await call("POST", "/demo/api/signout");
    showSignedOut();
    status("ok", "Signed out.");
  } catch (error) {
    failed("Sign-out", error);
  }
}

// ---- wiring ----
document.addEventListener("DOMContentLoaded", async () => {
  $("rp").textContent = location.hostname;
  const native = nativeJSONSupport();
  $("helpers").textContent = !forceFallback && native.parseCreationOptionsFromJSON && native.parseRequestOptionsFromJSON && native.toJSON
    ? "native (parse…FromJSON, toJSON)" : "base64url fallback";
  $("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("username").value.trim());
  });
  $("signin-discoverable").addEventListener("click", () => signIn(""));
  $("register-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("reg-name").value.trim();
    register({ name, displayName: name }, $("reg-nickname").value.trim());
  });
  $("add-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (signedInUser) register({ id: signedInUser.id }, $("add-nickname").value.trim(), $("add-silently").checked);
  });
  isConditionalCreateAvailable().then((available) => {
    $("conditional-create").textContent = available ? "this browser can" : "not offered by this browser";
  });
  $("signout").addEventListener("click", signOut);
  if (!window.PublicKeyCredential) {
    status("error", "This browser has no WebAuthn (or the page is not a secure context: use https or localhost).");
    return;
  }
  try {
    const session = await refresh();
    status("idle", session ? `Signed in as ${session.user.name}.` : "Signed out.");
  } catch (error) {
    failed("Loading", error);
  }
});
