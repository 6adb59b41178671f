"""Both clients against a real passkeyd on PostgreSQL (scripts/test/python-client-test.sh starts it with sessions,
ID tokens, the App Store, App Attest, the app-association documents and the conformance binding on), with
passkeyd-softkey as the authenticator, passkeyd-idp as the identity provider and passkeyd-softkey's StoreKit and
App Attest signers. Every walkthrough runs twice: with PasskeydClient and with AsyncPasskeydClient."""

import base64
import hashlib
import json
import os
import secrets
import time

import pytest

from passkeyd_client import ErrorCode, PasskeydError

from .conftest import Authenticator, needs_server, run, unique

pytestmark = needs_server
SOFTKEY = os.environ.get("PASSKEYD_SOFTKEY", "")


async def sign_up(passkeyd, authenticator, name=None, **finish):
    begun = await passkeyd.registration_begin(user_name=name or unique("ada"), display_name="Ada L.")
    return await passkeyd.registration_finish(authenticator.register(begun), **finish)


async def sign_in(passkeyd, authenticator, **begin):
    return await passkeyd.authentication_finish(authenticator.sign(await passkeyd.authentication_begin(**begin)))


def test_passkey_sign_up_and_sign_in(walk, authenticator):
    async def body(passkeyd):
        name = unique("ada")
        begun = await passkeyd.registration_begin(user_name=name, display_name="Ada L.")
        options = begun["publicKey"]
        assert options["user"]["name"] == name and options["rp"]["id"] and "mediation" not in begun
        registered = await passkeyd.registration_finish(authenticator.register(begun), nickname="laptop")
        assert registered["user"]["name"] == name and registered["credential"]["nickname"] == "laptop"
        user_id, credential_id = registered["user"]["id"], registered["credential"]["id"]

        # By name (allowCredentials lists the passkey), then discoverably.
        request = await passkeyd.authentication_begin(user_name=name)
        assert [c["id"] for c in request["publicKey"]["allowCredentials"]] == [credential_id]
        signed_in = await passkeyd.authentication_finish(authenticator.sign(request))
        assert signed_in["user"]["id"] == user_id and signed_in["userVerified"] is True
        assert signed_in["signal"] == {
            "rpId": options["rp"]["id"], "userId": user_id, "allAcceptedCredentialIds": [credential_id],
            "name": name, "displayName": "Ada L.",
        }
        assert signed_in["session"]["tokenType"] == "Bearer"
        again = await sign_in(passkeyd, authenticator)
        assert again["user"]["id"] == user_id
        assert await passkeyd.get_user_signals(user_id) == signed_in["signal"]

        # A replayed finish: its challenge was used. A taken name.
        assertion = authenticator.sign(await passkeyd.authentication_begin(user_id=user_id))
        await passkeyd.authentication_finish(assertion)
        with pytest.raises(PasskeydError) as replay:
            await passkeyd.authentication_finish(assertion)
        assert replay.value.status == 400 and replay.value.code is ErrorCode.CHALLENGE_UNKNOWN_OR_EXPIRED
        with pytest.raises(PasskeydError) as taken:
            await passkeyd.registration_begin(user_name=name)
        assert taken.value.status == 409 and taken.value.code is ErrorCode.USER_EXISTS

    walk(body)


def test_a_deleted_passkey_and_a_wrong_key(walk, authenticator):
    async def body(passkeyd):
        registered = await sign_up(passkeyd, authenticator)
        credential_id = registered["credential"]["id"]
        await passkeyd.admin_delete_credential(credential_id)
        with pytest.raises(PasskeydError) as unknown:
            await sign_in(passkeyd, authenticator)
        assert unknown.value.status == 404 and unknown.value.code is ErrorCode.CREDENTIAL_UNKNOWN
        assert unknown.value.signal["credentialId"] == credential_id
        with pytest.raises(PasskeydError) as missing:
            await passkeyd.get_user_signals("AAAA")
        assert missing.value.code is ErrorCode.USER_UNKNOWN
        assert (await passkeyd.get_user_signals(registered["user"]["id"]))["allAcceptedCredentialIds"] == []

    walk(body)

    async def wrong_key(passkeyd):
        with pytest.raises(PasskeydError) as wrong:
            await passkeyd.authentication_begin()
        assert wrong.value.status == 401 and wrong.value.code is ErrorCode.UNAUTHORIZED
        assert wrong.value.attempts == 1  # a 401 is not retried
        assert await passkeyd.get_health() == {"status": "ok"}

    walk(wrong_key, api_key="not-the-key")


def test_id_token_sign_in(walk, authenticator):
    idp, directory = os.environ["PASSKEYD_IDP"], os.environ["PASSKEYD_IDP_DIR"]

    def id_token(subject, nonce):
        return run([idp, "token", "--dir", directory, "--iss", "https://appleid.apple.com", "--aud", "com.example.app",
                    "--sub", subject, "--nonce", nonce, "--email", "me@privaterelay.appleid.com"]).strip()

    async def body(passkeyd):
        subject = f"001234.{secrets.token_hex(8)}"
        begun = await passkeyd.id_token_begin("apple")
        assert begun["provider"] == "apple" and len(begun["providerNonce"]) == 64
        first = await passkeyd.id_token_finish(
            session=begun["session"], provider="apple", id_token=id_token(subject, begun["providerNonce"]),
            user_name=unique("apple"),
        )
        assert first["created"] is True and first["identity"]["subject"] == subject and first["session"]
        # The same session again is refused; a new sign-in is the same user.
        with pytest.raises(PasskeydError) as used:
            await passkeyd.id_token_finish(session=begun["session"], provider="apple",
                                           id_token=id_token(subject, begun["providerNonce"]))
        assert used.value.status == 400 and used.value.code is ErrorCode.IDTOKEN_SESSION_UNKNOWN
        begun = await passkeyd.id_token_begin("apple")
        second = await passkeyd.id_token_finish(session=begun["session"], provider="apple",
                                                id_token=id_token(subject, begun["providerNonce"]))
        assert second["created"] is False and second["user"]["id"] == first["user"]["id"]
        token = second["session"]["accessToken"]
        [identity] = (await passkeyd.me_list_identities(token))["identities"]
        assert identity["issuer"] == "https://appleid.apple.com" and identity["email"] == "me@privaterelay.appleid.com"

        # A passkey user links an Apple identity by id; the admin API lists and unlinks it.
        alice = (await sign_up(passkeyd, authenticator))["user"]["id"]
        begun = await passkeyd.id_token_begin("apple")
        linked = await passkeyd.id_token_finish(session=begun["session"], provider="apple",
                                                id_token=id_token(f"alice.{subject}", begun["providerNonce"]),
                                                user_id=alice)
        assert linked["linked"] is True and linked["user"]["id"] == alice
        [listed] = (await passkeyd.admin_list_user_identities(alice))["identities"]
        assert listed["id"] == linked["identity"]["id"]
        await passkeyd.admin_unlink_identity(alice, listed["id"])
        assert (await passkeyd.admin_list_user_identities(alice))["identities"] == []

    walk(body)


def test_session_refresh_and_handoff(walk, authenticator):
    async def body(passkeyd):
        registered = await sign_up(passkeyd, authenticator)
        user_id = registered["user"]["id"]
        session = (await sign_in(passkeyd, authenticator))["session"]
        assert session["refreshToken"].startswith("pkd_rt_")

        # Refresh: a new pair; the retired refresh token again revokes the session.
        refreshed = (await passkeyd.refresh_session(session["refreshToken"]))["session"]
        assert refreshed["refreshToken"] != session["refreshToken"] and refreshed["sessionId"] == session["sessionId"]
        with pytest.raises(PasskeydError) as reused:
            await passkeyd.refresh_session(session["refreshToken"])
        assert reused.value.status == 401 and reused.value.code is ErrorCode.REFRESH_TOKEN_REUSED
        assert (await passkeyd.introspect_access_token(refreshed["accessToken"])) == {"active": False}

        # The app hands its session off to a web view: a one-time code, exchanged once.
        access = (await sign_in(passkeyd, authenticator))["session"]["accessToken"]
        introspected = await passkeyd.introspect_access_token(access)
        assert introspected["active"] is True and introspected["sub"] == user_id
        handoff = await passkeyd.create_handoff_code(access_token=access)
        assert handoff["code"].startswith("pkd_hc_") and 0 < handoff["expiresIn"] <= 60
        web = (await passkeyd.exchange_handoff_code(handoff["code"]))["session"]
        assert web["sessionId"] != refreshed["sessionId"]
        with pytest.raises(PasskeydError) as again:
            await passkeyd.exchange_handoff_code(handoff["code"])
        assert again.value.status == 400 and again.value.code is ErrorCode.HANDOFF_CODE_UNKNOWN

        # The backend vouches for the user (API key), with the page's PKCE challenge.
        verifier = secrets.token_urlsafe(32)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        code = (await passkeyd.create_handoff_code(user_id=user_id, code_challenge=challenge))["code"]
        with pytest.raises(PasskeydError) as mismatch:
            await passkeyd.exchange_handoff_code(code, code_verifier=secrets.token_urlsafe(32))
        assert mismatch.value.code is ErrorCode.HANDOFF_VERIFIER_MISMATCH
        code = (await passkeyd.create_handoff_code(user_id=user_id, code_challenge=challenge))["code"]
        assert (await passkeyd.exchange_handoff_code(code, code_verifier=verifier))["session"]["accessToken"]

        keys = (await passkeyd.get_session_jwks())["keys"]
        assert keys and all(key["use"] == "sig" for key in keys)
        # Sign out the web view by its refresh token, the app by its access token; the admin API ends the rest.
        await passkeyd.revoke_session(refresh_token=web["refreshToken"])
        await passkeyd.revoke_session(access_token=access)
        assert (await passkeyd.introspect_access_token(access)) == {"active": False}
        # Four sessions: the refreshed and revoked one, the app's, the web view's, the backend's web view's.
        sessions = (await passkeyd.admin_list_user_sessions(user_id))["sessions"]
        assert len(sessions) == 4 and sum(s["active"] for s in sessions) == 1
        assert (await passkeyd.admin_revoke_user_sessions(user_id))["revoked"] == 1
        assert not any(s["active"] for s in (await passkeyd.admin_list_user_sessions(user_id))["sessions"])

    walk(body)


def test_app_store_transaction(walk, authenticator, tmp_path):
    certs = os.environ["PASSKEYD_STOREKIT_CERTS"]

    def storekit(*arguments):
        return run([SOFTKEY, "storekit", *arguments, "--certs", certs]).strip()

    async def body(passkeyd):
        user_id = (await sign_up(passkeyd, authenticator))["user"]["id"]
        before = await passkeyd.app_store_entitlements(user_id)
        assert before["entitlements"] == [] and before["userId"] == user_id
        token = before["appAccountToken"]

        # The app bought a monthly subscription for this user (appAccountToken = theirs); the backend posts it.
        transaction_id = str(time.time_ns())
        purchase = storekit("transaction", "--id", transaction_id, "--token", token, "--days", "30")
        posted = await passkeyd.app_store_post_transaction(user_id, purchase)
        assert posted["stored"] == "inserted" and posted["transaction"]["transactionId"] == transaction_id
        assert [e["status"] for e in posted["entitlements"]] == ["active"]
        assert (await passkeyd.app_store_post_transaction(user_id, purchase))["stored"] != "inserted"
        entitlements = await passkeyd.app_store_entitlements(user_id)
        assert entitlements["entitlements"][0]["productId"] == "com.example.monthly"

        renewal = await passkeyd.app_store_post_renewal_info(storekit("renewal", "--original", transaction_id))
        assert renewal["renewalInfo"]["originalTransactionId"] == transaction_id

        # A purchase made for another account is refused with its code.
        other = storekit("transaction", "--id", f"{transaction_id}1", "--token", "00000000-0000-8000-8000-000000000000")
        with pytest.raises(PasskeydError) as mismatch:
            await passkeyd.app_store_post_transaction(user_id, other)
        assert mismatch.value.status == 422 and mismatch.value.code is ErrorCode.APPSTORE_APP_ACCOUNT_TOKEN_MISMATCH

        # Apple refunds it: a REFUND notification; its replay is a duplicate.
        refunded = tmp_path / f"refunded-{transaction_id}.jws"
        refunded.write_text(storekit("transaction", "--id", transaction_id, "--token", token, "--days", "30",
                                     "--revoked", "yes", "--signed-offset-ms", "1000"))
        refund = storekit("notification", "--type", "REFUND", "--uuid", f"refund-{transaction_id}",
                          "--transaction", str(refunded))
        assert (await passkeyd.app_store_notification(refund))["duplicate"] is False
        assert (await passkeyd.app_store_notification(refund))["duplicate"] is True
        after = await passkeyd.app_store_entitlements(user_id)
        assert after["entitlements"] == [] and after["inactive"][0]["status"] == "revoked"

    walk(body)


def test_app_attest(walk, tmp_path):
    device, app_id = os.environ["PASSKEYD_APPATTEST_DEVICE"], os.environ["PASSKEYD_APPATTEST_APP_ID"]
    key = tmp_path / f"key-{walk.kind}.json"

    async def body(passkeyd):
        challenge = (await passkeyd.app_attest_challenge())["challenge"]
        attested = json.loads(run([SOFTKEY, "appattest", "attest", "--device", device, "--key", str(key),
                                   "--app-id", app_id, "--challenge", challenge]))
        stored = await passkeyd.app_attest_attestation(
            key_id=attested["keyId"], attestation_object=attested["attestationObject"], challenge=challenge
        )
        assert stored["keyId"] == attested["keyId"] and stored["counter"] == 0 and stored["appId"] == app_id
        challenge = (await passkeyd.app_attest_challenge())["challenge"]
        asserted = json.loads(run([SOFTKEY, "appattest", "assert", "--device", device, "--key", str(key),
                                   "--app-id", app_id, "--counter", "1",
                                   "--client-data", json.dumps({"action": "buy", "challenge": challenge})]))
        arguments = dict(key_id=asserted["keyId"], assertion=asserted["assertion"], client_data=asserted["clientData"])
        assert (await passkeyd.app_attest_assertion(**arguments))["counter"] == 1
        with pytest.raises(PasskeydError) as replayed:
            await passkeyd.app_attest_assertion(**arguments)
        assert replayed.value.code is ErrorCode.APPATTEST_CHALLENGE_INVALID

    walk(body)


def test_admin_listing(walk, authenticator, tmp_path):
    async def body(passkeyd):
        prefix = unique("listed")
        users = [(await sign_up(passkeyd, Authenticator(str(tmp_path), authenticator.origin), f"{prefix}-{i}"))
                 for i in range(3)]
        ids = [u["user"]["id"] for u in users]
        page = await passkeyd.admin_list_users(name=prefix, limit=2)
        assert [u["id"] for u in page["users"]] == ids[:2] and page["next"]
        rest = await passkeyd.admin_list_users(name=prefix, limit=2, after=page["next"])
        assert [u["id"] for u in rest["users"]] == ids[2:] and rest.get("next") is None

        user = await passkeyd.admin_get_user(ids[0])
        credential_id = users[0]["credential"]["id"]
        assert user["user"]["name"] == f"{prefix}-0" and [c["id"] for c in user["credentials"]] == [credential_id]
        assert [c["id"] for c in (await passkeyd.admin_list_user_credentials(ids[0]))["credentials"]] == [credential_id]
        renamed = await passkeyd.admin_rename_credential(credential_id, "work laptop")
        assert renamed["credential"]["nickname"] == "work laptop"
        got = await passkeyd.admin_get_credential(credential_id)
        assert got["credential"]["nickname"] == "work laptop" and got["user"]["id"] == ids[0]
        events = await passkeyd.admin_audit_events(user_id=ids[0], limit=50)
        assert [e["event"] for e in events["events"]] == ["user.created", "credential.registered", "credential.renamed"]
        await passkeyd.admin_delete_user(ids[0])
        with pytest.raises(PasskeydError) as gone:
            await passkeyd.admin_get_user(ids[0])
        assert gone.value.status == 404 and gone.value.code is ErrorCode.USER_UNKNOWN

    walk(body)


def test_automatic_upgrade_and_self_service(walk, authenticator, tmp_path):
    async def body(passkeyd):
        # A password user of the backend: an account without a sign-in method, then an automatic upgrade by id.
        user = (await passkeyd.create_user(unique("ann"), display_name="Ann"))["user"]
        with pytest.raises(PasskeydError) as taken:
            await passkeyd.create_user(user["name"])
        assert taken.value.status == 409 and taken.value.code is ErrorCode.USER_EXISTS
        begun = await passkeyd.registration_begin(user_id=user["id"], mediation="conditional")
        assert begun["mediation"] == "conditional"
        upgraded = await passkeyd.registration_finish(authenticator.register(begun, silently=True))
        assert upgraded["credential"]["createdBy"] == "conditional" and upgraded["credential"]["userVerified"] is False

        # The first sign-in verifies the user; its session's access token manages her own passkeys.
        token = (await sign_in(passkeyd, authenticator, user_id=user["id"]))["session"]["accessToken"]
        mine = (await passkeyd.me_list_credentials(token))["credentials"]
        assert [c["id"] for c in mine] == [upgraded["credential"]["id"]] and mine[0]["userVerified"] is True
        with pytest.raises(PasskeydError) as last:
            await passkeyd.me_delete_credential(token, mine[0]["id"])
        assert last.value.status == 409 and last.value.code is ErrorCode.LAST_SIGN_IN_METHOD
        second = Authenticator(str(tmp_path), authenticator.origin)
        begun = await passkeyd.me_registration_begin(token, extensions={"credProps": True, "prf": {}})
        added = await passkeyd.me_registration_finish(token, second.register(begun), nickname="phone")
        assert added["credential"]["extensions"] == {"discoverable": True, "largeBlobSupported": None, "prfEnabled": True}
        renamed = await passkeyd.me_rename_credential(token, added["credential"]["id"], "new phone")
        assert renamed["credential"]["nickname"] == "new phone"
        await passkeyd.me_delete_credential(token, mine[0]["id"])
        with pytest.raises(PasskeydError) as ended:  # deleting the passkey signed in with ends its sessions
            await passkeyd.me_list_credentials(token)
        assert ended.value.status == 401 and ended.value.code is ErrorCode.SESSION_REVOKED
        token = (await sign_in(passkeyd, second))["session"]["accessToken"]
        assert (await passkeyd.me_list_identities(token))["identities"] == []

    walk(body)


def test_the_service_and_its_documents(walk):
    async def body(passkeyd):
        assert await passkeyd.get_health() == {"status": "ok"}
        assert await passkeyd.get_readiness() == {"status": "ready"}
        assert "passkeyd_" in await passkeyd.get_metrics()
        document = await passkeyd.get_open_api_document()
        assert document["openapi"].startswith("3.1") and "/v1/idtoken/begin" in document["paths"]
        aasa = await passkeyd.get_apple_app_site_association()
        assert aasa["webcredentials"]["apps"] == [os.environ["PASSKEYD_APPATTEST_APP_ID"]]
        [link] = await passkeyd.get_asset_links()
        assert link["target"]["package_name"] == "com.example.app"
        assert (await passkeyd.get_related_origins())["origins"] == ["https://shop.example"]

    walk(body)


def test_the_conformance_binding(walk, authenticator):
    async def body(passkeyd):
        name = unique("fido")
        options = await passkeyd.conformance_attestation_options(name, display_name="FIDO")
        assert options["status"] == "ok" and options["user"]["name"] == name
        answer = await passkeyd.conformance_attestation_result(authenticator.register(options))
        assert answer == {"status": "ok", "errorMessage": ""}
        options = await passkeyd.conformance_assertion_options(name)
        assert options["status"] == "ok"
        assert (await passkeyd.conformance_assertion_result(authenticator.sign(options)))["status"] == "ok"

    walk(body)
