"""What both clients share: the settings, how an operation becomes a request, how an answer becomes a result or a
``PasskeydError``, and the request bodies that take more than copying arguments. No I/O."""

import urllib.parse
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import httpx

from ._operations import ACCESS_TOKEN, ADMIN_KEY, API_KEY, Operation
from ._retry import NO_RETRY, RetryPolicy, parse_retry_after
from ._version import __version__
from .errors import PasskeydConnectionError, PasskeydError, PasskeydTimeout

USER_AGENT = f"passkeyd-client-python/{__version__}"

Timeout = Union[float, httpx.Timeout, None]


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: Optional[str]
    admin_key: Optional[str]
    timeout: Timeout
    retry: RetryPolicy
    headers: Tuple[Tuple[str, str], ...]

    def but(self, **changes: Any) -> "Settings":
        return replace(self, **{k: v for k, v in changes.items() if v is not _UNCHANGED})


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


_UNCHANGED: Any = _Unchanged()


def settings(
    base_url: str, api_key: Optional[str], admin_key: Optional[str], timeout: Timeout, retry: Optional[RetryPolicy],
    headers: Optional[Mapping[str, str]],
) -> Settings:
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url must be an http(s) URL, not {base_url!r}")
    return Settings(
        base_url.rstrip("/"), api_key, admin_key, timeout, retry if retry is not None else NO_RETRY,
        tuple((headers or {}).items()),
    )


def request_parts(
    config: Settings, operation: Operation, path: Optional[Mapping[str, str]], query: Optional[Mapping[str, Any]],
    access_token: Optional[str],
) -> Tuple[str, Dict[str, str], Dict[str, str]]:
    """URL, headers and query parameters of one call. The Authorization header: the access token when the call is
    made with one (only operations that take one), else the admin key for admin operations, else the API key for
    operations that take one; none for public operations."""
    template = operation.path
    for name, value in (path or {}).items():
        if not isinstance(value, str) or not value:
            raise ValueError(f"{operation.name}: {name} must be a non-empty string")
        template = template.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **dict(config.headers)}
    if access_token is not None:
        assert ACCESS_TOKEN in operation.auth, operation.name
        headers["Authorization"] = f"Bearer {access_token}"
    elif ADMIN_KEY in operation.auth:
        if config.admin_key:
            headers["Authorization"] = f"Bearer {config.admin_key}"
    elif API_KEY in operation.auth and config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    params = {k: query_value(v) for k, v in (query or {}).items() if v is not None}
    return config.base_url + template, headers, params


def query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a datetime for passkeyd needs a time zone")
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def result(operation: Operation, response: httpx.Response, attempts: int, text: bool = False) -> Any:
    """The decoded answer of a successful call: None for 204 (or an empty body), the text for ``text``, else the JSON.
    Raises ``PasskeydError`` for an error status."""
    if response.status_code >= 400:
        raise error(operation, response, attempts)
    if response.status_code == 204 or not response.content:
        return None
    if text:
        return response.text
    try:
        return response.json()
    except ValueError:
        raise PasskeydError(
            response.status_code, f"http_{response.status_code}", "the answer is not JSON",
            operation=operation.name, attempts=attempts,
        ) from None


def error(operation: Operation, response: httpx.Response, attempts: int) -> PasskeydError:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
    return PasskeydError.from_answer(
        response.status_code, body, retry_after=parse_retry_after(response.headers.get("Retry-After")),
        operation=operation.name, attempts=attempts,
    )


def transport_failure(cause: httpx.TransportError, operation: str, attempt: int) -> PasskeydError:
    """No answer: ``PasskeydTimeout`` for httpx's timeouts, ``PasskeydConnectionError`` for the rest."""
    if isinstance(cause, httpx.TimeoutException):
        return PasskeydTimeout(f"no answer in time ({type(cause).__name__})", operation=operation, attempts=attempt)
    return PasskeydConnectionError(f"connection failed ({cause})", operation=operation, attempts=attempt)


# ---- request bodies ----


def members(**values: Any) -> Dict[str, Any]:
    """A JSON object of the given members that are not None (passkeyd treats an absent member and null alike)."""
    return {name: dict(v) if isinstance(v, Mapping) else v for name, v in values.items() if v is not None}


def registration_options(
    authenticator_selection: Optional[Mapping[str, Any]], attestation: Optional[str], hints: Optional[Sequence[str]],
    extensions: Optional[Mapping[str, Any]], mediation: Optional[str],
) -> Dict[str, Any]:
    return members(
        authenticatorSelection=authenticator_selection, attestation=attestation,
        hints=list(hints) if hints is not None else None, extensions=extensions, mediation=mediation,
    )


def named_or_by_id(
    what: str, name: Optional[str], user_id: Optional[str], display_name: Optional[str] = None, required: bool = True
) -> Optional[Dict[str, Any]]:
    """``{"name", "displayName"?}`` for a new user or ``{"id"}`` for an existing one: exactly one of the two (or
    neither, when not ``required``)."""
    if name is not None and user_id is not None:
        raise ValueError(f"{what}: user_name or user_id, not both")
    if user_id is not None:
        if display_name is not None:
            raise ValueError(f"{what}: display_name goes with user_name (a new user) only")
        return {"id": user_id}
    if name is not None:
        return members(name=name, displayName=display_name)
    if required:
        raise ValueError(f"{what}: one of user_name and user_id")
    if display_name is not None:
        raise ValueError(f"{what}: display_name goes with user_name only")
    return None


def exactly_one(what: str, **values: Any) -> None:
    given = [name for name, value in values.items() if value is not None]
    if len(given) != 1:
        raise ValueError(f"{what}: exactly one of {' and '.join(values)}")
