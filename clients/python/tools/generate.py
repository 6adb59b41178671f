#!/usr/bin/env python3
"""Writes the client's generated modules; ``--check`` fails (exit 1) when a committed one is not what it would write.

- ``passkeyd_client/codes.py``: ``ErrorCode``, every stable error code of openapi.json. Per error response (4xx/5xx
  of every operation, and every response under ``components.responses``, which include the answers to any path such
  as ``route_unknown``): the ``error.code`` ``enum`` of its schema when it has one (passkeyd's document lists one on
  every error response); only for a response without it, the codes its ``description`` names in backquotes and its
  examples carry. Each member's comment lists the HTTP statuses it comes with.
- ``passkeyd_client/models.py``: a ``TypedDict`` for every object schema under ``components.schemas``, its keys exactly
  the schema's properties (required ones required), named as the schema.
- ``passkeyd_client/_client.py``: the synchronous ``PasskeydClient``, written from the asynchronous one
  (``_async_client.py``, the only one edited by hand) by replacing its async constructs, as httpcore's unasync does.

    python3 tools/generate.py [--openapi PATH] [--check]

openapi.json: ``--openapi``, else ``$PASSKEYD_OPENAPI``, else the repository's
``Sources/PasskeyHTTP/Resources/openapi.json``. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

CLIENT = Path(__file__).resolve().parents[1]
PACKAGE = CLIENT / "passkeyd_client"
DEFAULT_OPENAPI = CLIENT.parents[1] / "Sources/PasskeyHTTP/Resources/openapi.json"
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
QUOTED = re.compile(r"`([a-z][a-z0-9_]*)`")


def resolve(document: Dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


# ---- error codes ----


def response_codes(document: Dict[str, Any], response: Dict[str, Any]) -> Tuple[Set[str], str]:
    """The codes of one error response, and where they came from: "enum" (its schema's error.code enum) or
    "description" (backquoted codes of its description, and its examples' codes)."""
    response = resolve(document, response)
    media = response.get("content", {}).get("application/json", {})
    schema = resolve(document, media.get("schema", {}))
    enum = schema.get("properties", {}).get("error", {}).get("properties", {}).get("code", {}).get("enum")
    if enum:
        return {code for code in enum if isinstance(code, str)}, "enum"
    codes = set(QUOTED.findall(response.get("description", "")))
    examples = [media.get("example")] + [resolve(document, e).get("value") for e in media.get("examples", {}).values()]
    for example in examples:
        if isinstance(example, dict) and isinstance(example.get("error"), dict):
            codes.add(example["error"].get("code"))
    return {code for code in codes if isinstance(code, str) and CODE.match(code)}, "description"


def error_codes(document: Dict[str, Any]) -> Tuple[Dict[str, Set[int]], Dict[str, int]]:
    """Every code with its statuses, and how many error responses each source gave codes for."""
    codes: Dict[str, Set[int]] = {}
    sources = {"enum": 0, "description": 0}
    responses: List[Tuple[int, Any]] = []
    for item in document["paths"].values():
        for method, operation in item.items():
            if method == "parameters":
                continue
            responses += [(int(status), r) for status, r in operation["responses"].items() if int(status) >= 400]
    for response in document["components"].get("responses", {}).values():
        found = resolve(document, response).get("content", {}).get("application/json", {}).get("schema")
        if found is not None and '"#/components/schemas/Error"' in json.dumps(found):
            responses.append((0, response))  # status unknown here: taken from the operations that use it
    for status, response in responses:
        found, source = response_codes(document, response)
        sources[source] += 1
        for code in found:
            codes.setdefault(code, set())
            if status:
                codes[code].add(status)
    # A code only listed under components.responses: its status from the response's name is not known, so from the
    # operations that refer to it; RouteUnknown / MethodNotAllowed answer any path, by their names' HTTP meanings.
    fixed = {"route_unknown": 404, "method_not_allowed": 405}
    for code, status in fixed.items():
        if code in codes and not codes[code]:
            codes[code].add(status)
    return codes, sources


def codes_module(document: Dict[str, Any]) -> str:
    codes, sources = error_codes(document)
    lines = [
        '"""Every stable error code of passkeyd\'s HTTP API (``PasskeydError.code``), from openapi.json.',
        "",
        "Generated by tools/generate.py (do not edit; tests/test_generated.py checks it is current). Source: each",
        f"error response's ``error.code`` enum ({sources['enum']} responses), else the codes its description names "
        f"({sources['description']} responses).",
        "A server newer than this client may send a code not listed here: ``PasskeydError.code`` is then the",
        "plain string, so compare with ``==`` (an ``ErrorCode`` equals its string) or look it up with",
        '``ErrorCode.parse``."""',
        "",
        "from enum import Enum",
        "from typing import Union",
        "",
        "",
        "class ErrorCode(str, Enum):",
        '    """A stable snake_case error code; the comment gives the HTTP statuses it comes with."""',
        "",
    ]
    for code in sorted(codes):
        statuses = ", ".join(str(s) for s in sorted(codes[code])) or "status not documented"
        lines.append(f'    {code.upper()} = "{code}"  # {statuses}')
    lines += [
        "",
        "    def __str__(self) -> str:",
        "        return str(self.value)",
        "",
        "    @classmethod",
        '    def parse(cls, code: str) -> Union["ErrorCode", str]:',
        '        """The member for a known code, else the string itself (a code newer than this client)."""',
        "        try:",
        "            return cls(code)",
        "        except ValueError:",
        "            return code",
        "",
    ]
    return "\n".join(lines)


# ---- models ----

ALIASES = {
    # Names the client used before the models were generated, for the inline objects they name.
    "Provider": "CredentialProvider",
    "UnknownCredentialSignal": "ErrorSignal",
}


class Models:
    def __init__(self, document: Dict[str, Any]) -> None:
        self.document = document
        self.schemas: Dict[str, Any] = document["components"]["schemas"]
        self.classes: Dict[str, str] = {}  # name → source
        self.order: List[str] = []
        self.aliases: Dict[str, str] = {}

    def object_schema(self, schema: Dict[str, Any]) -> Optional[Tuple[Dict[str, Any], Set[str]]]:
        """(properties, required) of an object schema, allOf parts merged; oneOf objects merged with only the keys
        every alternative requires required. None when it is no object with properties."""
        schema = resolve(self.document, schema)
        if "allOf" in schema:
            properties: Dict[str, Any] = dict(schema.get("properties", {}))
            required = set(schema.get("required", []))
            for part in schema["allOf"]:
                merged = self.object_schema(part)
                if merged:
                    properties.update(merged[0])
                    required |= merged[1]
            return properties, required
        if "properties" in schema:
            return dict(schema["properties"]), set(schema.get("required", []))
        alternatives = [self.object_schema(a) for a in schema.get("oneOf", [])]
        if alternatives and all(alternatives):
            properties = {}
            for alternative in alternatives:
                properties.update(alternative[0])  # type: ignore[index]
            required = set.intersection(*(a[1] for a in alternatives))  # type: ignore[index]
            return properties, required
        return None

    def python_type(self, schema: Any, owner: str, member: str) -> str:
        if schema is True or schema == {}:
            return "Any"
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            target = self.schemas[name]
            if self.object_schema(target) is not None:
                return f'"{name}"'
            return self.python_type({k: v for k, v in target.items() if k != "description"}, owner, member)
        for key in ("anyOf", "oneOf"):
            if key in schema and "properties" not in schema:
                alternatives = schema[key]
                nullable = any(a.get("type") == "null" for a in alternatives)
                rest = [a for a in alternatives if a.get("type") != "null"]
                inner = self.python_type(rest[0], owner, member) if len(rest) == 1 else "Dict[str, Any]"
                return f"Optional[{inner}]" if nullable else inner
        types = schema.get("type", [])
        types = [types] if isinstance(types, str) else list(types)
        nullable = "null" in types
        types = [t for t in types if t != "null"]
        if not types and "enum" in schema:
            types = sorted({type(v).__name__ for v in schema["enum"] if v is not None})
            types = [{"str": "string", "int": "integer", "bool": "boolean"}.get(t, "object") for t in types]
        if len(types) == 1 and types[0] == "object" and "properties" in schema:
            inner = f'"{self.inline(owner, member, schema)}"'
        elif len(types) == 1:
            inner = {
                "string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "Dict[str, Any]",
            }.get(types[0], "")
            if types[0] == "array":
                items = schema.get("items", {})
                item = "Dict[str, Any]" if "properties" in items else self.python_type(items, owner, member)
                inner = f"List[{item}]"
        else:
            inner = "Any"
        if not inner:
            inner = "Any"
        return f"Optional[{inner}]" if nullable else inner

    def inline(self, owner: str, member: str, schema: Dict[str, Any]) -> str:
        name = owner + member[0].upper() + member[1:]
        if member[0].upper() + member[1:] == owner:
            name = owner + "Detail"  # Error.error: ErrorDetail
        if name not in self.classes:
            self.add(name, schema)
        return name

    def add(self, name: str, schema: Dict[str, Any]) -> None:
        merged = self.object_schema(schema)
        assert merged is not None, name
        properties, required = merged
        self.classes[name] = ""  # reserved: an inline object may refer back
        fields = []
        for member, member_schema in properties.items():
            if member_schema is False:
                continue  # a member the schema forbids
            assert member.isidentifier() and not keyword.iskeyword(member), f"{name}.{member}"
            kind = self.python_type(member_schema, name, member)
            fields.append((member, kind if member in required else f"NotRequired[{kind}]", member_schema))
        out = [f"class {name}(TypedDict):"]
        description = resolve(self.document, schema).get("description")
        if description:
            out.append(docstring(description, "    "))
            out.append("")
        if not fields:
            out.append("    pass")
        for member, kind, member_schema in fields:
            text = member_schema.get("description") if isinstance(member_schema, dict) else None
            if text:
                out += textwrap.wrap(text, 116, initial_indent="    # ", subsequent_indent="    # ")
            out.append(f"    {member}: {kind}")
        self.classes[name] = "\n".join(out)
        self.order.append(name)

    def module(self) -> str:
        for name, schema in self.schemas.items():
            if self.object_schema(schema) is not None and name not in self.classes:
                self.add(name, schema)
        scalars = []
        for name, schema in self.schemas.items():
            if self.object_schema(schema) is None and not schema.get("oneOf"):
                plain = {k: v for k, v in schema.items() if k != "description"}
                scalars.append(f"{name} = {self.python_type(plain, name, '')}")
        head = [
            '"""The JSON shapes of passkeyd\'s API as TypedDicts: one per object schema of openapi.json, named as the',
            "schema, its keys exactly the schema's properties (the optional ones NotRequired).",
            "",
            "Generated by tools/generate.py (do not edit; tests/test_generated.py checks it is current). No",
            '`from __future__ import annotations`: TypedDict must see NotRequired itself to know the optional keys."""',
            "",
            "from typing import Any, Dict, List, NotRequired, Optional, TypedDict",
            "",
        ]
        body = [self.classes[name] for name in self.order]
        aliases = [f"{alias} = {target}" for alias, target in ALIASES.items() if target in self.classes]
        return "\n".join(head + scalars + ["", ""] + ["\n\n\n".join(body), "", ""] + aliases) + "\n"


def docstring(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = textwrap.wrap(text, 116 - len(indent), break_long_words=False, break_on_hyphens=False)
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""'
    return "\n".join([f'{indent}"""{lines[0]}'] + [indent + line for line in lines[1:]] + [f'{indent}"""'])


# ---- the synchronous client, from the asynchronous one ----

UNASYNC = [
    (r"\bAsyncPasskeydClient\b", "PasskeydClient"),
    (r"\bhttpx\.AsyncClient\b", "httpx.Client"),
    (r"\bhttpx\.AsyncBaseTransport\b", "httpx.BaseTransport"),
    (r"\basync def __aenter__\b", "def __enter__"),
    (r"\basync def __aexit__\b", "def __exit__"),
    (r"\basync def aclose\b", "def close"),
    (r"\.aclose\(\)", ".close()"),
    (r"``aclose``", "``close``"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
    (r"\basync_sleep\b", "sleep"),
    (r"\bAwaitable\[(\w+)\]", r"\1"),
    (r"the asynchronous client", "the synchronous client"),
    (r"\basync with\b", "with"),
]


SYNC_DOCSTRING = '''"""The synchronous client: one method per operation of passkeyd's openapi.json (its operationId in
snake_case).

Generated by tools/generate.py from _async_client.py (do not edit: edit that file and run the generator;
tests/test_generated.py checks this one is current).
"""'''


def sync_client(source: str) -> str:
    match = re.match(r'"""(?:.|\n)*?"""', source)
    assert match, "_async_client.py starts with its docstring"
    body = source[match.end():]
    for pattern, replacement in UNASYNC:
        body = re.sub(pattern, replacement, body)
    return SYNC_DOCSTRING + body


# ---- main ----


def outputs(openapi: Path) -> Dict[Path, str]:
    document = json.loads(openapi.read_text())
    return {
        PACKAGE / "codes.py": codes_module(document),
        PACKAGE / "models.py": Models(document).module(),
        PACKAGE / "_client.py": sync_client((PACKAGE / "_async_client.py").read_text()),
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openapi", type=Path, default=Path(os.environ.get("PASSKEYD_OPENAPI", DEFAULT_OPENAPI)))
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs(args.openapi).items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path.relative_to(CLIENT))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(CLIENT)}")
    if stale:
        print(f"stale (run python3 tools/generate.py): {', '.join(map(str, stale))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
