"""Typed client for passkeyd, the WebAuthn/passkey relying-party service, for Python app backends.

``PasskeydClient`` (synchronous) and ``AsyncPasskeydClient`` (asyncio), both on httpx with pooled connections: one
method per operation of passkeyd's openapi.json, named as its operationId in snake_case, returning the answer's JSON
as TypedDicts (``models``). Every failure raises ``PasskeydError`` (an error answer: ``status``, ``code`` as an
``ErrorCode``, ``retry_after``, ``signal``), its subclasses ``PasskeydConnectionError`` and ``PasskeydTimeout`` when
there was no answer. Begins and reads are retried on 429/503 as ``RetryPolicy`` says; finishes and writes are not
unless asked.
"""

from . import models
from ._async_client import AsyncPasskeydClient
from ._client import PasskeydClient
from ._operations import OPERATIONS, Operation
from ._retry import NO_RETRY, RetryPolicy
from ._version import __version__
from .codes import ErrorCode
from .errors import PasskeydConnectionError, PasskeydError, PasskeydTimeout, PasskeydTransportError

__all__ = [
    "AsyncPasskeydClient",
    "ErrorCode",
    "NO_RETRY",
    "OPERATIONS",
    "Operation",
    "PasskeydClient",
    "PasskeydConnectionError",
    "PasskeydError",
    "PasskeydTimeout",
    "PasskeydTransportError",
    "RetryPolicy",
    "__version__",
    "models",
]
