"""The Django example against a real passkeyd: sign up, sign out, sign in, add a passkey to the signed-in
account; passkeyd's error codes pass through."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "django_passkeys.settings")

django = pytest.importorskip("django")
django.setup()

from django.test import Client  # noqa: E402

from conftest import Authenticator, needs_server, unique  # noqa: E402

pytestmark = needs_server


@pytest.fixture
def browser():
    return Client()


@pytest.fixture
def authenticator(tmp_path):
    return Authenticator(str(tmp_path), os.environ.get("PASSKEYD_ORIGIN", "http://localhost:8080"))


def post(browser, path, payload):
    return browser.post(path, payload, content_type="application/json")


def test_sign_up_sign_in_and_add_a_passkey(browser, authenticator, tmp_path):
    name = unique("grace")
    begin = post(browser, "/passkeys/register/begin", {"name": name})
    assert begin.status_code == 200
    created = post(browser, "/passkeys/register/finish", {"credential": authenticator.register(begin.json()["publicKey"])})
    assert created.status_code == 201 and created.json()["user"]["name"] == name
    user_id = created.json()["user"]["id"]
    assert browser.get("/passkeys/me").json() == {"userId": user_id}

    post(browser, "/passkeys/signout", {})
    assert browser.get("/passkeys/me").status_code == 401
    options = post(browser, "/passkeys/signin/begin", {}).json()["publicKey"]
    signed_in = post(browser, "/passkeys/signin/finish", {"credential": authenticator.sign(options)})
    assert signed_in.status_code == 200 and signed_in.json()["user"]["id"] == user_id
    assert signed_in.json()["signal"]["allAcceptedCredentialIds"] == [created.json()["credential"]["id"]]

    # A second passkey, for the signed-in account only (by its id from the session).
    second = Authenticator(str(tmp_path), authenticator.origin)
    add = post(browser, "/passkeys/add/begin", {})
    assert add.status_code == 200 and add.json()["publicKey"]["user"]["id"] == user_id
    added = post(browser, "/passkeys/register/finish", {"credential": second.register(add.json()["publicKey"])})
    assert added.status_code == 201 and added.json()["user"]["id"] == user_id


def test_errors_pass_through(browser, authenticator):
    name = unique("alan")
    begin = post(browser, "/passkeys/register/begin", {"name": name}).json()["publicKey"]
    post(browser, "/passkeys/register/finish", {"credential": authenticator.register(begin)})
    taken = post(Client(), "/passkeys/register/begin", {"name": name})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "user_exists"
    # Adding a passkey needs a signed-in user; a name never links.
    assert post(Client(), "/passkeys/add/begin", {"name": name}).status_code == 401
    assertion = authenticator.sign(post(browser, "/passkeys/signin/begin", {"name": name}).json()["publicKey"])
    assert post(browser, "/passkeys/signin/finish", {"credential": assertion}).status_code == 200
    replay = post(browser, "/passkeys/signin/finish", {"credential": assertion})
    assert replay.status_code == 400 and replay.json()["error"]["code"] == "challenge_unknown_or_expired"


def test_passkeyd_unreachable_is_503():
    """No answer from passkeyd (PasskeydConnectionError): 503 passkeyd_unavailable, after the begin's retries."""
    import socket

    from django.test import override_settings

    from passkeys import views

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    views.passkeyd.cache_clear()
    try:
        with override_settings(PASSKEYD_URL=f"http://127.0.0.1:{port}", PASSKEYD_TIMEOUT=2.0):
            answer = post(Client(), "/passkeys/signin/begin", {})
    finally:
        views.passkeyd.cache_clear()
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "passkeyd_unavailable"
