"""Integration tests need a running passkeyd (scripts/test/python-client-test.sh starts one): PASSKEYD_URL,
PASSKEYD_API_KEY, PASSKEYD_ADMIN_KEY, and PASSKEYD_SOFTKEY (the passkeyd-softkey binary: a software authenticator
that answers begin options with a credential). Without them those tests are skipped; the openapi.json checks run
anyway."""

import json
import os
import subprocess
import uuid

import pytest

from passkeyd_client import PasskeydClient

URL = os.environ.get("PASSKEYD_URL")
SOFTKEY = os.environ.get("PASSKEYD_SOFTKEY")
needs_server = pytest.mark.skipif(not (URL and SOFTKEY), reason="PASSKEYD_URL and PASSKEYD_SOFTKEY not set")


@pytest.fixture
def client():
    return PasskeydClient(URL, api_key=os.environ.get("PASSKEYD_API_KEY"), admin_key=os.environ.get("PASSKEYD_ADMIN_KEY"))


class Authenticator:
    """passkeyd-softkey with one key file: `register` and `sign` take begin options, return the credential JSON."""

    def __init__(self, directory, origin):
        self.key = os.path.join(directory, f"key-{uuid.uuid4().hex}.json")
        self.origin = origin

    def _run(self, command, options, extra=()):
        output = subprocess.run(
            [SOFTKEY, command, "--key", self.key, "--origin", self.origin, *extra],
            input=json.dumps({"publicKey": options}).encode(), capture_output=True, check=True,
        ).stdout
        return json.loads(output)["credential"]

    def register(self, options, silently=False):
        """``silently``: as a passkey provider answers a conditional create (UP=0, UV=0)."""
        return self._run("register", options, ["--up", "0", "--uv", "0"] if silently else [])

    def sign(self, options):
        return self._run("sign", options)


@pytest.fixture
def authenticator(tmp_path):
    return Authenticator(str(tmp_path), os.environ.get("PASSKEYD_ORIGIN", "http://localhost:8080"))


def unique(prefix="user"):
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
