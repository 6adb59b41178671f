"""Every operation of openapi.json has its method in both clients, and every method an operation; each method sends
its operation's HTTP method and path, with the right credential, and only members and parameters the document
names (answered by httpx's MockTransport: no server needed). An operation added to openapi.json without a client
method, or a method whose operation went away, fails here."""

import asyncio
import inspect
import json
import os
import re
import typing
from pathlib import Path

import httpx
import pytest

from passkeyd_client import OPERATIONS, AsyncPasskeydClient, NO_RETRY, PasskeydClient
from passkeyd_client._operations import snake_case

DOCUMENT = Path(
    os.environ.get("PASSKEYD_OPENAPI", Path(__file__).resolve().parents[3] / "Sources/PasskeyHTTP/Resources/openapi.json")
)
# The public members of the clients that are not operations.
NOT_OPERATIONS = {PasskeydClient: {"close", "with_options"}, AsyncPasskeydClient: {"aclose", "with_options"}}
CLIENTS = [PasskeydClient, AsyncPasskeydClient]


@pytest.fixture(scope="module")
def document():
    return json.loads(DOCUMENT.read_text())


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def operations(document):
    """operationId → (method, path, operation)."""
    found = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                found[operation["operationId"]] = (method.upper(), path, operation, item.get("parameters", []))
    return found


def methods(client):
    return {name for name, member in vars(client).items() if callable(member) and not name.startswith("_")}


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.__name__)
def test_every_operation_has_a_method_and_every_method_an_operation(document, client):
    wanted = {snake_case(operation_id): operation_id for operation_id in operations(document)}
    assert len(wanted) == len(operations(document)), "two operationIds with one snake_case name"
    have = methods(client) - NOT_OPERATIONS[client]
    missing = sorted(f"{wanted[name]} ({name})" for name in set(wanted) - have)
    extra = sorted(set(have) - set(wanted))
    assert not missing and not extra, (
        f"{client.__name__}: operations without a method: {missing}; methods without an operation: {extra}"
    )
    for name in wanted:
        assert inspect.iscoroutinefunction(getattr(client, name)) == (client is AsyncPasskeydClient), name


def test_the_operation_table_follows_the_document(document):
    found = operations(document)
    assert set(OPERATIONS) == {snake_case(o) for o in found}
    for name, operation in OPERATIONS.items():
        method, path, described, _ = found[operation.operation_id]
        assert (operation.method, operation.path) == (method, path), name
        schemes = {scheme for requirement in described.get("security", []) for scheme in requirement}
        assert set(operation.auth) == schemes, f"{name}: {operation.auth} vs {schemes}"


def test_method_names_are_the_operation_ids_in_snake_case():
    assert snake_case("getOpenAPIDocument") == "get_open_api_document"
    assert snake_case("getSessionJWKS") == "get_session_jwks"
    assert snake_case("idTokenBegin") == "id_token_begin"
    assert snake_case("adminRevokeUserSessions") == "admin_revoke_user_sessions"


# ---- every method sends its operation ----

# Choices a call makes between members: these parameters are left out (the others all given).
LEFT_OUT = {
    "registration_begin": {"user_id"},
    "authentication_begin": {"user_id"},
    "id_token_finish": {"user_id"},
    "revoke_session": {"access_token"},
    "create_handoff_code": {"access_token"},
}


def argument(name, annotation):
    text = str(annotation)
    if name in ("credential",):
        return {"id": "Y3JlZA", "rawId": "Y3JlZA", "type": "public-key", "response": {}}
    if name == "access_token":
        return "the-access-token"
    if "datetime" in text:
        return "2026-01-01T00:00:00Z"
    if "Sequence" in text:
        return ["security-key"]
    if "Mapping" in text:
        return {"credProps": True}
    if "bool" in text:
        return True
    if "int" in text:
        return 7
    return f"v-{name}"


def arguments(function, name):
    args, kwargs = [], {}
    hints = typing.get_type_hints(function)
    for parameter in list(inspect.signature(function).parameters.values())[1:]:
        if parameter.name in LEFT_OUT.get(name, ()):
            continue
        value = argument(parameter.name, hints.get(parameter.name))
        if parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return args, kwargs


def members_of(document, schema):
    schema = resolve(document, schema)
    properties = dict(schema.get("properties", {}))
    required = set(schema.get("required", []))
    for part in schema.get("allOf", []):
        more, more_required = members_of(document, part)
        properties.update(more)
        required |= more_required
    return {k for k, v in properties.items() if v is not False}, required


def answer_for(operation):
    successes = sorted(int(status) for status in operation["responses"] if int(status) < 300)
    status = successes[0]
    if status == 204:
        return httpx.Response(204)
    media = next(iter(operation["responses"][str(status)].get("content", {"application/json": {}})))
    if media.startswith("text/"):
        return httpx.Response(status, text="# metrics\n", headers={"Content-Type": media})
    return httpx.Response(status, json={"answer": operation["operationId"]})


@pytest.mark.parametrize("client_class", CLIENTS, ids=lambda c: c.__name__)
def test_every_method_sends_its_operation(document, client_class):
    found = operations(document)
    sent = []

    def handler(request):
        sent.append(request)
        return answer_for(handler.operation)

    transport = httpx.MockTransport(handler)
    client = client_class("http://passkeyd.test/base", api_key="the-api-key", admin_key="the-admin-key",
                          transport=transport, retry=NO_RETRY)
    for name, operation in OPERATIONS.items():
        method, path, described, shared_parameters = found[operation.operation_id]
        handler.operation = described
        function = getattr(client_class, name)
        args, kwargs = arguments(function, name)
        sent.clear()
        answer = getattr(client, name)(*args, **kwargs)
        if inspect.isawaitable(answer):
            answer = asyncio.run(answer)
        assert len(sent) == 1, name
        request = sent[0]
        assert request.method == method, name
        parameters = [resolve(document, p) for p in shared_parameters + described.get("parameters", [])]
        # A path parameter is the argument of its name (userId: user_id), whose value here is "v-user_id".
        expected_path = re.sub(r"\{(\w+)\}", lambda m: "v-" + snake_case(m.group(1)), path)
        assert request.url.path == "/base" + expected_path, name
        query = {p["name"] for p in parameters if p["in"] == "query"}
        assert set(request.url.params) <= query, f"{name}: {set(request.url.params) - query}"
        assert set(request.url.params) == query, f"{name}: every query parameter is reachable"
        # The credential: the access token where the call takes one, else the operation's key, else none.
        authorization = request.headers.get("Authorization")
        schemes = {scheme for requirement in described.get("security", []) for scheme in requirement}
        if "the-access-token" in args or "access_token" in kwargs:
            assert authorization == "Bearer the-access-token", name
        elif "adminKey" in schemes:
            assert authorization == "Bearer the-admin-key", name
        elif "apiKey" in schemes:
            assert authorization == "Bearer the-api-key", name
        else:
            assert authorization is None, name
        # The body: only the members the request schema names, the required ones there.
        if "requestBody" in described:
            schema = resolve(document, described["requestBody"])["content"]["application/json"]["schema"]
            allowed, required = members_of(document, schema)
            if request.content:
                body = json.loads(request.content)
                if allowed:
                    assert set(body) <= allowed, f"{name}: {set(body) - allowed}"
                    assert required <= set(body), f"{name}: {required - set(body)}"
            else:
                assert not resolve(document, described["requestBody"]).get("required"), f"{name}: a body is required"
        else:
            assert not request.content, name
        # The answer: None for 204, the text for text/plain, else the JSON.
        expected = answer_for(described)
        if expected.status_code == 204:
            assert answer is None, name
        elif expected.headers.get("Content-Type", "").startswith("text/"):
            assert answer == "# metrics\n", name
        else:
            assert answer == {"answer": operation.operation_id}, name


@pytest.mark.parametrize("client_class", CLIENTS, ids=lambda c: c.__name__)
def test_the_other_credential_choices(client_class):
    sent = []
    transport = httpx.MockTransport(lambda request: sent.append(request) or httpx.Response(201, json={}))
    client = client_class("http://passkeyd.test", api_key="the-api-key", transport=transport)

    def call(answer):
        return asyncio.run(answer) if inspect.isawaitable(answer) else answer

    call(client.revoke_session(access_token="the-access-token"))
    assert sent[-1].headers["Authorization"] == "Bearer the-access-token" and not sent[-1].content
    call(client.revoke_session(refresh_token="pkd_rt_x"))
    assert "Authorization" not in sent[-1].headers and json.loads(sent[-1].content) == {"refreshToken": "pkd_rt_x"}
    call(client.create_handoff_code(access_token="the-access-token", code_challenge="c"))
    assert sent[-1].headers["Authorization"] == "Bearer the-access-token"
    assert json.loads(sent[-1].content) == {"codeChallenge": "c"}
    call(client.registration_begin(user_id="dXNlcg", mediation="conditional"))
    assert json.loads(sent[-1].content) == {"user": {"id": "dXNlcg"}, "mediation": "conditional"}
    call(client.admin_get_user("a/b c"))
    assert sent[-1].url.raw_path == b"/v1/admin/users/a%2Fb%20c" and "Authorization" not in sent[-1].headers
    for wrong in (
        lambda: client.revoke_session(),
        lambda: client.revoke_session(refresh_token="a", access_token="b"),
        lambda: client.registration_begin(),
        lambda: client.registration_begin(user_name="a", user_id="b"),
        lambda: client.registration_begin(user_id="b", display_name="B"),
        lambda: client.create_handoff_code(),
        lambda: client.admin_get_user(""),
    ):
        with pytest.raises(ValueError):
            call(wrong())
