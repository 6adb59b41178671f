// Type tests, compiled (never run) by scripts/build.mjs: what the generated types accept and refuse.
// A line after `@ts-expect-error` must not compile; one that compiles fails the build.
import { PasskeydClient, PasskeydError, type Credential, type ErrorCode, type Operations } from "../src/index.js";
import { createPasskey, getPasskey, signalAcceptedCredentials, type RegistrationBegin } from "../src/browser.js";

export async function checks(client: PasskeydClient): Promise<void> {
  // Registration: a new user by name, an existing one by id; an upgrade (mediation) only by id.
  const begin = await client.registrationBegin({ user: { name: "ada", displayName: "Ada" } });
  const challenge: string = begin.publicKey.challenge;
  await client.registrationBegin({ user: { id: "AAAA" }, mediation: "conditional" });
  // @ts-expect-error mediation "conditional" needs user.id
  await client.registrationBegin({ user: { name: "ada" }, mediation: "conditional" });
  // @ts-expect-error the user is required
  await client.registrationBegin({});
  // @ts-expect-error not a member of the document
  await client.registrationBegin({ user: { name: "ada" }, unknown: 1 });

  const credential = await createPasskey(begin);
  const typed: RegistrationBegin = begin;
  const registered = await client.registrationFinish({ credential, nickname: "laptop" });
  const stored: Credential = registered.credential;
  const nickname: string | null = stored.nickname;

  // Authentication: the body is optional; the answer's signal is the Signal API's arguments.
  const request = await client.authenticationBegin();
  const signedIn = await client.authenticationFinish({ credential: await getPasskey(request, { mediation: "conditional" }) });
  await signalAcceptedCredentials(signedIn.signal);
  const refreshToken: string = signedIn.session!.refreshToken;
  // @ts-expect-error signCountStatus is a closed set
  const status: "bogus" = signedIn.signCountStatus;

  // Path parameters, queries, 204 answers, text answers.
  const page = await client.adminListUsers({ name: "ada", limit: 10 });
  const next: string | null = page.next;
  // @ts-expect-error limit is a number
  await client.adminListUsers({ limit: "10" });
  const nothing: void = await client.adminDeleteCredential(stored.id);
  const metrics: string = await client.getMetrics();
  // @ts-expect-error the me calls take the access token first
  await client.meListCredentials();
  await client.meRenameCredential("token", stored.id, { nickname: null });

  // Introspection is a union on `active`.
  const introspection = await client.introspectAccessToken({ token: "x" });
  if (introspection.active) {
    const subject: string = introspection.sub;
    void subject;
  }

  // The generic call: inputs checked against the operation.
  await client.call("adminGetUser", { pathParams: { userId: "x" } });
  // @ts-expect-error path parameters are required
  await client.call("adminGetUser", {});
  // @ts-expect-error no such operation
  await client.call("adminGetUsers", {});

  // Errors: codes are typed (and open to codes the document does not list).
  try {
    await client.registrationBegin({ user: { name: "ada" } });
  } catch (error) {
    if (error instanceof PasskeydError && error.code === "user_exists") {
      const seconds: number | undefined = error.retryAfter;
      const credentialId: string | undefined = error.signal?.credentialId;
      void seconds, credentialId;
    }
  }
  const code: Operations["registrationBegin"]["errorCode"] = "user_exists";
  const any: ErrorCode = code;
  void typed, challenge, nickname, refreshToken, status, next, nothing, metrics, any;
}
