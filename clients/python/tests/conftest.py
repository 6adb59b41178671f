"""Shared by the tests. The live ones need a running passkeyd (scripts/test/python-client-test.sh starts one, with
sessions, ID tokens, the App Store and App Attest configured) and say where through the environment:

    PASSKEYD_URL, PASSKEYD_API_KEY, PASSKEYD_ADMIN_KEY   the server and its keys
    PASSKEYD_SOFTKEY, PASSKEYD_ORIGIN                    passkeyd-softkey (a software authenticator) and its origin
    PASSKEYD_IDP, PASSKEYD_IDP_DIR                       passkeyd-idp and its key directory (the server trusts it for
                                                         provider "apple", client id com.example.app)
    PASSKEYD_STOREKIT_CERTS                              the vectors' apple/storekit/certs (the server trusts testCA)
    PASSKEYD_APPATTEST_DEVICE, PASSKEYD_APPATTEST_APP_ID a passkeyd-softkey App Attest device the server trusts

Without PASSKEYD_URL and PASSKEYD_SOFTKEY the live tests are skipped (unless PASSKEYD_LIVE_REQUIRED is set, as the
stage script sets it: then they fail); the others need no server."""

import asyncio
import inspect
import json
import os
import subprocess
import uuid
from typing import Any, Callable

import pytest

from passkeyd_client import AsyncPasskeydClient, PasskeydClient

URL = os.environ.get("PASSKEYD_URL")
SOFTKEY = os.environ.get("PASSKEYD_SOFTKEY")
needs_server = pytest.mark.skipif(
    not (URL and SOFTKEY) and not os.environ.get("PASSKEYD_LIVE_REQUIRED"),
    reason="PASSKEYD_URL and PASSKEYD_SOFTKEY not set",
)


def unique(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def run(command: list, stdin: Any = None) -> str:
    return subprocess.run(
        command, input=None if stdin is None else json.dumps(stdin).encode(), capture_output=True, check=True
    ).stdout.decode()


class Authenticator:
    """passkeyd-softkey with one key file: `register` and `sign` take begin options, return the credential JSON."""

    def __init__(self, directory: str, origin: str) -> None:
        self.key = os.path.join(directory, f"key-{uuid.uuid4().hex}.json")
        self.origin = origin

    def _run(self, command: str, options: Any, extra: tuple = ()) -> Any:
        # softkey reads a begin answer ({"publicKey": …}); take either that answer or its options.
        answer = options if "publicKey" in options else {"publicKey": options}
        output = run([SOFTKEY, command, "--key", self.key, "--origin", self.origin, *extra], answer)
        return json.loads(output)["credential"]

    def register(self, options: Any, silently: bool = False) -> Any:
        """``silently``: as a passkey provider answers a conditional create (UP=0, UV=0)."""
        return self._run("register", options, ("--up", "0", "--uv", "0") if silently else ())

    def sign(self, options: Any) -> Any:
        return self._run("sign", options)


@pytest.fixture
def authenticator(tmp_path):
    return Authenticator(str(tmp_path), os.environ.get("PASSKEYD_ORIGIN", "http://localhost:8080"))


class Awaiting:
    """Either client behind one face for the live walkthroughs: every method returns an awaitable, so one
    ``async def`` test body drives the synchronous client (whose calls simply run) and the asynchronous one."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Callable:
        method = getattr(self.client, name)
        if not callable(method):
            return method

        async def call(*args: Any, **kwargs: Any) -> Any:
            answer = method(*args, **kwargs)
            return await answer if inspect.isawaitable(answer) else answer

        return call


def live_client(kind: str, **options: Any) -> Any:
    settings = dict(api_key=os.environ.get("PASSKEYD_API_KEY"), admin_key=os.environ.get("PASSKEYD_ADMIN_KEY"))
    settings.update(options)
    return (PasskeydClient if kind == "sync" else AsyncPasskeydClient)(URL, **settings)


@pytest.fixture(params=["sync", "async"])
def walk(request):
    """``walk(body)`` runs ``async def body(passkeyd)`` with the sync or the async client (the test runs twice), the
    client opened and closed as a context manager."""
    kind = request.param

    def go(body: Callable, **options: Any) -> Any:
        async def main() -> Any:
            if kind == "sync":
                with live_client(kind, **options) as client:
                    return await body(Awaiting(client))
            async with live_client(kind, **options) as client:
                return await body(Awaiting(client))

        return asyncio.run(main())

    go.kind = kind  # type: ignore[attr-defined]
    return go
