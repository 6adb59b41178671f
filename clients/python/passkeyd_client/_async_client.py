"""The asynchronous client: one method per operation of passkeyd's openapi.json (its operationId in snake_case).

Written by hand, and the source of the synchronous client too: tools/generate.py writes _client.py from it.
"""

from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union, cast

import httpx

from . import _retry
from ._base import (
    _UNCHANGED,
    Timeout,
    error,
    exactly_one,
    members,
    named_or_by_id,
    registration_options,
    request_parts,
    result,
    settings,
    transport_failure,
)
from ._operations import OPERATIONS
from ._retry import NO_RETRY, RetryPolicy, attempt_timeout
from .errors import PasskeydError
from .models import (
    JWKS,
    AcceptedCredentialsSignal,
    AdminCredentialList,
    AdminCredentialResponse,
    AdminCredentialWithUser,
    AdminIdentityList,
    AdminRevokedSessions,
    AdminSessionList,
    AdminUserWithCredentials,
    AppAttestChallenge,
    AppAttestKey,
    AppStoreNotificationResponse,
    AppStoreRenewalResponse,
    AppStoreTransactionResponse,
    AuditEventPage,
    AuthenticationBeginResponse,
    AuthenticationFinishResponse,
    ConformanceCreationOptionsResponse,
    ConformanceGetOptionsResponse,
    ConformanceServerResponse,
    CreateUserResponse,
    EntitlementsResponse,
    HandoffResponse,
    Health,
    IDTokenBeginResponse,
    IDTokenFinishResponse,
    Introspection,
    MeCredentialList,
    MeCredentialResponse,
    MeIdentityList,
    MeRegistrationFinishResponse,
    Readiness,
    RegistrationBeginResponse,
    RegistrationFinishResponse,
    SessionResponse,
    UserPage,
    WebhookDeliveryPage,
    WebhookEndpointList,
)

JSON = Dict[str, Any]
DEFAULT_RETRY = RetryPolicy()


class AsyncPasskeydClient:
    """passkeyd for a Python backend, on one pooled ``httpx.AsyncClient``.

    ``api_key`` goes with the operations that take one (``PASSKEYD_API_KEYS``), ``admin_key`` with the ``admin_*``
    ones; the ``me_*`` operations take the signed-in person's passkeyd ``access_token`` instead. Each method returns
    the answer's JSON as the TypedDict of its schema (``None`` for a 204) and raises :class:`PasskeydError` for an
    error answer (``PasskeydConnectionError`` / ``PasskeydTimeout`` for none). ``retry``: see :class:`RetryPolicy`
    (None: never retry). Use it as a context manager, or call ``aclose``, to close its connections; give
    ``http_client`` to use one of your own (then closing it is yours), or ``transport`` for the one it makes.

        async with AsyncPasskeydClient("http://127.0.0.1:8080", api_key=key) as passkeyd:
            options = await passkeyd.registration_begin(user_name="ada")
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        admin_key: Optional[str] = None,
        timeout: Timeout = 10.0,
        retry: Optional[RetryPolicy] = DEFAULT_RETRY,
        headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.AsyncClient] = None,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self._settings = settings(base_url, api_key, admin_key, timeout, retry, headers)
        if http_client is not None and transport is not None:
            raise ValueError("http_client or transport, not both")
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(transport=transport)

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    @property
    def retry(self) -> RetryPolicy:
        return self._settings.retry

    def with_options(
        self, *, api_key: Optional[str] = _UNCHANGED, admin_key: Optional[str] = _UNCHANGED,
        timeout: Timeout = _UNCHANGED, retry: Optional[RetryPolicy] = _UNCHANGED,
    ) -> "AsyncPasskeydClient":
        """A client with these settings changed, on the same connection pool (closing it closes nothing):
        ``passkeyd.with_options(retry=RetryPolicy(writes=True)).registration_finish(...)``."""
        other = object.__new__(type(self))
        other._settings = self._settings.but(
            api_key=api_key, admin_key=admin_key, timeout=timeout,
            retry=NO_RETRY if retry is None else retry,
        )
        other._owns_http = False
        other._http = self._http
        return other

    async def __aenter__(self) -> "AsyncPasskeydClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the connection pool (unless it is a caller's ``http_client``)."""
        if self._owns_http:
            await self._http.aclose()

    # ---- passkeys: registration and sign-in ----

    async def registration_begin(
        self, *, user_name: Optional[str] = None, display_name: Optional[str] = None, user_id: Optional[str] = None,
        authenticator_selection: Optional[Mapping[str, Any]] = None, attestation: Optional[str] = None,
        hints: Optional[Sequence[str]] = None, extensions: Optional[Mapping[str, Any]] = None,
        mediation: Optional[str] = None,
    ) -> RegistrationBeginResponse:
        """Creation options for a new account (``user_name``) or one more passkey of an existing user (``user_id``:
        only for a person your backend has authenticated); exactly one of the two. ``mediation="conditional"`` (with
        ``user_id``) begins an automatic passkey upgrade, answered with ``mediation`` too. Hand the whole answer to
        the page (``publicKey`` to ``PublicKeyCredential.parseCreationOptionsFromJSON``)."""
        body = registration_options(authenticator_selection, attestation, hints, extensions, mediation)
        body["user"] = named_or_by_id("registration_begin", user_name, user_id, display_name)
        return cast(RegistrationBeginResponse, await self._call("registration_begin", body=body))

    async def registration_finish(
        self, credential: Mapping[str, Any], *, nickname: Optional[str] = None
    ) -> RegistrationFinishResponse:
        """Verifies and stores the passkey: ``credential`` is the page's ``credential.toJSON()``."""
        body = members(credential=credential, nickname=nickname)
        return cast(RegistrationFinishResponse, await self._call("registration_finish", body=body))

    async def create_user(self, name: str, *, display_name: Optional[str] = None) -> CreateUserResponse:
        """An account without a sign-in method yet (409 ``user_exists`` when the name is taken), to upgrade by id."""
        body = members(name=name, displayName=display_name)
        return cast(CreateUserResponse, await self._call("create_user", body=body))

    async def authentication_begin(
        self, *, user_name: Optional[str] = None, user_id: Optional[str] = None,
        user_verification: Optional[str] = None, extensions: Optional[Mapping[str, Any]] = None,
    ) -> AuthenticationBeginResponse:
        """Request options: for a user by name or id (``allowCredentials`` listed), or neither (discoverable,
        autofill)."""
        body = members(
            user=named_or_by_id("authentication_begin", user_name, user_id, required=False),
            userVerification=user_verification, extensions=extensions,
        )
        return cast(AuthenticationBeginResponse, await self._call("authentication_begin", body=body))

    async def authentication_finish(self, credential: Mapping[str, Any]) -> AuthenticationFinishResponse:
        """The verified sign-in: ``user`` is who signed in, ``signal`` the page's Signal API arguments, ``session``
        with sessions on."""
        body = {"credential": dict(credential)}
        return cast(AuthenticationFinishResponse, await self._call("authentication_finish", body=body))

    async def get_user_signals(self, user_id: str) -> AcceptedCredentialsSignal:
        """The Signal API's arguments after your backend deleted a passkey or renamed the user."""
        return cast(AcceptedCredentialsSignal, await self._call("get_user_signals", path={"userId": user_id}))

    # ---- ID tokens ----

    async def id_token_begin(self, provider: str) -> IDTokenBeginResponse:
        """A sign-in with a provider's ID token (``apple``, ``google``, …): ``providerNonce`` goes to the provider's
        SDK, ``session`` back to :meth:`id_token_finish`."""
        return cast(IDTokenBeginResponse, await self._call("id_token_begin", body={"provider": provider}))

    async def id_token_finish(
        self, *, session: str, provider: str, id_token: str, authorization_code: Optional[str] = None,
        user_name: Optional[str] = None, display_name: Optional[str] = None, user_id: Optional[str] = None,
    ) -> IDTokenFinishResponse:
        """Verifies the ID token: the identity's user (``created`` when new). ``user_name`` names a new user;
        ``user_id`` links the identity to that existing user (only a person your backend has authenticated)."""
        user = named_or_by_id("id_token_finish", user_name, user_id, display_name, required=False)
        body = members(
            session=session, provider=provider, idToken=id_token, authorizationCode=authorization_code, user=user
        )
        return cast(IDTokenFinishResponse, await self._call("id_token_finish", body=body))

    # ---- sessions and handoff ----

    async def get_session_jwks(self) -> JWKS:
        """The public keys of the access tokens, to verify them locally."""
        return cast(JWKS, await self._call("get_session_jwks"))

    async def refresh_session(self, refresh_token: str) -> SessionResponse:
        """A new access and refresh token; the presented refresh token is retired (presented again, it revokes the
        session: never retried by default)."""
        return cast(SessionResponse, await self._call("refresh_session", body={"refreshToken": refresh_token}))

    async def revoke_session(self, *, refresh_token: Optional[str] = None, access_token: Optional[str] = None) -> None:
        """Signs out the session of this refresh token or this access token (exactly one)."""
        exactly_one("revoke_session", refresh_token=refresh_token, access_token=access_token)
        if refresh_token is not None:
            await self._call("revoke_session", body={"refreshToken": refresh_token})
        else:
            await self._call("revoke_session", access_token=access_token)

    async def introspect_access_token(self, token: str) -> Introspection:
        """RFC 7662: ``{"active": false}``, or the claims while the token verifies and its session is not revoked."""
        return cast(Introspection, await self._call("introspect_access_token", body={"token": token}))

    async def create_handoff_code(
        self, *, access_token: Optional[str] = None, user_id: Optional[str] = None,
        code_challenge: Optional[str] = None,
    ) -> HandoffResponse:
        """A one-time code for a web view: for the session of ``access_token`` (the app's), or for ``user_id`` (with
        the API key: your backend vouches for the user). ``code_challenge``: the page's PKCE S256 challenge."""
        exactly_one("create_handoff_code", access_token=access_token, user_id=user_id)
        body = members(userId=user_id, codeChallenge=code_challenge)
        return cast(HandoffResponse, await self._call("create_handoff_code", body=body, access_token=access_token))

    async def exchange_handoff_code(
        self, code: str, *, code_verifier: Optional[str] = None, cookie: Optional[bool] = None
    ) -> SessionResponse:
        """A session of the web view's own, once per code. ``cookie=True`` puts the refresh token in a cookie
        (for a browser's own request; this client drops cookies)."""
        body = members(code=code, codeVerifier=code_verifier, cookie=cookie)
        return cast(SessionResponse, await self._call("exchange_handoff_code", body=body))

    # ---- self-service: the signed-in person's own account, with their access token ----

    async def me_list_credentials(self, access_token: str) -> MeCredentialList:
        return cast(MeCredentialList, await self._call("me_list_credentials", access_token=access_token))

    async def me_rename_credential(
        self, access_token: str, credential_id: str, nickname: Optional[str]
    ) -> MeCredentialResponse:
        return cast(MeCredentialResponse, await self._call(
            "me_rename_credential", path={"credentialId": credential_id}, body={"nickname": nickname},
            access_token=access_token,
        ))

    async def me_delete_credential(self, access_token: str, credential_id: str) -> None:
        """Needs a recent sign-in (401 ``reauthentication_required``); 409 ``last_sign_in_method`` for the last."""
        await self._call("me_delete_credential", path={"credentialId": credential_id}, access_token=access_token)

    async def me_registration_begin(
        self, access_token: str, *, authenticator_selection: Optional[Mapping[str, Any]] = None,
        attestation: Optional[str] = None, hints: Optional[Sequence[str]] = None,
        extensions: Optional[Mapping[str, Any]] = None, mediation: Optional[str] = None,
    ) -> RegistrationBeginResponse:
        """One more passkey for the signed-in person (needs a recent sign-in); as :meth:`registration_begin`."""
        body = registration_options(authenticator_selection, attestation, hints, extensions, mediation)
        return cast(RegistrationBeginResponse, await self._call(
            "me_registration_begin", body=body, access_token=access_token
        ))

    async def me_registration_finish(
        self, access_token: str, credential: Mapping[str, Any], *, nickname: Optional[str] = None
    ) -> MeRegistrationFinishResponse:
        body = members(credential=credential, nickname=nickname)
        return cast(MeRegistrationFinishResponse, await self._call(
            "me_registration_finish", body=body, access_token=access_token
        ))

    async def me_list_identities(self, access_token: str) -> MeIdentityList:
        return cast(MeIdentityList, await self._call("me_list_identities", access_token=access_token))

    async def me_unlink_identity(self, access_token: str, identity_id: str) -> None:
        """Needs a recent sign-in (401 ``reauthentication_required``); 409 ``last_sign_in_method`` for the last."""
        await self._call("me_unlink_identity", path={"identityId": identity_id}, access_token=access_token)

    # ---- App Store ----

    async def app_store_post_transaction(self, user_id: str, signed_transaction: str) -> AppStoreTransactionResponse:
        """A purchase the app made for this user (its ``appAccountToken`` is the user's): verified offline, stored,
        and the user's entitlements."""
        body = {"userId": user_id, "signedTransaction": signed_transaction}
        return cast(AppStoreTransactionResponse, await self._call("app_store_post_transaction", body=body))

    async def app_store_post_renewal_info(self, signed_renewal_info: str) -> AppStoreRenewalResponse:
        body = {"signedRenewalInfo": signed_renewal_info}
        return cast(AppStoreRenewalResponse, await self._call("app_store_post_renewal_info", body=body))

    async def app_store_notification(self, signed_payload: str) -> AppStoreNotificationResponse:
        """An App Store Server Notification V2 (normally posted by Apple itself to passkeyd)."""
        body = {"signedPayload": signed_payload}
        return cast(AppStoreNotificationResponse, await self._call("app_store_notification", body=body))

    async def app_store_entitlements(self, user_id: str) -> EntitlementsResponse:
        """The user's ``appAccountToken`` (for the app's purchases) and entitlements."""
        return cast(EntitlementsResponse, await self._call("app_store_entitlements", path={"userId": user_id}))

    # ---- App Attest ----

    async def app_attest_challenge(self) -> AppAttestChallenge:
        return cast(AppAttestChallenge, await self._call("app_attest_challenge", body={}))

    async def app_attest_attestation(
        self, *, key_id: str, attestation_object: str, challenge: str, user_id: Optional[str] = None
    ) -> AppAttestKey:
        body = members(keyId=key_id, attestationObject=attestation_object, challenge=challenge, userId=user_id)
        return cast(AppAttestKey, await self._call("app_attest_attestation", body=body))

    async def app_attest_assertion(self, *, key_id: str, assertion: str, client_data: str) -> AppAttestKey:
        body = {"keyId": key_id, "assertion": assertion, "clientData": client_data}
        return cast(AppAttestKey, await self._call("app_attest_assertion", body=body))

    # ---- admin (admin_key) ----

    async def admin_list_users(
        self, *, name: Optional[str] = None, limit: Optional[int] = None, after: Optional[str] = None
    ) -> UserPage:
        """A page of users, oldest first; ``after`` is the previous page's ``next``."""
        query = {"name": name, "limit": limit, "after": after}
        return cast(UserPage, await self._call("admin_list_users", query=query))

    async def admin_get_user(self, user_id: str) -> AdminUserWithCredentials:
        return cast(AdminUserWithCredentials, await self._call("admin_get_user", path={"userId": user_id}))

    async def admin_delete_user(self, user_id: str) -> None:
        await self._call("admin_delete_user", path={"userId": user_id})

    async def admin_list_user_credentials(self, user_id: str) -> AdminCredentialList:
        return cast(AdminCredentialList, await self._call("admin_list_user_credentials", path={"userId": user_id}))

    async def admin_get_credential(self, credential_id: str) -> AdminCredentialWithUser:
        return cast(AdminCredentialWithUser, await self._call(
            "admin_get_credential", path={"credentialId": credential_id}
        ))

    async def admin_rename_credential(self, credential_id: str, nickname: Optional[str]) -> AdminCredentialResponse:
        return cast(AdminCredentialResponse, await self._call(
            "admin_rename_credential", path={"credentialId": credential_id}, body={"nickname": nickname}
        ))

    async def admin_delete_credential(self, credential_id: str) -> None:
        await self._call("admin_delete_credential", path={"credentialId": credential_id})

    async def admin_audit_events(
        self, *, user_id: Optional[str] = None, since: Union[str, datetime, None] = None,
        until: Union[str, datetime, None] = None, limit: Optional[int] = None, after: Optional[str] = None,
    ) -> AuditEventPage:
        """A page of the audit trail, oldest first: of one user, between ``since`` and ``until`` (RFC 3339 strings
        or aware datetimes)."""
        query = {"user": user_id, "since": since, "until": until, "limit": limit, "after": after}
        return cast(AuditEventPage, await self._call("admin_audit_events", query=query))

    async def admin_list_user_identities(self, user_id: str) -> AdminIdentityList:
        return cast(AdminIdentityList, await self._call("admin_list_user_identities", path={"userId": user_id}))

    async def admin_unlink_identity(self, user_id: str, identity_id: str) -> None:
        await self._call("admin_unlink_identity", path={"userId": user_id, "identityId": identity_id})

    async def admin_list_user_sessions(self, user_id: str) -> AdminSessionList:
        return cast(AdminSessionList, await self._call("admin_list_user_sessions", path={"userId": user_id}))

    async def admin_revoke_user_sessions(self, user_id: str) -> AdminRevokedSessions:
        return cast(AdminRevokedSessions, await self._call("admin_revoke_user_sessions", path={"userId": user_id}))

    async def admin_revoke_user_session(self, user_id: str, session_id: str) -> None:
        await self._call("admin_revoke_user_session", path={"userId": user_id, "sessionId": session_id})

    async def admin_list_webhook_endpoints(self) -> WebhookEndpointList:
        return cast(WebhookEndpointList, await self._call("admin_list_webhook_endpoints"))

    async def admin_list_webhook_deliveries(
        self, endpoint_id: str, *, status: Optional[str] = None, limit: Optional[int] = None, after: Optional[str] = None,
    ) -> WebhookDeliveryPage:
        """A page of the endpoint's deliveries, oldest first (``status``: pending, delivered or failed)."""
        query = {"status": status, "limit": limit, "after": after}
        return cast(
            WebhookDeliveryPage,
            await self._call("admin_list_webhook_deliveries", path={"endpointId": endpoint_id}, query=query),
        )

    async def admin_redeliver_webhook(self, delivery_id: str) -> None:
        await self._call("admin_redeliver_webhook", path={"deliveryId": delivery_id})

    async def admin_pause_webhook_endpoint(self, endpoint_id: str) -> None:
        await self._call("admin_pause_webhook_endpoint", path={"endpointId": endpoint_id})

    async def admin_resume_webhook_endpoint(self, endpoint_id: str) -> None:
        await self._call("admin_resume_webhook_endpoint", path={"endpointId": endpoint_id})

    # ---- FIDO conformance binding (PASSKEYD_CONFORMANCE=on; for the FIDO test tools, not for apps) ----

    async def conformance_attestation_options(
        self, username: str, *, display_name: Optional[str] = None,
        authenticator_selection: Optional[Mapping[str, Any]] = None, attestation: Optional[str] = None,
        extensions: Optional[Mapping[str, Any]] = None,
    ) -> ConformanceCreationOptionsResponse:
        body = members(
            username=username, displayName=display_name, authenticatorSelection=authenticator_selection,
            attestation=attestation, extensions=extensions,
        )
        return cast(ConformanceCreationOptionsResponse, await self._call("conformance_attestation_options", body=body))

    async def conformance_attestation_result(self, credential: Mapping[str, Any]) -> ConformanceServerResponse:
        body = dict(credential)
        return cast(ConformanceServerResponse, await self._call("conformance_attestation_result", body=body))

    async def conformance_assertion_options(
        self, username: str, *, user_verification: Optional[str] = None,
        extensions: Optional[Mapping[str, Any]] = None,
    ) -> ConformanceGetOptionsResponse:
        body = members(username=username, userVerification=user_verification, extensions=extensions)
        return cast(ConformanceGetOptionsResponse, await self._call("conformance_assertion_options", body=body))

    async def conformance_assertion_result(self, credential: Mapping[str, Any]) -> ConformanceServerResponse:
        body = dict(credential)
        return cast(ConformanceServerResponse, await self._call("conformance_assertion_result", body=body))

    # ---- the service and its public documents ----

    async def get_health(self) -> Health:
        return cast(Health, await self._call("get_health"))

    async def get_readiness(self) -> Readiness:
        """``{"status": "ready"}`` while the database answers; 503 ``storage_unavailable`` (raised) when not."""
        return cast(Readiness, await self._call("get_readiness"))

    async def get_metrics(self) -> str:
        """The Prometheus text."""
        return cast(str, await self._call("get_metrics", text=True))

    async def get_open_api_document(self) -> JSON:
        """The OpenAPI document of what this configuration serves."""
        return cast(JSON, await self._call("get_open_api_document"))

    async def get_apple_app_site_association(self) -> JSON:
        return cast(JSON, await self._call("get_apple_app_site_association"))

    async def get_asset_links(self) -> List[JSON]:
        return cast(List[JSON], await self._call("get_asset_links"))

    async def get_related_origins(self) -> JSON:
        return cast(JSON, await self._call("get_related_origins"))

    # ---- transport ----

    async def _call(
        self, name: str, *, path: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None,
        body: Optional[Mapping[str, Any]] = None, access_token: Optional[str] = None, text: bool = False,
    ) -> Any:
        """One operation: its request, tried again as the retry policy allows, its answer decoded."""
        operation = OPERATIONS[name]
        config = self._settings
        url, headers, params = request_parts(config, operation, path, query, access_token)
        policy = config.retry
        retried = policy.applies_to(operation.kind)
        started = _retry.monotonic()
        attempt = 0
        while True:
            attempt += 1
            elapsed = _retry.monotonic() - started
            request = self._http.build_request(
                operation.method, url, headers=headers, params=params, json=body,
                timeout=attempt_timeout(config.timeout, policy.deadline, elapsed),
            )
            failure: PasskeydError
            cause: Optional[BaseException] = None
            try:
                response = await self._http.send(request)
            except (httpx.ConnectError, httpx.ConnectTimeout) as sent_nothing:
                # Nothing was sent: another attempt is as safe as the first.
                failure, cause = transport_failure(sent_nothing, name, attempt), sent_nothing
            except httpx.TransportError as lost:
                raise transport_failure(lost, name, attempt) from lost
            else:
                if response.status_code < 400 or response.status_code not in policy.statuses:
                    return result(operation, response, attempt, text)
                failure = error(operation, response, attempt)
            wait = policy.wait(attempt, failure.retry_after, _retry.monotonic() - started) if retried else None
            if wait is None:
                raise failure from cause
            await _retry.async_sleep(wait)
