"""The client follows openapi.json: every operation it calls exists there with the same method, path and
operationId, and every TypedDict has exactly the fields of its schema (required ones required). An API change the
client does not follow fails here. No server needed."""

import json
import os
import typing
from pathlib import Path

import pytest

import passkeyd_client
from passkeyd_client import models

DOCUMENT = Path(
    os.environ.get("PASSKEYD_OPENAPI", Path(__file__).resolve().parents[3] / "Sources/PasskeyHTTP/Resources/openapi.json")
)


@pytest.fixture(scope="module")
def document():
    return json.loads(DOCUMENT.read_text())


def resolve(document, schema):
    while "$ref" in schema:
        node = document
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def test_every_operation_exists_with_its_method_path_and_id(document):
    for name, (method, path, operation_id) in passkeyd_client.OPERATIONS.items():
        operation = document["paths"].get(path, {}).get(method.lower())
        assert operation is not None, f"{name}: {method} {path} is not in openapi.json"
        assert operation["operationId"] == operation_id, f"{name}: operationId {operation['operationId']}"
        # Every client method exists.
        assert callable(getattr(passkeyd_client.PasskeydClient, name)), name


SCHEMAS = {
    models.Credential: "Credential",
    models.User: "User",
    models.Provider: ("Credential", "provider"),
    models.AcceptedCredentialsSignal: "AcceptedCredentialsSignal",
    models.UnknownCredentialSignal: ("Error", "signal"),
    models.RegistrationResult: "RegistrationFinishResponse",
    models.AuthenticationResult: "AuthenticationFinishResponse",
}


@pytest.mark.parametrize("model", list(SCHEMAS), ids=lambda m: m.__name__)
def test_models_have_exactly_the_schema_fields(document, model):
    where = SCHEMAS[model]
    if isinstance(where, tuple):
        schema = resolve(document, document["components"]["schemas"][where[0]])["properties"][where[1]]
    else:
        schema = document["components"]["schemas"][where]
    schema = resolve(document, schema)
    fields = set(typing.get_type_hints(model))
    assert fields == set(schema["properties"]), f"{model.__name__}: {fields ^ set(schema['properties'])}"
    assert set(schema.get("required", [])) <= model.__required_keys__, model.__name__
    assert model.__required_keys__ <= set(schema.get("required", [])), model.__name__


def test_request_bodies_use_documented_members(document):
    schemas = document["components"]["schemas"]
    begin = resolve(document, schemas["RegistrationBeginRequest"])
    assert {"user", "authenticatorSelection", "attestation", "extensions", "hints"} <= set(begin["properties"])
    new_user = begin["properties"]["user"]["oneOf"][0]["properties"]
    assert {"name", "displayName"} <= set(new_user)
    assert {"credential", "nickname"} <= set(schemas["RegistrationFinishRequest"]["properties"])
    assert {"user", "userVerification"} <= set(schemas["AuthenticationBeginRequest"]["properties"])
    assert set(schemas["AdminRenameCredentialRequest"]["properties"]) == {"nickname"}
