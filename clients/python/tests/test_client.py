"""The client against a real passkeyd (on PostgreSQL), with a software authenticator."""

import pytest

from passkeyd_client import PasskeydError

from .conftest import needs_server, unique

pytestmark = needs_server


def test_register_sign_in_and_signals(client, authenticator):
    name = unique("ada")
    options = client.registration_begin(user_name=name, display_name="Ada L.")
    assert options["user"]["name"] == name and options["rp"]["id"]
    registered = client.registration_finish(authenticator.register(options), nickname="laptop")
    assert registered["user"]["name"] == name and registered["credential"]["nickname"] == "laptop"
    assert "provider" in registered["credential"]
    user_id = registered["user"]["id"]

    # By name (allowCredentials lists the passkey) and discoverably.
    request = client.authentication_begin(user_name=name)
    assert [c["id"] for c in request["allowCredentials"]] == [registered["credential"]["id"]]
    signed_in = client.authentication_finish(authenticator.sign(request))
    assert signed_in["user"]["id"] == user_id and signed_in["userVerified"] is True
    assert signed_in["signal"] == {
        "rpId": options["rp"]["id"], "userId": user_id, "allAcceptedCredentialIds": [registered["credential"]["id"]],
        "name": name, "displayName": "Ada L.",
    }
    again = client.authentication_finish(authenticator.sign(client.authentication_begin()))
    assert again["user"]["id"] == user_id
    assert client.user_signals(user_id) == signed_in["signal"]


def test_errors_carry_stable_codes(client, authenticator):
    name = unique("bob")
    registered = client.registration_finish(authenticator.register(client.registration_begin(user_name=name)))
    credential_id = registered["credential"]["id"]

    # A replayed finish: its challenge was used.
    assertion = authenticator.sign(client.authentication_begin(user_name=name))
    client.authentication_finish(assertion)
    with pytest.raises(PasskeydError) as replay:
        client.authentication_finish(assertion)
    assert replay.value.status == 400 and replay.value.code == "challenge_unknown_or_expired"

    # A taken name.
    with pytest.raises(PasskeydError) as taken:
        client.registration_begin(user_name=name)
    assert taken.value.status == 409 and taken.value.code == "user_exists"

    # Admin: rename, then delete; signing in with the deleted passkey carries signalUnknownCredential's arguments.
    assert client.admin_rename_credential(credential_id, "phone")["nickname"] == "phone"
    user, credentials = client.admin_get_user(registered["user"]["id"])
    assert user["name"] == name and [c["id"] for c in credentials] == [credential_id]
    client.admin_delete_credential(credential_id)
    with pytest.raises(PasskeydError) as unknown:
        client.authentication_finish(authenticator.sign(client.authentication_begin()))
    assert unknown.value.code == "credential_unknown" and unknown.value.status == 404
    assert unknown.value.signal == {"rpId": client.authentication_begin()["rpId"], "credentialId": credential_id}
    assert client.user_signals(registered["user"]["id"])["allAcceptedCredentialIds"] == []

    with pytest.raises(PasskeydError) as missing:
        client.user_signals("AAAA")
    assert missing.value.code == "user_unknown"
    with pytest.raises(ValueError):
        client.registration_begin(user_name="x", user_id="AAAA")


def test_a_wrong_key_is_unauthorized(client):
    client.api_key = "not-the-key"
    with pytest.raises(PasskeydError) as wrong:
        client.authentication_begin()
    assert wrong.value.status == 401 and wrong.value.code == "unauthorized"
    assert client.health()


def test_automatic_upgrade_and_self_service(client, authenticator, tmp_path):
    from .conftest import Authenticator

    # A password user of the backend: an account without a sign-in method, then an automatic upgrade by id.
    user = client.create_user(unique("ann"), display_name="Ann")
    with pytest.raises(PasskeydError) as taken:
        client.create_user(user["name"])
    assert taken.value.status == 409 and taken.value.code == "user_exists"
    options = client.registration_begin(user_id=user["id"], mediation="conditional")
    assert options["authenticatorSelection"]["userVerification"] == "preferred"
    upgraded = client.registration_finish(authenticator.register(options, silently=True))
    assert upgraded["credential"]["createdBy"] == "conditional" and upgraded["credential"]["userVerified"] is False
    with pytest.raises(PasskeydError) as new_name:
        client.registration_begin(user_name=unique("newcomer"), mediation="conditional")
    assert new_name.value.code == "conditional_create_needs_user_id"

    # The first sign-in verifies the user; its session's access token manages her own passkeys.
    signed_in = client.authentication_finish(authenticator.sign(client.authentication_begin(user_id=user["id"])))
    token = signed_in["session"]["accessToken"]
    mine = client.me_credentials(token)
    assert [c["id"] for c in mine] == [upgraded["credential"]["id"]] and mine[0]["userVerified"] is True
    with pytest.raises(PasskeydError) as last:
        client.me_delete_credential(token, mine[0]["id"])
    assert last.value.status == 409 and last.value.code == "last_sign_in_method"
    second = Authenticator(str(tmp_path), authenticator.origin)
    begun = client.me_registration_begin(token, extensions={"credProps": True, "prf": {}})
    added = client.me_registration_finish(token, second.register(begun), nickname="phone")
    assert added["credential"]["extensions"] == {"discoverable": True, "largeBlobSupported": None, "prfEnabled": True}
    assert client.me_rename_credential(token, added["credential"]["id"], "new phone")["nickname"] == "new phone"
    with pytest.raises(PasskeydError) as bad:
        client.authentication_begin(extensions={"credProps": True})
    assert bad.value.status == 400 and bad.value.code == "extension_input_invalid"
    client.me_delete_credential(token, mine[0]["id"])
    with pytest.raises(PasskeydError) as ended:
        client.me_credentials(token)
    assert ended.value.status == 401 and ended.value.code == "session_revoked"
