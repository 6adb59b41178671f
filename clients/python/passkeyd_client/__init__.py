"""Typed client for passkeyd (https://github.com/…/passkeyd): passkey registration and sign-in for app backends.

Standard library only. Every call is one HTTP request to passkeyd; errors raise :class:`PasskeydError` with the
stable ``code`` of passkeyd's JSON error body.
"""

from .client import OPERATIONS, PasskeydClient
from .errors import PasskeydError
from .models import (
    AcceptedCredentialsSignal,
    AuthenticationResult,
    Credential,
    Provider,
    RegistrationResult,
    UnknownCredentialSignal,
    User,
)

__all__ = [
    "OPERATIONS",
    "PasskeydClient",
    "PasskeydError",
    "AcceptedCredentialsSignal",
    "AuthenticationResult",
    "Credential",
    "Provider",
    "RegistrationResult",
    "UnknownCredentialSignal",
    "User",
]
