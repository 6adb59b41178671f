#!/usr/bin/env python3
"""Writes Sources/PasskeydClient/ErrorCode+Known.swift: a static member of ErrorCode for every stable error code of
openapi.json, and ErrorCode.known. The codes: the `error.code` enum of every error response (4xx/5xx of every
operation, and every response under components.responses); each member's comment gives the statuses it comes with.
Tests/PasskeydClientTests/CoverageTests.swift checks the result against openapi.json on its own.

    python3 tools/generate-error-codes.py [--openapi PATH] [--check]

--check: exit 1 when the committed file is not what this would write. Standard library only."""

import argparse
import json
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
OUTPUT = PACKAGE / "Sources/PasskeydClient/ErrorCode+Known.swift"
DEFAULT_OPENAPI = PACKAGE.parents[1] / "Sources/PasskeyHTTP/Resources/openapi.json"
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
# Swift keywords a code's camelCase name could collide with (backquoted if so).
KEYWORDS = {"default", "internal", "private", "public", "self", "static", "true", "false", "nil", "in", "is", "as"}


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def codes_of(document, response):
    """The error.code enum of one error response (its schema, or an allOf member's)."""
    schema = resolve(document, resolve(document, response).get("content", {}).get("application/json", {}).get("schema", {}))
    for part in [schema] + [resolve(document, p) for p in schema.get("allOf", [])]:
        enum = part.get("properties", {}).get("error", {}).get("properties", {}).get("code", {}).get("enum")
        if enum:
            return {code for code in enum if isinstance(code, str) and CODE.match(code)}
    return None


def error_codes(document):
    codes = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                found = codes_of(document, response)
                if found is None:
                    sys.exit(f"{method.upper()} {path} {status}: no error.code enum")
                for code in found:
                    codes.setdefault(code, set()).add(int(status))
    for name, response in document["components"].get("responses", {}).items():
        for code in codes_of(document, response) or set():
            codes.setdefault(code, set())
    return codes


def camel(code):
    head, *rest = code.split("_")
    name = head + "".join(part[:1].upper() + part[1:] for part in rest)
    return f"`{name}`" if name in KEYWORDS else name


def render(document):
    codes = error_codes(document)
    lines = [
        "// Written by tools/generate-error-codes.py from openapi.json (do not edit): every `error.code` its error",
        "// responses list. Each comment gives the HTTP statuses the code comes with.",
        "",
        "extension ErrorCode {",
    ]
    for code in sorted(codes):
        statuses = ", ".join(str(s) for s in sorted(codes[code])) or "any path"
        lines.append(f"    /// `{code}` ({statuses})")
        lines.append(f'    public static let {camel(code)} = ErrorCode("{code}")')
    lines.append("")
    lines.append("    /// Every code `openapi.json` lists.")
    lines.append("    public static let known: Set<ErrorCode> = [")
    for code in sorted(codes):
        lines.append(f"        .{camel(code)},")
    lines.append("    ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openapi", type=Path, default=DEFAULT_OPENAPI)
    parser.add_argument("--check", action="store_true")
    arguments = parser.parse_args()
    text = render(json.loads(arguments.openapi.read_text()))
    if arguments.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(PACKAGE)} is not current: run python3 tools/generate-error-codes.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
