"""The JSON shapes passkeyd answers, as TypedDicts (field names exactly as in openapi.json; the tests check them).

No `from __future__ import annotations` here: TypedDict must see NotRequired itself to know the optional keys."""


from typing import Any, Dict, List, NotRequired, Optional, TypedDict


class Provider(TypedDict):
    """The passkey provider by name (``PASSKEYD_PROVIDER_NAMES_FILE``)."""

    name: str
    iconLight: Optional[str]
    iconDark: Optional[str]


class Credential(TypedDict):
    id: str
    publicKeyAlgorithm: int
    signCount: int
    aaguid: str
    attestationFormat: str
    transports: List[str]
    backupEligible: bool
    backedUp: bool
    userVerified: bool
    nickname: Optional[str]
    createdAt: str
    lastUsedAt: Optional[str]
    attestation: Dict[str, Any]
    provider: Optional[Provider]


class User(TypedDict):
    id: str
    name: str
    displayName: str
    createdAt: str


class AcceptedCredentialsSignal(TypedDict):
    """Pass to ``PublicKeyCredential.signalAllAcceptedCredentials`` / ``signalCurrentUserDetails``."""

    rpId: str
    userId: str
    allAcceptedCredentialIds: List[str]
    name: str
    displayName: str


class UnknownCredentialSignal(TypedDict):
    """Pass to ``PublicKeyCredential.signalUnknownCredential``."""

    rpId: str
    credentialId: str


class RegistrationResult(TypedDict):
    user: User
    credential: Credential
    session: NotRequired[Dict[str, Any]]


class AuthenticationResult(TypedDict):
    credential: Credential
    userVerified: bool
    signCountStatus: str
    user: NotRequired[User]
    signal: NotRequired[AcceptedCredentialsSignal]
    session: NotRequired[Dict[str, Any]]
