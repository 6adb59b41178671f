"""Passkey sign-up and sign-in views that call passkeyd (in place of py_webauthn's generate_*/verify_* and the
tables that go with them). The page passes the options to `navigator.credentials.create/get` (after
`PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`) and posts `credential.toJSON()`
back; the `signal` objects go to the browser's Signal API.

The session holds passkeyd's user id. Adding a passkey to an existing account names the account by that id, and
only for the signed-in user: a name or e-mail never links a passkey to an account."""

import json
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from passkeyd_client import PasskeydClient, PasskeydError


@lru_cache(maxsize=1)
def passkeyd() -> PasskeydClient:
    """One client for the process: its connection pool is shared by every request (httpx.Client is thread-safe).
    Begins are retried on 429/503 within the client's deadline; finishes are not (see RetryPolicy)."""
    return PasskeydClient(settings.PASSKEYD_URL, api_key=settings.PASSKEYD_API_KEY, timeout=settings.PASSKEYD_TIMEOUT)


def body(request: HttpRequest) -> dict:
    try:
        value = json.loads(request.body or b"{}")
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {}


def failure(error: PasskeydError) -> JsonResponse:
    """passkeyd's stable code (an ErrorCode, JSON-encoded as its string), its status, and for an unknown passkey the
    Signal API's arguments; 503 ``passkeyd_unavailable`` when passkeyd did not answer (PasskeydConnectionError,
    PasskeydTimeout), with Retry-After when passkeyd asked to wait."""
    if error.status is None:
        return JsonResponse({"error": {"code": "passkeyd_unavailable", "message": "Try again."}}, status=503)
    answer = {"error": {"code": error.code, "message": error.message}}
    if error.signal:
        answer["signal"] = error.signal
    response = JsonResponse(answer, status=error.status)
    if error.retry_after is not None:
        response["Retry-After"] = str(int(error.retry_after))
    return response


@require_POST
def register_begin(request: HttpRequest) -> JsonResponse:
    name = body(request).get("name")
    if not isinstance(name, str) or not name:
        return JsonResponse({"error": {"code": "name_required", "message": "A user name is required."}}, status=400)
    try:
        # The whole answer goes to the page: {"publicKey"} (and "mediation" for an automatic upgrade).
        return JsonResponse(passkeyd().registration_begin(user_name=name))
    except PasskeydError as error:
        return failure(error)


@require_POST
def add_begin(request: HttpRequest) -> JsonResponse:
    """One more passkey for the signed-in user (by passkeyd user id, from the session)."""
    user_id = request.session.get("passkeyd_user_id")
    if not user_id:
        return JsonResponse({"error": {"code": "signed_out", "message": "Sign in first."}}, status=401)
    try:
        return JsonResponse(passkeyd().registration_begin(user_id=user_id))
    except PasskeydError as error:
        return failure(error)


@require_POST
def register_finish(request: HttpRequest) -> JsonResponse:
    data = body(request)
    try:
        result = passkeyd().registration_finish(data.get("credential") or {}, nickname=data.get("nickname"))
    except PasskeydError as error:
        return failure(error)
    request.session.cycle_key()
    request.session["passkeyd_user_id"] = result["user"]["id"]
    return JsonResponse({"user": result["user"], "credential": result["credential"]}, status=201)


@require_POST
def signin_begin(request: HttpRequest) -> JsonResponse:
    name = body(request).get("name")
    try:
        return JsonResponse(passkeyd().authentication_begin(user_name=name if isinstance(name, str) and name else None))
    except PasskeydError as error:
        return failure(error)


@require_POST
def signin_finish(request: HttpRequest) -> JsonResponse:
    try:
        result = passkeyd().authentication_finish(body(request).get("credential") or {})
    except PasskeydError as error:
        return failure(error)
    request.session.cycle_key()
    request.session["passkeyd_user_id"] = result["user"]["id"]
    return JsonResponse({"user": result["user"], "signal": result.get("signal")})


@require_GET
def me(request: HttpRequest) -> JsonResponse:
    user_id = request.session.get("passkeyd_user_id")
    if not user_id:
        return JsonResponse({"error": {"code": "signed_out", "message": "Not signed in."}}, status=401)
    return JsonResponse({"userId": user_id})


@require_POST
def signout(request: HttpRequest) -> JsonResponse:
    request.session.flush()
    return JsonResponse({}, status=200)
