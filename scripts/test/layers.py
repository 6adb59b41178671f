#!/usr/bin/env python3
"""The module graph's layering, checked from Package.swift (docs/architecture.md, "Module graph").

Every target of the service has a layer; a target may depend only on targets of a lower layer (or earlier in
the same layer's order), and a source file may import only its own target's declared dependencies (so a module
cannot reach a layer above it through a transitive import). Also: PasskeyHTTP declares no use-case type
(`…Service`), only PasskeyServerSupport imports swift-otel's OTel, and no Swift source file under Sources/ is over 500
lines. Tools and test support are checked too:
they may not depend on the HTTP layer or above, except the ones listed as harnesses.

    python3 scripts/test/layers.py          (from the repository root; runs `swift package dump-package`)
"""
import json
import pathlib
import re
import subprocess
import sys

# Lower number = lower layer. Within a layer, the number's fraction orders modules that build on each other.
LAYERS = {
    # C libraries and the shared error shape
    "CLibCBOR": 0, "COpenSSL": 0, "CLibPQ": 0, "PasskeyErrors": 0,
    # the version and source revision (VERSION, git; written by the BuildInfo plugin)
    "PasskeyBuildInfo": 0,
    # one wrapper module per C library (C pointers never leave them)
    "CBORCodec": 1, "COSECrypto": 1.1, "LibPQ": 1,
    # wire models and JOSE
    "WebAuthnModel": 2, "JOSE": 2.1,
    # pure cores (no I/O)
    "WebAuthnCore": 3, "SealedState": 3, "IdentityCore": 3, "SessionCore": 3, "WebhookCore": 3, "AppleSignedData": 3.1,
    # stores and other adapters (I/O: PostgreSQL, files, provider key URLs)
    "PasskeyStore": 4, "PasskeyStorePostgres": 4.1, "PasskeyMetadata": 4, "ProviderKeys": 4,
    # use cases
    "PasskeyApp": 5,
    # thin HTTP, and settings (which must not know HTTP)
    "PasskeyHTTP": 6, "PasskeySettings": 6,
    # the assembly: buildApplication, the log handler, pool gauges
    "PasskeyServerSupport": 7,
    # the executable
    "PasskeyServer": 8,
}
# Tools and test support: may use cores and below, never the HTTP layer or above...
TOOL_CEILING = 4.5
# ...except these harnesses, each up to its own ceiling: the identity provider drives the use cases; the settings
# fixtures build Settings values.
HARNESSES = {"IdentityTestSupport": 5, "PasskeyIdP": 5, "SettingsTestSupport": 6}

root = pathlib.Path(__file__).resolve().parents[2]
package = json.loads(subprocess.run(
    ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
targets = {t["name"]: t for t in package["targets"]}
names = set(targets)


def dependencies(target):
    out = []
    for dependency in target["dependencies"]:
        kind = next(iter(dependency))
        out.append(dependency[kind][0])
    return out


failures = []
for name, target in targets.items():
    local = [d for d in dependencies(target) if d in names]
    if target["type"] == "test":
        continue
    if name in LAYERS:
        for dependency in local:
            if dependency not in LAYERS:
                failures.append(f"{name} depends on {dependency}, which is a tool or test support")
            elif LAYERS[dependency] >= LAYERS[name]:
                failures.append(f"{name} (layer {LAYERS[name]}) depends on {dependency} (layer {LAYERS[dependency]})")
    elif name not in HARNESSES:
        for dependency in local:
            if LAYERS.get(dependency, 0) > TOOL_CEILING:
                failures.append(f"tool {name} depends on {dependency} (layer {LAYERS[dependency]}): tools use cores and below")
    else:
        for dependency in local:
            if LAYERS.get(dependency, 0) > HARNESSES[name]:
                failures.append(f"harness {name} depends on {dependency}")
for name in LAYERS:
    if name not in targets:
        failures.append(f"{name} is in the layer table but not in Package.swift")

# Imports: a file imports only its target's declared dependencies (local targets; products are not checked).
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:public\s+|internal\s+|package\s+|private\s+|fileprivate\s+)?import\s+(?:\w+\s+)?(\w+)", re.M)
for name, target in targets.items():
    if target["type"] == "system":
        continue
    base = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
    allowed = set(dependencies(target)) | {name}
    for file in sorted((root / base).rglob("*.swift")):
        for module in IMPORT.findall(file.read_text(encoding="utf-8")):
            if module in names and module not in allowed:
                failures.append(f"{file.relative_to(root)} imports {module}, which {name} does not declare")

# PasskeyHTTP holds no use case.
for file in sorted((root / "Sources/PasskeyHTTP").rglob("*.swift")):
    for match in re.finditer(r"^\s*(?:public\s+|package\s+)?(?:final\s+)?(?:struct|class|actor)\s+(\w+Service)\b", file.read_text(), re.M):
        failures.append(f"{file.relative_to(root)} declares {match.group(1)}: use cases belong in PasskeyApp")

# swift-otel (the exporter) only in the assembly; the other layers make spans through swift-distributed-tracing's API.
for file in sorted((root / "Sources").rglob("*.swift")):
    if file.relative_to(root).parts[1] not in ("PasskeyServerSupport", "PasskeyServer") and "OTel" in IMPORT.findall(file.read_text(encoding="utf-8")):
        failures.append(f"{file.relative_to(root)} imports OTel: only PasskeyServerSupport chooses the tracing backend")

# No source file over 500 lines.
for file in sorted((root / "Sources").rglob("*.swift")):
    lines = file.read_text(encoding="utf-8").count("\n")
    if lines > 500:
        failures.append(f"{file.relative_to(root)} has {lines} lines (at most 500: split it by job)")

if failures:
    print("layers: FAILED", file=sys.stderr)
    for failure in failures:
        print("  " + failure, file=sys.stderr)
    sys.exit(1)
print(f"layers: {len(LAYERS)} layered modules, {len(targets) - len(LAYERS)} tools, tests and products checked: ok")
