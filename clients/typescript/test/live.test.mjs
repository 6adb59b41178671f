// The client against a real passkeyd (scripts/test/typescript-client-test.sh starts one on PostgreSQL with API and
// admin keys, sessions, Apple ID tokens from passkeyd-idp's key, and App Store with the test certificates):
// passkey sign-up and sign-in with passkeyd-softkey as the authenticator, the typed errors, sessions (refresh,
// introspection, the person's own calls, a handoff, sign-out), an ID-token sign-in, an App Store purchase, the admin
// API. Skipped without PASSKEYD_URL.
//
// Environment: PASSKEYD_URL, PASSKEYD_API_KEY, PASSKEYD_ADMIN_KEY, PASSKEYD_ORIGIN (the web origin passkeyd allows),
// PASSKEYD_SOFTKEY and PASSKEYD_IDP (the binaries), PASSKEYD_IDP_DIR (passkeyd-idp keygen's directory, the key
// passkeyd trusts for provider "apple", audience PASSKEYD_IDP_AUDIENCE), PASSKEYD_STOREKIT_CERTS (the vectors'
// apple/storekit/certs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PasskeydClient, PasskeydError } from "../dist/index.js";

const env = process.env;
const skip = env.PASSKEYD_URL ? false : "PASSKEYD_URL not set (scripts/test/typescript-client-test.sh starts a passkeyd)";
const client = env.PASSKEYD_URL
  ? new PasskeydClient({ baseUrl: env.PASSKEYD_URL, apiKey: env.PASSKEYD_API_KEY, adminKey: env.PASSKEYD_ADMIN_KEY })
  : null;
const directory = mkdtempSync(join(tmpdir(), "passkeyd-ts-live-"));
process.on("exit", () => rmSync(directory, { recursive: true, force: true }));
const unique = (prefix) => `${prefix}-${randomUUID().slice(0, 12)}`;
const b64url = (buffer) => Buffer.from(buffer).toString("base64url");

/** passkeyd-softkey with one key file: register and sign take begin options and give the finish's credential. */
class Authenticator {
  constructor() {
    this.key = join(directory, `${randomUUID()}.json`);
  }

  run(command, publicKey) {
    const output = execFileSync(env.PASSKEYD_SOFTKEY, [command, "--key", this.key, "--origin", env.PASSKEYD_ORIGIN], {
      input: JSON.stringify({ publicKey }),
    });
    return JSON.parse(output.toString()).credential;
  }

  register(publicKey) {
    return this.run("register", publicKey);
  }

  sign(publicKey) {
    return this.run("sign", publicKey);
  }
}

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PasskeydError, `not a PasskeydError: ${error}`);
    return error;
  }
  assert.fail("expected a PasskeydError");
}

/** A user signed up with a passkey: { name, user, credential, authenticator }. */
async function signUp(prefix) {
  const authenticator = new Authenticator();
  const name = unique(prefix);
  const begin = await client.registrationBegin({ user: { name, displayName: `${prefix} display` } });
  const registered = await client.registrationFinish({ credential: authenticator.register(begin.publicKey), nickname: "laptop" });
  return { name, user: registered.user, credential: registered.credential, authenticator };
}

async function signIn(authenticator, user) {
  const begin = await client.authenticationBegin(user ? { user } : undefined);
  return client.authenticationFinish({ credential: authenticator.sign(begin.publicKey) });
}

test("passkey sign-up and sign-in, by name and discoverable, with the Signal API's arguments", { skip }, async () => {
  const authenticator = new Authenticator();
  const name = unique("ada");
  const begin = await client.registrationBegin({ user: { name, displayName: "Ada L." } });
  assert.equal(begin.publicKey.user.name, name);
  assert.equal(begin.publicKey.rp.id, "localhost");
  assert.equal(begin.mediation, undefined);
  const registered = await client.registrationFinish({ credential: authenticator.register(begin.publicKey), nickname: "laptop" });
  assert.equal(registered.user.name, name);
  assert.equal(registered.credential.nickname, "laptop");
  assert.equal(registered.credential.createdBy, "modal");

  const request = await client.authenticationBegin({ user: { name } });
  assert.deepEqual(request.publicKey.allowCredentials.map((c) => c.id), [registered.credential.id]);
  const signedIn = await client.authenticationFinish({ credential: authenticator.sign(request.publicKey) });
  assert.equal(signedIn.user.id, registered.user.id);
  assert.equal(signedIn.userVerified, true);
  assert.equal(signedIn.session.tokenType, "Bearer");
  assert.deepEqual(signedIn.signal, {
    rpId: "localhost", userId: registered.user.id, allAcceptedCredentialIds: [registered.credential.id], name, displayName: "Ada L.",
  });
  assert.deepEqual(await client.getUserSignals(registered.user.id), signedIn.signal);

  const discoverable = await signIn(authenticator);
  assert.equal(discoverable.user.id, registered.user.id);
});

test("errors are PasskeydErrors with passkeyd's status and code", { skip }, async () => {
  const { name, authenticator } = await signUp("bob");
  const taken = await rejection(client.registrationBegin({ user: { name } }));
  assert.equal(taken.status, 409);
  assert.equal(taken.code, "user_exists");
  assert.equal(taken.operationId, "registrationBegin");

  const assertion = authenticator.sign((await client.authenticationBegin({ user: { name } })).publicKey);
  await client.authenticationFinish({ credential: assertion });
  const replay = await rejection(client.authenticationFinish({ credential: assertion }));
  assert.equal(replay.status, 400);
  assert.equal(replay.code, "challenge_unknown_or_expired");

  const wrongKey = new PasskeydClient({ baseUrl: env.PASSKEYD_URL, apiKey: "not-the-key" });
  const unauthorized = await rejection(wrongKey.authenticationBegin());
  assert.equal(unauthorized.status, 401);
  assert.equal(unauthorized.code, "unauthorized");
  const noAdmin = await rejection(wrongKey.adminListUsers());
  assert.equal(noAdmin.code, "unauthorized");
  assert.equal((await rejection(client.getUserSignals("AAAA"))).code, "user_unknown");
});

test("sessions: refresh, introspection, the person's own calls, a handoff, sign-out", { skip }, async () => {
  const { user, credential, authenticator } = await signUp("sam");
  const { session } = await signIn(authenticator);
  assert.match(session.refreshToken, /^pkd_rt_/);
  const jwks = await client.getSessionJWKS();
  assert.ok(jwks.keys.length >= 1);
  assert.equal(JSON.parse(Buffer.from(session.accessToken.split(".")[0], "base64url")).kid !== undefined, true);

  // Refresh: a new pair; the retired refresh token again revokes the session.
  const { session: refreshed } = await client.refreshSession({ refreshToken: session.refreshToken });
  assert.equal(refreshed.sessionId, session.sessionId);
  assert.notEqual(refreshed.refreshToken, session.refreshToken);
  const reused = await rejection(client.refreshSession({ refreshToken: session.refreshToken }));
  assert.equal(reused.status, 401);
  assert.equal(reused.code, "refresh_token_reused");

  // A new sign-in; the person's own passkeys on their access token.
  const { session: current } = await signIn(authenticator);
  const introspection = await client.introspectAccessToken({ token: current.accessToken });
  assert.equal(introspection.active, true);
  assert.equal(introspection.active && introspection.sub, user.id);
  const mine = await client.meListCredentials(current.accessToken);
  assert.deepEqual(mine.credentials.map((c) => c.id), [credential.id]);
  const renamed = await client.meRenameCredential(current.accessToken, credential.id, { nickname: "phone" });
  assert.equal(renamed.credential.nickname, "phone");
  assert.equal((await rejection(client.meListCredentials("not.a.token"))).status, 401);

  // Handoff from the app (its access token, PKCE), exchanged once by the web view.
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash("sha256").update(verifier).digest());
  const handoff = await client.createHandoffCode({ codeChallenge: challenge, codeChallengeMethod: "S256" }, { accessToken: current.accessToken });
  assert.match(handoff.code, /^pkd_hc_/);
  assert.ok(handoff.expiresIn <= 60);
  const { session: web } = await client.exchangeHandoffCode({ code: handoff.code, codeVerifier: verifier });
  assert.notEqual(web.sessionId, current.sessionId);
  assert.equal((await rejection(client.exchangeHandoffCode({ code: handoff.code, codeVerifier: verifier }))).code, "handoff_code_unknown");
  // ... and from the backend (the API key, the user's id).
  const backend = await client.createHandoffCode({ userId: user.id });
  assert.ok((await client.exchangeHandoffCode({ code: backend.code })).session.accessToken);

  // Sign-out with the access token; the token's session is then inactive.
  assert.equal(await client.revokeSession(undefined, { accessToken: current.accessToken }), undefined);
  assert.deepEqual(await client.introspectAccessToken({ token: current.accessToken }), { active: false });
  const sessions = await client.adminListUserSessions(user.id);
  assert.ok(sessions.sessions.length >= 3);
  assert.ok((await client.adminRevokeUserSessions(user.id)).revoked >= 1);
});

test("ID-token sign-in: a new user, again the same user, then linked to a passkey user by id", { skip }, async () => {
  const subject = `001234.${randomUUID()}`;
  const token = (begin, sub = subject) => execFileSync(env.PASSKEYD_IDP, [
    "token", "--dir", env.PASSKEYD_IDP_DIR, "--iss", "https://appleid.apple.com", "--aud", env.PASSKEYD_IDP_AUDIENCE,
    "--sub", sub, "--nonce", begin.providerNonce, "--email", "me@privaterelay.appleid.com",
  ]).toString().trim();

  let begin = await client.idTokenBegin({ provider: "apple" });
  assert.equal(begin.provider, "apple");
  const first = await client.request("idTokenFinish", { body: { session: begin.session, provider: "apple", idToken: token(begin) } });
  assert.equal(first.status, 201);
  assert.equal(first.body.created, true);
  assert.equal(first.body.identity.subject, subject);
  assert.equal(first.body.identity.issuer, "https://appleid.apple.com");
  const used = await rejection(client.idTokenFinish({ session: begin.session, provider: "apple", idToken: token(begin) }));
  assert.equal(used.code, "idtoken_session_unknown");

  begin = await client.idTokenBegin({ provider: "apple" });
  const again = await client.idTokenFinish({ session: begin.session, provider: "apple", idToken: token(begin) });
  assert.equal(again.created, false);
  assert.equal(again.user.id, first.body.user.id);
  assert.ok(again.session.accessToken);
  const identities = await client.meListIdentities(again.session.accessToken);
  assert.deepEqual(identities.identities.map((i) => i.subject), [subject]);

  // A passkey user links an Apple account: the backend names them by id.
  const { user } = await signUp("lin");
  begin = await client.idTokenBegin({ provider: "apple" });
  const linked = await client.idTokenFinish({ session: begin.session, provider: "apple", idToken: token(begin, `${subject}.lin`), user: { id: user.id } });
  assert.equal(linked.linked, true);
  assert.equal(linked.user.id, user.id);
  const listed = await client.adminListUserIdentities(user.id);
  assert.equal(listed.identities.length, 1);
  assert.equal(await client.adminUnlinkIdentity(user.id, listed.identities[0].id), undefined);
  assert.deepEqual((await client.adminListUserIdentities(user.id)).identities, []);
});

test("App Store: a purchase signed with the test certificates, kept and granted", { skip }, async () => {
  const { user } = await signUp("kim");
  const before = await client.appStoreEntitlements(user.id);
  assert.match(before.appAccountToken, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(before.entitlements, []);
  const transactionId = String(Date.now()) + String(Math.floor(Math.random() * 1000));
  const sign = (...extra) => execFileSync(env.PASSKEYD_SOFTKEY, [
    "storekit", "transaction", "--certs", env.PASSKEYD_STOREKIT_CERTS, "--id", transactionId, "--token", before.appAccountToken,
    "--days", "30", ...extra,
  ]).toString().trim();
  const signedTransaction = sign();
  const kept = await client.request("appStorePostTransaction", { body: { userId: user.id, signedTransaction } });
  assert.equal(kept.status, 201);
  assert.equal(kept.body.stored, "inserted");
  assert.equal(kept.body.transaction.transactionId, transactionId);
  assert.equal(kept.body.entitlements[0].status, "active");
  // The same transaction signed later replaces it (200); the older copy again changes nothing.
  const newer = await client.request("appStorePostTransaction", { body: { userId: user.id, signedTransaction: sign("--signed-offset-ms", "1000") } });
  assert.equal(newer.status, 200);
  assert.equal(newer.body.stored, "updated");
  assert.equal((await client.appStorePostTransaction({ userId: user.id, signedTransaction })).stored, "unchanged");
  const now = await client.appStoreEntitlements(user.id);
  assert.equal(now.entitlements[0].productId, "com.example.monthly");
  const tampered = await rejection(client.appStorePostTransaction({ userId: user.id, signedTransaction: signedTransaction.slice(0, -4) + "AAAA" }));
  assert.equal(tampered.status, 422);
});

test("admin API: list, get, rename, the audit trail; a deleted passkey's sign-in carries signalUnknownCredential's arguments", { skip }, async () => {
  const { name, user, credential, authenticator } = await signUp("eve");
  const page = await client.adminListUsers({ name, limit: 10 });
  assert.deepEqual(page.users.map((u) => u.id), [user.id]);
  const all = await client.adminListUsers({ limit: 1 });
  assert.equal(all.users.length, 1);
  assert.ok(all.next);
  assert.equal((await client.adminListUsers({ limit: 1, after: all.next })).users.length, 1);

  const found = await client.adminGetUser(user.id);
  assert.deepEqual(found.credentials.map((c) => c.id), [credential.id]);
  assert.equal(found.credentials[0].userId, user.id);
  assert.equal((await client.adminGetCredential(credential.id)).user.id, user.id);
  assert.equal((await client.adminRenameCredential(credential.id, { nickname: "desk" })).credential.nickname, "desk");
  assert.equal((await client.adminListUserCredentials(user.id)).credentials[0].nickname, "desk");
  const events = await client.adminAuditEvents({ user: user.id });
  assert.deepEqual(events.events.map((e) => e.event), ["user.created", "credential.registered", "credential.renamed"]);

  assert.equal(await client.adminDeleteCredential(credential.id), undefined);
  const unknown = await rejection(signIn(authenticator));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.code, "credential_unknown");
  assert.deepEqual(unknown.signal, { rpId: "localhost", credentialId: credential.id });
  assert.equal(await client.adminDeleteUser(user.id), undefined);
  assert.equal((await rejection(client.adminGetUser(user.id))).code, "user_unknown");
});

test("operations: health, readiness, metrics, the served document (its every operation a client method)", { skip }, async () => {
  assert.deepEqual(await client.getHealth(), { status: "ok" });
  assert.equal((await client.getReadiness()).status, "ready");
  assert.match(await client.getMetrics(), /^# (HELP|TYPE) passkeyd_/m);
  const served = await client.getOpenAPIDocument();
  const ids = Object.values(served.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter(Boolean));
  assert.ok(ids.includes("appStorePostTransaction") && ids.includes("idTokenFinish") && ids.includes("adminListUsers"));
  for (const id of ids) assert.equal(typeof client[id], "function", id);
  const repository = JSON.parse(readFileSync(new URL("../../../Sources/PasskeyHTTP/Resources/openapi.json", import.meta.url), "utf8"));
  assert.equal(served.info.version, repository.info.version);
});
