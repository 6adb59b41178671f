from __future__ import annotations

from typing import Any, Mapping, Optional

from .models import UnknownCredentialSignal


class PasskeydError(Exception):
    """An error answer of passkeyd: the HTTP status and the stable snake_case ``code`` (``credential_unknown``,
    ``challenge_unknown_or_expired``, ``signature_invalid``, …). ``message`` is for humans and not stable.
    ``signal`` is set for ``credential_unknown`` on a sign-in: pass it to the page's
    ``PublicKeyCredential.signalUnknownCredential``. ``retry_after`` is the ``Retry-After`` header of 429/503."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        signal: Optional[UnknownCredentialSignal] = None,
        retry_after: Optional[int] = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.signal = signal
        self.retry_after = retry_after

    @classmethod
    def from_body(cls, status: int, body: Any, retry_after: Optional[int] = None) -> "PasskeydError":
        """From a decoded error body; a body that is not passkeyd's error form becomes ``http_<status>``."""
        if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
            error = body["error"]
            signal = body.get("signal")
            return cls(
                status,
                str(error.get("code", f"http_{status}")),
                str(error.get("message", "")),
                signal if isinstance(signal, Mapping) else None,  # type: ignore[arg-type]
                retry_after,
            )
        return cls(status, f"http_{status}", "the answer is not passkeyd's JSON error form", None, retry_after)
