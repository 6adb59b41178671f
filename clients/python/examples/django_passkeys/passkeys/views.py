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
    return PasskeydClient(settings.PASSKEYD_URL, api_key=settings.PASSKEYD_API_KEY)


def body(request: HttpRequest) -> dict:
    try:
        value = json.loads(request.body or b"{}")
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {}


def failure(error: PasskeydError) -> JsonResponse:
    """passkeyd's stable code, its status, and for an unknown passkey the Signal API's arguments."""
    answer = {"error": {"code": error.code, "message": error.message}}
    if error.signal:
        answer["signal"] = error.signal
    return JsonResponse(answer, status=error.status)


@require_POST
def register_begin(request: HttpRequest) -> JsonResponse:
    name = body(request).get("name")
    if not isinstance(name, str) or not name:
        return JsonResponse({"error": {"code": "name_required", "message": "A user name is required."}}, status=400)
    try:
        return JsonResponse({"publicKey": passkeyd().registration_begin(user_name=name)})
    except PasskeydError as error:
        return failure(error)


@require_POST
def add_begin(request: HttpRequest) -> JsonResponse:
    """One more passkey for the signed-in user (by passkeyd user id, from the session)."""
    user_id = request.session.get("passkeyd_user_id")
    if not user_id:
        return JsonResponse({"error": {"code": "signed_out", "message": "Sign in first."}}, status=401)
    try:
        return JsonResponse({"publicKey": passkeyd().registration_begin(user_id=user_id)})
    except PasskeydError as error:
        return failure(error)


@require_POST
def register_finish(request: HttpRequest) -> JsonResponse:
    try:
        result = passkeyd().registration_finish(body(request).get("credential") or {}, nickname=body(request).get("nickname"))
    except PasskeydError as error:
        return failure(error)
    request.session.cycle_key()
    request.session["passkeyd_user_id"] = result["user"]["id"]
    return JsonResponse({"user": result["user"], "credential": result["credential"]}, status=201)


@require_POST
def signin_begin(request: HttpRequest) -> JsonResponse:
    name = body(request).get("name")
    try:
        return JsonResponse({"publicKey": passkeyd().authentication_begin(user_name=name if isinstance(name, str) and name else None)})
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
