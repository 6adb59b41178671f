"""The client: one method per passkeyd operation an app backend calls, over the standard library's urllib."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Tuple, cast

from .errors import PasskeydError
from .models import (
    AcceptedCredentialsSignal,
    AuthenticationResult,
    Credential,
    Identity,
    MeRegistrationResult,
    RegistrationBeginAnswer,
    RegistrationResult,
    User,
)

# Every operation this client calls: method name → (HTTP method, path template, operationId in openapi.json).
# tests/test_openapi.py checks each against the repository's openapi.json, so an API change the client does not
# follow fails the test command.
OPERATIONS: Dict[str, Tuple[str, str, str]] = {
    "registration_begin": ("POST", "/v1/registration/begin", "registrationBegin"),
    "registration_finish": ("POST", "/v1/registration/finish", "registrationFinish"),
    "create_user": ("POST", "/v1/users", "createUser"),
    "authentication_begin": ("POST", "/v1/authentication/begin", "authenticationBegin"),
    "authentication_finish": ("POST", "/v1/authentication/finish", "authenticationFinish"),
    "user_signals": ("GET", "/v1/users/{userId}/signals", "getUserSignals"),
    "admin_get_user": ("GET", "/v1/admin/users/{userId}", "adminGetUser"),
    "admin_rename_credential": ("PATCH", "/v1/admin/credentials/{credentialId}", "adminRenameCredential"),
    "admin_delete_credential": ("DELETE", "/v1/admin/credentials/{credentialId}", "adminDeleteCredential"),
    "health": ("GET", "/healthz", "getHealth"),
    # Self-service (the signed-in person's own account): authorized by their passkeyd access token, not the API key.
    "me_credentials": ("GET", "/v1/me/credentials", "meListCredentials"),
    "me_rename_credential": ("PATCH", "/v1/me/credentials/{credentialId}", "meRenameCredential"),
    "me_delete_credential": ("DELETE", "/v1/me/credentials/{credentialId}", "meDeleteCredential"),
    "me_registration_begin": ("POST", "/v1/me/registration/begin", "meRegistrationBegin"),
    "me_registration_finish": ("POST", "/v1/me/registration/finish", "meRegistrationFinish"),
    "me_identities": ("GET", "/v1/me/identities", "meListIdentities"),
    "me_unlink_identity": ("DELETE", "/v1/me/identities/{identityId}", "meUnlinkIdentity"),
}


class PasskeydClient:
    """passkeyd for a Python backend.

    ``api_key`` goes with the ceremony operations (``PASSKEYD_API_KEYS``), ``admin_key`` with the admin ones; the
    ``me_*`` (self-service) operations take the signed-in person's passkeyd ``access_token`` instead.
    The begin calls return the ``publicKey`` options to hand to the browser (``PublicKeyCredential.
    parseCreationOptionsFromJSON`` / ``parseRequestOptionsFromJSON``) or the iOS/Android app unchanged; the finish
    calls take the credential's JSON form (``credential.toJSON()``) as the client sent it.
    """

    def __init__(
        self, base_url: str, api_key: Optional[str] = None, admin_key: Optional[str] = None, timeout: float = 10.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.admin_key = admin_key
        self.timeout = timeout

    # ---- registration ----
    def registration_begin(
        self, *, user_name: Optional[str] = None, display_name: Optional[str] = None, user_id: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None, mediation: Optional[str] = None,
        extensions: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Options for a new account (``user_name``) or one more passkey for an existing user (``user_id``: only for
        a person your backend has authenticated). Exactly one of the two. ``options``: ``authenticatorSelection``,
        ``attestation``, ``extensions``, ``hints``.

        ``mediation="conditional"`` (only with ``user_id``) begins an automatic passkey upgrade: pass ``mediation:
        "conditional"`` with the options to ``navigator.credentials.create``. ``extensions``: client extension inputs
        (``credProps``, ``prf`` with ``eval``, ``largeBlob`` with ``support``); others are 400
        ``extension_unsupported``, malformed ones 400 ``extension_input_invalid``."""
        if (user_name is None) == (user_id is None):
            raise ValueError("exactly one of user_name and user_id")
        user: Dict[str, Any] = {"id": user_id} if user_id is not None else {"name": user_name}
        if display_name is not None:
            user["displayName"] = display_name
        body = self._registration_body(options, mediation, extensions)
        body["user"] = user
        answer = cast(RegistrationBeginAnswer, self._call("registration_begin", body=body))
        return answer["publicKey"]

    def registration_finish(self, credential: Mapping[str, Any], nickname: Optional[str] = None) -> RegistrationResult:
        body: Dict[str, Any] = {"credential": credential}
        if nickname is not None:
            body["nickname"] = nickname
        return cast(RegistrationResult, self._call("registration_finish", body=body))

    def create_user(self, name: str, display_name: Optional[str] = None) -> User:
        """An account with no sign-in method yet, for a person your backend signed in another way (a password): then
        ``registration_begin(user_id=..., mediation="conditional")`` upgrades them to a passkey. Raises
        ``PasskeydError`` with ``user_exists`` when the name is taken."""
        body: Dict[str, Any] = {"name": name}
        if display_name is not None:
            body["displayName"] = display_name
        return cast(User, self._call("create_user", body=body)["user"])

    # ---- sign-in ----
    def authentication_begin(
        self, *, user_name: Optional[str] = None, user_id: Optional[str] = None, user_verification: Optional[str] = None,
        extensions: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Options for a sign-in: by name or id (allowCredentials listed), or neither (discoverable / autofill).
        ``extensions``: client extension inputs (``prf`` with ``eval``/``evalByCredential``, ``largeBlob`` with
        ``read: True`` or ``write``)."""
        body: Dict[str, Any] = {}
        if user_name is not None and user_id is not None:
            raise ValueError("at most one of user_name and user_id")
        if user_name is not None:
            body["user"] = {"name": user_name}
        elif user_id is not None:
            body["user"] = {"id": user_id}
        if user_verification is not None:
            body["userVerification"] = user_verification
        if extensions is not None:
            body["extensions"] = dict(extensions)
        return cast(Dict[str, Any], self._call("authentication_begin", body=body)["publicKey"])

    def authentication_finish(self, credential: Mapping[str, Any]) -> AuthenticationResult:
        """The verified sign-in: ``user`` is who signed in. Its ``signal`` goes to the page's Signal API calls."""
        return cast(AuthenticationResult, self._call("authentication_finish", body={"credential": credential}))

    def user_signals(self, user_id: str) -> AcceptedCredentialsSignal:
        """The Signal API's arguments after your backend deleted a passkey or renamed the user."""
        return cast(AcceptedCredentialsSignal, self._call("user_signals", path={"userId": user_id}))

    # ---- admin ----
    def admin_get_user(self, user_id: str) -> Tuple[User, List[Credential]]:
        answer = self._call("admin_get_user", path={"userId": user_id})
        return cast(User, answer["user"]), cast(List[Credential], answer["credentials"])

    def admin_rename_credential(self, credential_id: str, nickname: Optional[str]) -> Credential:
        answer = self._call("admin_rename_credential", path={"credentialId": credential_id}, body={"nickname": nickname})
        return cast(Credential, answer["credential"])

    def admin_delete_credential(self, credential_id: str) -> None:
        self._call("admin_delete_credential", path={"credentialId": credential_id})

    def health(self) -> bool:
        return self._call("health").get("status") == "ok"

    # ---- self-service: the signed-in person's own account, with their passkeyd access token ----
    def me_credentials(self, access_token: str) -> List[Credential]:
        """The signed-in person's passkeys, oldest first."""
        return cast(List[Credential], self._call("me_credentials", token=access_token)["credentials"])

    def me_rename_credential(self, access_token: str, credential_id: str, nickname: Optional[str]) -> Credential:
        answer = self._call(
            "me_rename_credential", path={"credentialId": credential_id}, body={"nickname": nickname}, token=access_token
        )
        return cast(Credential, answer["credential"])

    def me_delete_credential(self, access_token: str, credential_id: str) -> None:
        """Needs a recent sign-in (401 ``reauthentication_required``); 409 ``last_sign_in_method`` for the last one."""
        self._call("me_delete_credential", path={"credentialId": credential_id}, token=access_token)

    def me_registration_begin(
        self, access_token: str, *, options: Optional[Mapping[str, Any]] = None, mediation: Optional[str] = None,
        extensions: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """Options for one more passkey for the signed-in person (needs a recent sign-in). Same choices as
        :meth:`registration_begin`, without the user."""
        body = self._registration_body(options, mediation, extensions)
        answer = cast(RegistrationBeginAnswer, self._call("me_registration_begin", body=body, token=access_token))
        return answer["publicKey"]

    def me_registration_finish(
        self, access_token: str, credential: Mapping[str, Any], nickname: Optional[str] = None
    ) -> MeRegistrationResult:
        body: Dict[str, Any] = {"credential": credential}
        if nickname is not None:
            body["nickname"] = nickname
        return cast(MeRegistrationResult, self._call("me_registration_finish", body=body, token=access_token))

    def me_identities(self, access_token: str) -> List[Identity]:
        """The provider identities linked to the signed-in person (with ID-token sign-in configured)."""
        return cast(List[Identity], self._call("me_identities", token=access_token)["identities"])

    def me_unlink_identity(self, access_token: str, identity_id: str) -> None:
        """Needs a recent sign-in (401 ``reauthentication_required``); 409 ``last_sign_in_method`` for the last one."""
        self._call("me_unlink_identity", path={"identityId": identity_id}, token=access_token)

    @staticmethod
    def _registration_body(
        options: Optional[Mapping[str, Any]], mediation: Optional[str], extensions: Optional[Mapping[str, Any]]
    ) -> Dict[str, Any]:
        body = dict(options or {})
        if mediation is not None:
            body["mediation"] = mediation
        if extensions is not None:
            body["extensions"] = dict(extensions)
        return body

    # ---- transport ----
    def _call(
        self, operation: str, *, path: Optional[Mapping[str, str]] = None, body: Optional[Mapping[str, Any]] = None,
        token: Optional[str] = None,
    ) -> Dict[str, Any]:
        method, template, _ = OPERATIONS[operation]
        url = self.base_url + template.format(**{k: urllib.parse.quote(v, safe="") for k, v in (path or {}).items()})
        headers = {"Accept": "application/json"}
        # An access token (the self-service operations) replaces the keys: never send an API key with it.
        key = token if token is not None else self.admin_key if template.startswith("/v1/admin/") else self.api_key
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                decoded = json.loads(raw) if raw else None
            except ValueError:
                decoded = None
            retry = error.headers.get("Retry-After")
            raise PasskeydError.from_body(error.code, decoded, int(retry) if retry and retry.isdigit() else None) from None
        return cast(Dict[str, Any], json.loads(raw)) if raw else {}
