"""The README's example is tested, not just written. The block between ``<!-- example:python …-->`` and
``<!-- /example:python -->`` in clients/python/README.md is the same in passkeyd's README.md and docs/clients.md, and
its code (the region's last fenced block) runs: a passkey sign-in's server side against a real passkeyd, with
passkeyd-softkey as the page's authenticator (scripts/test/python-client-test.sh starts one; skipped without it,
as the other live tests are)."""

import os
import re
from pathlib import Path

import pytest

from passkeyd_client import ErrorCode, PasskeydClient, PasskeydError

from .conftest import needs_server, unique

CLIENT = Path(__file__).resolve().parents[1]
REPOSITORY = CLIENT.parents[1]
LANGUAGE = "python"


def region(path: Path) -> str:
    """The text between the example's markers in a Markdown file (exactly one such region)."""
    pattern = rf"^<!-- example:{LANGUAGE}\b[^\n]*-->\n(.*?)\n<!-- /example:{LANGUAGE} -->$"
    found = re.findall(pattern, path.read_text(), re.DOTALL | re.MULTILINE)
    assert len(found) == 1, f"{path}: expected one <!-- example:{LANGUAGE} --> region, found {len(found)}"
    return found[0]


def example_code() -> str:
    """The region's last fenced code block: the example (the ones before it are the install lines)."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", region(CLIENT / "README.md"), re.DOTALL | re.MULTILINE)
    assert blocks, "no fenced code block in the README's example region"
    return blocks[-1]


@pytest.mark.parametrize("page", ["README.md", "docs/clients.md"])
def test_the_repository_pages_show_the_same_example(page):
    path = REPOSITORY / page
    if not path.exists():
        pytest.skip(f"{page}: not beside this client (a copy outside passkeyd's repository)")
    assert region(path) == region(CLIENT / "README.md"), f"{page}'s example differs from clients/python/README.md's"


def test_the_example_compiles():
    compile(example_code(), "clients/python/README.md example", "exec")


@needs_server
def test_the_example_signs_in(authenticator):
    # A user with a passkey of `authenticator`, made with a client of the test's own.
    with PasskeydClient(os.environ["PASSKEYD_URL"], api_key=os.environ.get("PASSKEYD_API_KEY")) as setup:
        begun = setup.registration_begin(user_name=unique("readme"))
        user_id = setup.registration_finish(authenticator.register(begun))["user"]["id"]

    example: dict = {"__name__": "readme_example"}
    exec(compile(example_code(), "clients/python/README.md example", "exec"), example)  # reads PASSKEYD_URL, _API_KEY
    try:
        options = example["begin_sign_in"]()              # → the page
        assert "allowCredentials" not in options["publicKey"] or options["publicKey"]["allowCredentials"] == []
        credential = authenticator.sign(options)          # the page's credential
        assert example["finish_sign_in"](credential) == user_id
        with pytest.raises(PasskeydError) as replayed:    # "refused: raises PasskeydError (.status, .code)"
            example["finish_sign_in"](credential)
        assert replayed.value.status == 400 and replayed.value.code is ErrorCode.CHALLENGE_UNKNOWN_OR_EXPIRED
    finally:
        example["passkeyd"].close()
