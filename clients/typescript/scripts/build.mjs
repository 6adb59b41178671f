#!/usr/bin/env node
// Builds the TypeScript client: src/generated/openapi.ts from openapi.json (scripts/generate.mjs), dist/ (JS and
// .d.ts) with tsc, the browser helper for passkeyd's demo page (Sources/PasskeyHTTP/Resources/demo/passkeyd-browser.js:
// dist/browser.js with a header), and type-checks test/types.ts. Plain Node; tsc from PATH (Debian's node-typescript,
// TypeScript 4.8, or TSC=path).
//
//   node scripts/build.mjs           write them
//   node scripts/build.mjs --check   write nothing; fail (exit 1) when a committed file is not what the build gives
//                                    (the generated types, dist/, the demo's helper), or the type tests fail
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "./generate.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(root, "..", "..");
const documentPath = process.env.OPENAPI || join(repo, "Sources", "PasskeyHTTP", "Resources", "openapi.json");
const generatedPath = join(root, "src", "generated", "openapi.ts");
const demoHelperPath = join(repo, "Sources", "PasskeyHTTP", "Resources", "demo", "passkeyd-browser.js");
const tsc = process.env.TSC || "tsc";
const check = process.argv[2] === "--check";
if (process.argv.length > 3 || (process.argv[2] && !check)) {
  console.error("usage: node scripts/build.mjs [--check]");
  process.exit(2);
}

const stale = [];
const show = (path) => relative(process.cwd(), path) || ".";

function run(args) {
  const result = spawnSync(tsc, args, { cwd: root, stdio: "inherit" });
  if (result.error) {
    console.error(`build: cannot run ${tsc} (${result.error.message}); Debian: apt-get install node-typescript`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function files(directory, base = directory) {
  let found = [];
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) found = found.concat(files(path, base));
    else found.push(relative(base, path));
  }
  return found;
}

function readOrNull(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function expect(path, text) {
  if (check) {
    if (readOrNull(path) !== text) stale.push(path);
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

// 1. The types from openapi.json.
const generated = generate(JSON.parse(readFileSync(documentPath, "utf8")));
expect(generatedPath, generated);
if (check && stale.length) {
  console.error(`build: ${show(generatedPath)} is not what openapi.json gives; run node clients/typescript/scripts/build.mjs`);
  process.exit(1);
}

// 2. dist/ with tsc (into a temporary directory, then compared or copied, so dist/ never holds leftovers).
const out = mkdtempSync(join(tmpdir(), "passkeyd-ts-"));
try {
  run(["-p", "tsconfig.json", "--outDir", out]);
  const built = files(out);
  const dist = join(root, "dist");
  const committed = statSafe(dist) ? files(dist) : [];
  for (const name of built) expect(join(dist, name), readFileSync(join(out, name), "utf8"));
  for (const name of committed) {
    if (!built.includes(name)) {
      if (check) stale.push(join(dist, name));
      else rmSync(join(dist, name));
    }
  }

  // 3. The demo page's copy of the browser helper.
  const header =
    "// Generated from clients/typescript/src/browser.ts (passkeyd's TypeScript client, its ./browser entry point) by\n" +
    "// clients/typescript/scripts/build.mjs: do not edit. Served by PASSKEYD_DEMO=on as /demo/passkeyd-browser.js.\n";
  expect(demoHelperPath, header + readFileSync(join(out, "browser.js"), "utf8"));
} finally {
  rmSync(out, { recursive: true, force: true });
}

// 4. The type tests (compile only).
run(["-p", "test/tsconfig.json"]);

if (stale.length) {
  console.error("build: not what the build gives (run node clients/typescript/scripts/build.mjs and commit):");
  for (const path of stale) console.error(`  ${show(path)}`);
  process.exit(1);
}
console.error(check ? "build: generated types, dist/ and the demo's helper are fresh; type tests pass" : "build: done");

function statSafe(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
