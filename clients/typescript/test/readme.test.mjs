// The README's example is tested, not just written. The block between `<!-- example:typescript …-->` and
// `<!-- /example:typescript -->` in clients/typescript/README.md is the same in passkeyd's README.md and
// docs/clients.md; its code (the region's last fenced block) compiles with tsc under the package's strict options
// against dist/'s declarations, and the compiled module runs a passkey sign-in's server side against a real passkeyd
// with passkeyd-softkey as the page's authenticator (skipped without PASSKEYD_URL, as test/live.test.mjs is, unless
// PASSKEYD_LIVE_REQUIRED is set). Environment: live.test.mjs's (PASSKEYD_URL, PASSKEYD_API_KEY, PASSKEYD_ORIGIN,
// PASSKEYD_SOFTKEY); tsc from PATH (Debian's node-typescript) or TSC.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PasskeydClient, PasskeydError } from "../dist/index.js";

const client = join(dirname(fileURLToPath(import.meta.url)), "..");
const repository = join(client, "..", "..");
const language = "typescript";
const env = process.env;

/** The text between the example's markers in a Markdown file (exactly one such region). */
function region(path) {
  const pattern = new RegExp(`^<!-- example:${language}\\b[^\\n]*-->\\n([\\s\\S]*?)\\n<!-- /example:${language} -->$`, "gm");
  const found = [...readFileSync(path, "utf8").matchAll(pattern)].map((match) => match[1]);
  assert.equal(found.length, 1, `${path}: expected one <!-- example:${language} --> region, found ${found.length}`);
  return found[0];
}

/** The region's last fenced code block: the example (the ones before it are the install lines). */
function exampleCode() {
  const blocks = [...region(join(client, "README.md")).matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  assert.ok(blocks.length > 0, "no fenced code block in the README's example region");
  return blocks[blocks.length - 1];
}

for (const page of ["README.md", join("docs", "clients.md")]) {
  const path = join(repository, page);
  const skip = existsSync(path) ? false : `${page}: not beside this client (a copy outside passkeyd's repository)`;
  test(`${page} shows the README's example`, { skip }, () => {
    assert.equal(region(path), region(join(client, "README.md")), `${page}'s example differs from clients/typescript/README.md's`);
  });
}

/** The example compiled by tsc (the package's compiler options, "@passkeyd/client" as dist/) into a directory. */
function compileExample() {
  const directory = mkdtempSync(join(tmpdir(), "passkeyd-ts-readme-"));
  const code = exampleCode();
  assert.match(code, /from "@passkeyd\/client";/);
  // Node's own types are not installed here (no npm): the example uses only process.env of them.
  const source = "declare const process: { env: Record<string, string | undefined> };\n"
    + code.replaceAll('from "@passkeyd/client";', `from ${JSON.stringify(join(client, "dist", "index.js"))};`);
  writeFileSync(join(directory, "example.ts"), source);
  writeFileSync(join(directory, "tsconfig.json"), JSON.stringify({
    extends: join(client, "tsconfig.json"),
    compilerOptions: { rootDir: ".", outDir: "out", declaration: false },
    include: ["example.ts"],
  }));
  const tsc = env.TSC || "tsc";
  const result = spawnSync(tsc, ["-p", join(directory, "tsconfig.json")], { encoding: "utf8" });
  assert.ok(!result.error, `cannot run ${tsc} (${result.error?.message}); Debian: apt-get install node-typescript`);
  assert.equal(result.status, 0, `tsc refused the README's example:\n${result.stdout}${result.stderr}`);
  return directory;
}

test("the example compiles with tsc under the package's options", () => {
  rmSync(compileExample(), { recursive: true, force: true });
});

const skipLive = env.PASSKEYD_URL || env.PASSKEYD_LIVE_REQUIRED
  ? false
  : "PASSKEYD_URL not set (scripts/test/typescript-client-test.sh starts a passkeyd)";

test("the example signs in against passkeyd", { skip: skipLive }, async () => {
  const directory = compileExample();
  try {
    const key = join(directory, "key.json");
    const softkey = (command, publicKey) => JSON.parse(execFileSync(
      env.PASSKEYD_SOFTKEY, [command, "--key", key, "--origin", env.PASSKEYD_ORIGIN], { input: JSON.stringify({ publicKey }) },
    ).toString()).credential;

    // A user with a passkey of `key`, made with a client of the test's own.
    const setup = new PasskeydClient({ baseUrl: env.PASSKEYD_URL, apiKey: env.PASSKEYD_API_KEY });
    const begun = await setup.registrationBegin({ user: { name: `readme-${randomUUID().slice(0, 12)}` } });
    const { user } = await setup.registrationFinish({ credential: softkey("register", begun.publicKey) });

    const example = await import(pathToFileURL(join(directory, "out", "example.js")).href);  // reads PASSKEYD_URL, _API_KEY
    const options = await example.beginSignIn();                 // → the page
    assert.deepEqual(options.publicKey.allowCredentials ?? [], []);
    const credential = softkey("sign", options.publicKey);       // the page's credential
    assert.equal(await example.finishSignIn(credential), user.id);
    // "refused: rejects with PasskeydError"
    const replayed = await example.finishSignIn(credential).then(() => assert.fail("a replayed credential was accepted"), (error) => error);
    assert.ok(replayed instanceof PasskeydError, `not a PasskeydError: ${replayed}`);
    assert.equal(replayed.status, 400);
    assert.equal(replayed.code, "challenge_unknown_or_expired");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
