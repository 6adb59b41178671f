"""The generated modules are current (tools/generate.py --check: codes.py and models.py from openapi.json, _client.py
from _async_client.py), what they hold is what openapi.json says, and the version is pyproject's."""

import importlib.metadata
import json
import subprocess
import sys
import tomllib
import typing
from pathlib import Path

import pytest

import passkeyd_client
from passkeyd_client import ErrorCode, models

from .test_coverage import DOCUMENT, resolve

CLIENT = Path(__file__).resolve().parents[1]


def test_generated_modules_are_current():
    check = subprocess.run(
        [sys.executable, str(CLIENT / "tools/generate.py"), "--check", "--openapi", str(DOCUMENT)],
        capture_output=True, text=True,
    )
    assert check.returncode == 0, check.stderr + check.stdout


def test_error_codes_are_every_code_the_document_lists():
    document = json.loads(DOCUMENT.read_text())
    listed = set()
    responses = [r for item in document["paths"].values() for m, o in item.items() if m != "parameters"
                 for s, r in o["responses"].items() if int(s) >= 400]
    for response in responses + list(document["components"]["responses"].values()):
        media = resolve(document, response).get("content", {}).get("application/json", {})
        error = resolve(document, media.get("schema", {})).get("properties", {}).get("error", {})
        listed |= set(error.get("properties", {}).get("code", {}).get("enum", []))
    assert {code.value for code in ErrorCode} == listed
    assert ErrorCode.USER_EXISTS == "user_exists" and str(ErrorCode.USER_EXISTS) == "user_exists"
    assert json.dumps({"code": ErrorCode.RATE_LIMITED}) == '{"code": "rate_limited"}'
    assert ErrorCode.parse("user_exists") is ErrorCode.USER_EXISTS and ErrorCode.parse("new_code") == "new_code"


def test_the_generator_falls_back_to_descriptions_without_an_enum(tmp_path):
    sys.path.insert(0, str(CLIENT / "tools"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    error = {"$ref": "#/components/schemas/Error"}
    document = {
        "paths": {"/x": {"post": {"operationId": "x", "responses": {
            "409": {"description": "Taken (`user_exists`).", "content": {"application/json": {"schema": error}}},
            "422": {"description": "Refused.", "content": {"application/json": {
                "schema": {"allOf": [error], "properties": {"error": {"properties": {"code": {"enum": ["signature_invalid"]}}}}},
                "example": {"error": {"code": "ignored_with_an_enum", "message": "…"}}}}},
            "400": {"description": "Malformed.", "content": {"application/json": {
                "schema": error, "examples": {"a": {"value": {"error": {"code": "malformed_json", "message": "…"}}}}}}},
        }}}},
        "components": {"schemas": {"Error": {"type": "object"}}, "responses": {}},
    }
    codes, sources = generate.error_codes(document)
    assert codes == {"user_exists": {409}, "signature_invalid": {422}, "malformed_json": {400}}
    assert sources == {"enum": 1, "description": 2}


# The models named as a schema (the others are its inline objects, checked through it).
SCHEMA_MODELS = [n for n, v in vars(models).items() if typing.is_typeddict(v) and n == v.__name__]


@pytest.mark.parametrize("name", SCHEMA_MODELS)
def test_models_have_exactly_the_schema_members(name):
    document = json.loads(DOCUMENT.read_text())
    schemas = document["components"]["schemas"]
    if name not in schemas:
        assert any(name.startswith(owner) for owner in schemas), f"{name}: no schema"
        return
    model = getattr(models, name)
    schema = schemas[name]
    properties = dict(schema.get("properties", {}))
    required = set(schema.get("required", []))
    for part in schema.get("allOf", []):
        part = resolve(document, part)
        properties.update(part.get("properties", {}))
        required |= set(part.get("required", []))
    for alternative in schema.get("oneOf", []):  # Introspection: only what every alternative requires is required
        properties.update(alternative.get("properties", {}))
    if schema.get("oneOf"):
        required = set.intersection(*(set(a.get("required", [])) for a in schema["oneOf"]))
    properties = {k for k, v in properties.items() if v is not False}
    assert set(typing.get_type_hints(model)) == properties
    assert model.__required_keys__ == required & properties


def test_version_is_pyprojects():
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]
    assert passkeyd_client.__version__ == project["version"]
    assert importlib.metadata.version("passkeyd-client") == project["version"]
