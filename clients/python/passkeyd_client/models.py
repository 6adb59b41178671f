"""The JSON shapes passkeyd answers, as TypedDicts (field names exactly as in openapi.json; the tests check them).

No `from __future__ import annotations` here: TypedDict must see NotRequired itself to know the optional keys."""


from typing import Any, Dict, List, NotRequired, Optional, TypedDict


class Provider(TypedDict):
    """The passkey provider by name (``PASSKEYD_PROVIDER_NAMES_FILE``)."""

    name: str
    iconLight: Optional[str]
    iconDark: Optional[str]


class CredentialExtensions(TypedDict):
    """What the registration's client extension results reported; each None when not reported."""

    discoverable: Optional[bool]
    prfEnabled: Optional[bool]
    largeBlobSupported: Optional[bool]


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
    createdBy: str  # "modal", or "conditional" for an automatic passkey upgrade
    extensions: CredentialExtensions


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


class RegistrationBeginAnswer(TypedDict):
    """A registration begin's answer: ``publicKey`` options, and ``mediation`` ("conditional") only for an automatic
    passkey upgrade (pass both to ``navigator.credentials.create``)."""

    publicKey: Dict[str, Any]
    mediation: NotRequired[str]


class RegistrationResult(TypedDict):
    user: User
    credential: Credential
    session: NotRequired[Dict[str, Any]]


class MeRegistrationResult(TypedDict):
    """``/v1/me/registration/finish``: no session (the person is signed in)."""

    user: User
    credential: Credential


class Identity(TypedDict):
    id: str
    provider: str
    issuer: str
    subject: str
    email: Optional[str]
    emailVerified: Optional[bool]
    isPrivateEmail: Optional[bool]
    realUserStatus: Optional[int]
    createdAt: str
    lastUsedAt: Optional[str]


class AuthenticationResult(TypedDict):
    credential: Credential
    userVerified: bool
    signCountStatus: str
    user: NotRequired[User]
    signal: NotRequired[AcceptedCredentialsSignal]
    session: NotRequired[Dict[str, Any]]
