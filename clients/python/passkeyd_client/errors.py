"""What the client raises: ``PasskeydError`` for every failure, so one ``except PasskeydError`` covers them all.

- An error answer of passkeyd: ``PasskeydError`` itself, with ``status`` (the HTTP status), ``code`` (the stable
  snake_case code, an :class:`ErrorCode`), ``message``, ``retry_after`` (seconds, from ``Retry-After`` on 429/503)
  and ``signal`` (on ``credential_unknown`` at a sign-in: the Signal API's arguments).
- No answer: ``PasskeydConnectionError`` (connecting or the connection failed) and ``PasskeydTimeout`` (no answer in
  time, or the retry deadline passed), both ``PasskeydTransportError``, with ``status`` None.
"""

from typing import Any, Mapping, Optional, Union

from .codes import ErrorCode
from .models import ErrorSignal


class PasskeydError(Exception):
    """An error answer of passkeyd (``status`` set), or, as a subclass, a failure to get one.

    ``code`` is an :class:`ErrorCode` for every code openapi.json lists, or the plain string of a code this client
    does not know yet (it equals the string either way: ``error.code == "user_exists"``); ``http_<status>`` when the
    answer was not passkeyd's JSON error form (a proxy's page). ``message`` is for humans and not stable.
    """

    def __init__(
        self,
        status: Optional[int],
        code: Union[ErrorCode, str, None],
        message: str,
        *,
        signal: Optional[ErrorSignal] = None,
        retry_after: Optional[float] = None,
        operation: Optional[str] = None,
        attempts: int = 1,
    ) -> None:
        where = f" ({operation})" if operation else ""
        head = f"{status} {code}" if status is not None else type(self).__name__
        super().__init__(f"{head}: {message}{where}")
        self.status = status
        self.code = code
        self.message = message
        self.signal = signal
        self.retry_after = retry_after
        self.operation = operation
        self.attempts = attempts

    @classmethod
    def from_answer(
        cls, status: int, body: Any, *, retry_after: Optional[float] = None, operation: Optional[str] = None,
        attempts: int = 1,
    ) -> "PasskeydError":
        """From an error answer's decoded JSON body (None when it had none or it was not JSON)."""
        if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
            error = body["error"]
            signal = body.get("signal")
            code = error.get("code")
            return cls(
                status,
                ErrorCode.parse(code) if isinstance(code, str) else f"http_{status}",
                str(error.get("message", "")),
                signal=signal if isinstance(signal, Mapping) else None,  # type: ignore[arg-type]
                retry_after=retry_after,
                operation=operation,
                attempts=attempts,
            )
        return cls(
            status, f"http_{status}", "the answer is not passkeyd's JSON error form",
            retry_after=retry_after, operation=operation, attempts=attempts,
        )


class PasskeydTransportError(PasskeydError):
    """No answer from passkeyd: ``status`` and ``code`` are None; the httpx exception is ``__cause__``."""

    def __init__(self, message: str, *, operation: Optional[str] = None, attempts: int = 1) -> None:
        super().__init__(None, None, message, operation=operation, attempts=attempts)


class PasskeydConnectionError(PasskeydTransportError):
    """Could not connect, or the connection failed before the answer was read."""


class PasskeydTimeout(PasskeydTransportError):
    """No answer within the timeout, or the retry policy's deadline left no time for another attempt."""
