"""MkDocs hooks for the passkeyd documentation site.

- reference.md is rendered at build time from Sources/PasskeyHTTP/Resources/openapi.json: every operation with its
  method, path, summary, description, parameters, request and response schema names and error codes. The file in
  docs/ is only a stub for readers on GitHub; it is never edited by hand.
- benchmark-results.md is ../BENCHMARKS.md (which stays at the repository root), added to the site as a generated
  page; links to ../BENCHMARKS.md in the pages are pointed at it.
"""

from __future__ import annotations

import json
import os
import re

from mkdocs.structure.files import File

REFERENCE_PAGE = "reference.md"
BENCHMARKS_PAGE = "benchmark-results.md"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _root(config) -> str:
    return os.path.dirname(os.path.abspath(config["config_file_path"]))


def on_files(files, config):
    path = os.path.join(_root(config), "BENCHMARKS.md")
    with open(path, encoding="utf-8") as handle:
        content = handle.read()
    note = (
        "\n\n---\n\n*This page is `BENCHMARKS.md` from the repository root, the summary `scripts/loadbench.sh` "
        "writes; how the runs are made is on the [benchmark page](benchmark.md).*\n"
    )
    files.append(File.generated(config, BENCHMARKS_PAGE, content=content + note))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == REFERENCE_PAGE:
        return render_reference(os.path.join(_root(config), "Sources/PasskeyHTTP/Resources/openapi.json"))
    return markdown.replace("](../BENCHMARKS.md", "](" + BENCHMARKS_PAGE)


# ---- the API reference ----

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def text(value: str) -> str:
    """Description text as Markdown: angle brackets outside code spans are escaped, so `<accessToken>`-like
    placeholders are shown rather than taken for HTML."""
    parts = _CODE_SPAN.split(value or "")
    for index in range(0, len(parts), 2):
        parts[index] = parts[index].replace("<", "&lt;").replace(">", "&gt;")
    return "".join(parts)


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        pointer = node["$ref"]
        if not pointer.startswith("#/"):
            raise ValueError("external $ref not supported: " + pointer)
        node = document
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def ref_name(node) -> str | None:
    if isinstance(node, dict) and "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    return None


def schema_name(schema) -> str:
    """A schema's name as the document gives it: the component it refers to, else its shape."""
    if not schema:
        return "—"
    name = ref_name(schema)
    if name:
        return f"`{name}`"
    for key in ("allOf", "oneOf", "anyOf"):
        if key in schema:
            names = [schema_name(item) for item in schema[key]]
            joiner = " + " if key == "allOf" else " or "
            return joiner.join(names)
    if schema.get("type") == "array":
        return "array of " + schema_name(schema.get("items"))
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    return f"inline {kind}"


def error_codes(schema) -> list[str]:
    try:
        return list(schema["properties"]["error"]["properties"]["code"]["enum"])
    except (KeyError, TypeError):
        return []


def render_reference(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    info = document["info"]
    tags = [tag["name"] for tag in document.get("tags", [])]
    by_tag: dict[str, list] = {tag: [] for tag in tags}
    count = 0
    for route, item in document["paths"].items():
        shared = item.get("parameters", [])
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            tag = (operation.get("tags") or ["Other"])[0]
            by_tag.setdefault(tag, []).append((route, method, operation, shared))
            count += 1

    out = [
        "# API reference",
        "",
        f"Generated when the site is built from `Sources/PasskeyHTTP/Resources/openapi.json` (OpenAPI "
        f"{document['openapi']}, {info['title']} {info['version']}): {count} operations. A running passkeyd serves the "
        "same document at `GET /openapi.json`, cut to the operations its configuration routes. The "
        "[HTTP API overview](http-api.md) has the same endpoints in one table.",
        "",
        text(info.get("description", "")),
        "",
    ]
    for tag in by_tag:
        operations = by_tag[tag]
        if not operations:
            continue
        out += [f"## {tag}", ""]
        for route, method, operation, shared in operations:
            out += render_operation(document, route, method, operation, shared)
    schemas = sorted(document.get("components", {}).get("schemas", {}))
    out += [
        "## Schemas",
        "",
        "The schemas named above are in `components/schemas` of the document: " + ", ".join(f"`{name}`" for name in schemas) + ".",
        "",
    ]
    return "\n".join(out)


def render_operation(document, route, method, operation, shared) -> list[str]:
    out = [f"### `{method.upper()} {route}`", ""]
    summary = operation.get("summary")
    if summary:
        out += [f"**{text(summary)}** (`{operation.get('operationId', '')}`)", ""]
    if operation.get("description"):
        out += [text(operation["description"]), ""]
    security = operation.get("security", document.get("security"))
    if security is not None:
        schemes = [" + ".join(requirement) or "none" for requirement in security]
        out += ["- Authorization: " + (", or ".join(f"`{scheme}`" if scheme != "none" else "none" for scheme in schemes) or "none")]
    parameters = [resolve(document, parameter) for parameter in list(shared) + operation.get("parameters", [])]
    for parameter in parameters:
        required = "required" if parameter.get("required") else "optional"
        description = text(parameter.get("description", "")).replace("\n", " ")
        out += [f"- Parameter `{parameter['name']}` ({parameter['in']}, {required}): {description}"]
    body = operation.get("requestBody")
    if body:
        body = resolve(document, body)
        for media, content in body.get("content", {}).items():
            required = "required" if body.get("required") else "optional"
            out += [f"- Request body ({required}, `{media}`): {schema_name(content.get('schema'))}"]
    out += ["", "| status | schema | codes | meaning |", "|---|---|---|---|"]
    for status, response in operation.get("responses", {}).items():
        shared_name = ref_name(response)
        response = resolve(document, response)
        schemas, codes = [], []
        for media, content in response.get("content", {}).items():
            schema = content.get("schema")
            schemas.append(schema_name(schema) + ("" if media == "application/json" else f" (`{media}`)"))
            codes += error_codes(resolve(document, schema) if ref_name(schema) else schema)
        meaning = text(response.get("description", "")).replace("\n", " ").replace("|", "\\|")
        if shared_name:
            meaning = f"{meaning} (`{shared_name}`)"
        code_text = ", ".join(f"`{code}`" for code in codes) or "—"
        out += [f"| {status} | {', '.join(schemas) or '—'} | {code_text} | {meaning} |"]
    out += [""]
    return out
