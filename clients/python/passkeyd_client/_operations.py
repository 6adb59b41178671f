"""Every operation of openapi.json: the client method that calls it (its operationId in snake_case), its HTTP method
and path, who authorizes it, and its kind, which decides whether it is retried by default.

tests/test_coverage.py checks this table against openapi.json (every operationId has exactly one row, with the same
method, path and security) and against both clients (every row has a method, every public method a row)."""

import re
from dataclasses import dataclass
from typing import Dict, Tuple

# Kinds. Retried by default (on 429/503 and connection failures): begins and reads. Not retried unless the caller
# opts in (RetryPolicy(writes=True)): finishes and other writes, where a second attempt of a call whose answer was
# lost may be refused or may act twice (a refresh token is rotated, a one-time code or challenge consumed).
BEGIN = "begin"  # starts a ceremony: a fresh challenge; a retry only leaves an unused one to expire
READ = "read"  # changes nothing
WRITE = "write"  # a finish, a create, a change, a delete, a one-time exchange
PROBE = "probe"  # /readyz: a 503 is its answer, not a reason to wait

RETRIED_BY_DEFAULT = frozenset({BEGIN, READ})

# Security schemes, as openapi.json names them.
API_KEY = "apiKey"
ADMIN_KEY = "adminKey"
ACCESS_TOKEN = "accessToken"


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str
    auth: Tuple[str, ...]  # the security schemes it accepts (none: public)
    kind: str

    @property
    def name(self) -> str:
        """The client method: the operationId in snake_case (getOpenAPIDocument → get_open_api_document)."""
        return snake_case(self.operation_id)


def snake_case(operation_id: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", operation_id).lower()


_TABLE = [
    # passkeys: registration and sign-in
    Operation("registrationBegin", "POST", "/v1/registration/begin", (API_KEY,), BEGIN),
    Operation("registrationFinish", "POST", "/v1/registration/finish", (API_KEY,), WRITE),
    Operation("createUser", "POST", "/v1/users", (API_KEY,), WRITE),
    Operation("authenticationBegin", "POST", "/v1/authentication/begin", (API_KEY,), BEGIN),
    Operation("authenticationFinish", "POST", "/v1/authentication/finish", (API_KEY,), WRITE),
    Operation("getUserSignals", "GET", "/v1/users/{userId}/signals", (API_KEY,), READ),
    # ID tokens
    Operation("idTokenBegin", "POST", "/v1/idtoken/begin", (API_KEY,), BEGIN),
    Operation("idTokenFinish", "POST", "/v1/idtoken/finish", (API_KEY,), WRITE),
    # sessions and handoff
    Operation("getSessionJWKS", "GET", "/.well-known/jwks.json", (), READ),
    Operation("refreshSession", "POST", "/v1/sessions/refresh", (), WRITE),
    Operation("revokeSession", "POST", "/v1/sessions/revoke", (ACCESS_TOKEN,), WRITE),
    Operation("introspectAccessToken", "POST", "/v1/sessions/introspect", (API_KEY,), READ),
    Operation("createHandoffCode", "POST", "/v1/handoff", (ACCESS_TOKEN, API_KEY), WRITE),
    Operation("exchangeHandoffCode", "POST", "/v1/handoff/exchange", (), WRITE),
    # self-service, with the signed-in person's access token
    Operation("meListCredentials", "GET", "/v1/me/credentials", (ACCESS_TOKEN,), READ),
    Operation("meRenameCredential", "PATCH", "/v1/me/credentials/{credentialId}", (ACCESS_TOKEN,), WRITE),
    Operation("meDeleteCredential", "DELETE", "/v1/me/credentials/{credentialId}", (ACCESS_TOKEN,), WRITE),
    Operation("meRegistrationBegin", "POST", "/v1/me/registration/begin", (ACCESS_TOKEN,), BEGIN),
    Operation("meRegistrationFinish", "POST", "/v1/me/registration/finish", (ACCESS_TOKEN,), WRITE),
    Operation("meListIdentities", "GET", "/v1/me/identities", (ACCESS_TOKEN,), READ),
    Operation("meUnlinkIdentity", "DELETE", "/v1/me/identities/{identityId}", (ACCESS_TOKEN,), WRITE),
    # App Store
    Operation("appStorePostTransaction", "POST", "/v1/appstore/transactions", (API_KEY,), WRITE),
    Operation("appStorePostRenewalInfo", "POST", "/v1/appstore/renewals", (API_KEY,), WRITE),
    Operation("appStoreNotification", "POST", "/v1/appstore/notifications", (), WRITE),
    Operation("appStoreEntitlements", "GET", "/v1/users/{userId}/entitlements", (API_KEY,), READ),
    # App Attest
    Operation("appAttestChallenge", "POST", "/v1/appattest/challenge", (API_KEY,), BEGIN),
    Operation("appAttestAttestation", "POST", "/v1/appattest/attestations", (API_KEY,), WRITE),
    Operation("appAttestAssertion", "POST", "/v1/appattest/assertions", (API_KEY,), WRITE),
    # admin
    Operation("adminListUsers", "GET", "/v1/admin/users", (ADMIN_KEY,), READ),
    Operation("adminGetUser", "GET", "/v1/admin/users/{userId}", (ADMIN_KEY,), READ),
    Operation("adminDeleteUser", "DELETE", "/v1/admin/users/{userId}", (ADMIN_KEY,), WRITE),
    Operation("adminListUserCredentials", "GET", "/v1/admin/users/{userId}/credentials", (ADMIN_KEY,), READ),
    Operation("adminGetCredential", "GET", "/v1/admin/credentials/{credentialId}", (ADMIN_KEY,), READ),
    Operation("adminRenameCredential", "PATCH", "/v1/admin/credentials/{credentialId}", (ADMIN_KEY,), WRITE),
    Operation("adminDeleteCredential", "DELETE", "/v1/admin/credentials/{credentialId}", (ADMIN_KEY,), WRITE),
    Operation("adminAuditEvents", "GET", "/v1/admin/audit-events", (ADMIN_KEY,), READ),
    Operation("adminListUserIdentities", "GET", "/v1/admin/users/{userId}/identities", (ADMIN_KEY,), READ),
    Operation(
        "adminUnlinkIdentity", "DELETE", "/v1/admin/users/{userId}/identities/{identityId}", (ADMIN_KEY,), WRITE
    ),
    Operation("adminListUserSessions", "GET", "/v1/admin/users/{userId}/sessions", (ADMIN_KEY,), READ),
    Operation("adminRevokeUserSessions", "DELETE", "/v1/admin/users/{userId}/sessions", (ADMIN_KEY,), WRITE),
    Operation(
        "adminRevokeUserSession", "DELETE", "/v1/admin/users/{userId}/sessions/{sessionId}", (ADMIN_KEY,), WRITE
    ),
    Operation("adminListWebhookEndpoints", "GET", "/v1/admin/webhooks/endpoints", (ADMIN_KEY,), READ),
    Operation(
        "adminListWebhookDeliveries", "GET", "/v1/admin/webhooks/endpoints/{endpointId}/deliveries", (ADMIN_KEY,), READ
    ),
    Operation(
        "adminRedeliverWebhook", "POST", "/v1/admin/webhooks/deliveries/{deliveryId}/redeliver", (ADMIN_KEY,), WRITE
    ),
    Operation(
        "adminPauseWebhookEndpoint", "POST", "/v1/admin/webhooks/endpoints/{endpointId}/pause", (ADMIN_KEY,), WRITE
    ),
    Operation(
        "adminResumeWebhookEndpoint", "POST", "/v1/admin/webhooks/endpoints/{endpointId}/resume", (ADMIN_KEY,), WRITE
    ),
    # FIDO conformance binding (PASSKEYD_CONFORMANCE=on)
    Operation("conformanceAttestationOptions", "POST", "/attestation/options", (API_KEY,), BEGIN),
    Operation("conformanceAttestationResult", "POST", "/attestation/result", (API_KEY,), WRITE),
    Operation("conformanceAssertionOptions", "POST", "/assertion/options", (API_KEY,), BEGIN),
    Operation("conformanceAssertionResult", "POST", "/assertion/result", (API_KEY,), WRITE),
    # service and public documents
    Operation("getHealth", "GET", "/healthz", (), READ),
    Operation("getReadiness", "GET", "/readyz", (), PROBE),
    Operation("getMetrics", "GET", "/metrics", (), READ),
    Operation("getOpenAPIDocument", "GET", "/openapi.json", (), READ),
    Operation("getAppleAppSiteAssociation", "GET", "/.well-known/apple-app-site-association", (), READ),
    Operation("getAssetLinks", "GET", "/.well-known/assetlinks.json", (), READ),
    Operation("getRelatedOrigins", "GET", "/.well-known/webauthn", (), READ),
]

# method name → operation
OPERATIONS: Dict[str, Operation] = {operation.name: operation for operation in _TABLE}
assert len(OPERATIONS) == len(_TABLE), "two operations with one method name"
