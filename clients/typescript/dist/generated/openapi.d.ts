/** Every error response of the API: `{"error":{"code":...,"message":...}}`. The FIDO conformance endpoints add the profile's `status: "failed"` and `errorMessage`. */
export declare type ErrorBody = {
    error: {
        /** A stable snake_case code. See each operation's responses for the codes it can return. */
        code: string;
        /** Human-readable; not stable, never carries details. */
        message: string;
    };
    /** FIDO conformance endpoints only: the profile's `ServerResponse.status`. */
    status?: "failed";
    /** FIDO conformance endpoints only: `<code>: <message>`. */
    errorMessage?: string;
    /** `POST /v1/authentication/finish` with `credential_unknown` only: the arguments of `PublicKeyCredential.signalUnknownCredential({rpId, credentialId})`, so the passkey provider can hide a passkey this RP does not know (deleted, or never registered). */
    signal?: {
        rpId: string;
        credentialId: string;
    };
};
/** Binary data, base64url (RFC 4648 §5, no padding). Where the server reads binary input it also accepts standard base64 with or without padding. */
export declare type Base64URL = string;
export declare type User = {
    /** The user handle (WebAuthn user.id), base64url (RFC 4648 §5, no padding). */
    id: Base64URL;
    name: string;
    displayName: string;
    /** ISO 8601, UTC, whole seconds. */
    createdAt: string;
};
/** A registered credential. */
export declare type Credential = {
    /** The credential id, base64url (RFC 4648 §5, no padding). */
    id: Base64URL;
    /** COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, ...). */
    publicKeyAlgorithm: number;
    signCount: number;
    /** The authenticator's AAGUID as a lowercase UUID (all zeros when the authenticator does not disclose it); empty if unknown. */
    aaguid: string;
    /** The attestation statement format (`none`, `packed`, `fido-u2f`, ...). */
    attestationFormat: string;
    /** AuthenticatorTransport values (`usb`, `nfc`, `ble`, `smart-card`, `hybrid`, `internal`). */
    transports: string[];
    backupEligible: boolean;
    backedUp: boolean;
    /** Whether the user was verified at registration (for a stored credential: whether it has ever been used with user verification). */
    userVerified: boolean;
    nickname: string | null;
    /** ISO 8601, UTC, whole seconds. */
    createdAt: string;
    lastUsedAt: string | null;
    attestation: Attestation;
    /** The passkey provider or authenticator by name, for passkey management screens ("iCloud Keychain", "Google Password Manager"): from the AAGUID list of `PASSKEYD_PROVIDER_NAMES_FILE` (the community passkey-provider list's format), the name replaced by the FIDO metadata's description for attested authenticators. Null when neither knows the AAGUID (an all-zero AAGUID is never named). */
    provider: {
        name: string;
        /** A data:image/… or https:// URL for light backgrounds. */
        iconLight: string | null;
        /** The same for dark backgrounds. */
        iconDark: string | null;
    } | null;
    /** `modal` for a normal registration; `conditional` for an automatic passkey upgrade (a registration begun with `mediation: "conditional"`), which the passkey provider may create without user presence or verification: its `userVerified` stays false until a sign-in with user verification. */
    createdBy: "modal" | "conditional";
    extensions: CredentialExtensions;
};
/** A registered credential as the admin API shows it: the credential with its owner's user id. */
export declare type AdminCredential = {
    /** The credential id, base64url (RFC 4648 §5, no padding). */
    id: Base64URL;
    /** COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, ...). */
    publicKeyAlgorithm: number;
    signCount: number;
    /** The authenticator's AAGUID as a lowercase UUID (all zeros when the authenticator does not disclose it); empty if unknown. */
    aaguid: string;
    /** The attestation statement format (`none`, `packed`, `fido-u2f`, ...). */
    attestationFormat: string;
    /** AuthenticatorTransport values (`usb`, `nfc`, `ble`, `smart-card`, `hybrid`, `internal`). */
    transports: string[];
    backupEligible: boolean;
    backedUp: boolean;
    /** Whether the user was verified at registration (for a stored credential: whether it has ever been used with user verification). */
    userVerified: boolean;
    nickname: string | null;
    /** ISO 8601, UTC, whole seconds. */
    createdAt: string;
    lastUsedAt: string | null;
    /** The owner's user handle, base64url (RFC 4648 §5, no padding). */
    userId: Base64URL;
    attestation: AdminAttestation;
    /** The passkey provider or authenticator by name, for passkey management screens ("iCloud Keychain", "Google Password Manager"): from the AAGUID list of `PASSKEYD_PROVIDER_NAMES_FILE` (the community passkey-provider list's format), the name replaced by the FIDO metadata's description for attested authenticators. Null when neither knows the AAGUID (an all-zero AAGUID is never named). */
    provider: {
        name: string;
        /** A data:image/… or https:// URL for light backgrounds. */
        iconLight: string | null;
        /** The same for dark backgrounds. */
        iconDark: string | null;
    } | null;
    /** `modal` for a normal registration; `conditional` for an automatic passkey upgrade (a registration begun with `mediation: "conditional"`), which the passkey provider may create without user presence or verification: its `userVerified` stays false until a sign-in with user verification. */
    createdBy: "modal" | "conditional";
    extensions: CredentialExtensions;
};
export declare type PublicKeyCredentialDescriptorJSON = {
    type: "public-key";
    id: Base64URL;
    /** AuthenticatorTransport values (`usb`, `nfc`, `ble`, `smart-card`, `hybrid`, `internal`). */
    transports?: string[];
};
/** WebAuthn `AuthenticatorSelectionCriteria`; other members are ignored. */
export declare type AuthenticatorSelectionCriteria = {
    /** Known values: `platform`, `cross-platform`; null or an unknown value is ignored (WebAuthn §5.4: clients and RPs ignore unknown values). */
    authenticatorAttachment?: string | null;
    /** Known values: `required`, `preferred`, `discouraged`; null or an unknown value is ignored (WebAuthn §5.4: clients and RPs ignore unknown values). */
    residentKey?: string | null;
    requireResidentKey?: boolean | null;
    /** Known values: `required`, `preferred`, `discouraged`; null or an unknown value is ignored (WebAuthn §5.4: clients and RPs ignore unknown values). */
    userVerification?: string | null;
};
/** WebAuthn Level 3 `PublicKeyCredentialCreationOptionsJSON`. */
export declare type PublicKeyCredentialCreationOptionsJSON = {
    rp: {
        id?: string;
        name: string;
    };
    user: {
        id: Base64URL;
        name: string;
        displayName: string;
    };
    challenge: Base64URL;
    pubKeyCredParams: {
        type: "public-key";
        alg: number;
    }[];
    /** Milliseconds. */
    timeout?: number;
    excludeCredentials: PublicKeyCredentialDescriptorJSON[];
    authenticatorSelection: AuthenticatorSelectionCriteria;
    hints?: ("security-key" | "client-device" | "hybrid")[];
    attestation: "none" | "indirect" | "direct" | "enterprise";
    attestationFormats?: string[];
    /** Extension inputs: the requested ones (`RegistrationExtensionInputs`) plus `credProps: true`. */
    extensions: {
        [key: string]: unknown;
    };
};
/** WebAuthn Level 3 `PublicKeyCredentialRequestOptionsJSON`. */
export declare type PublicKeyCredentialRequestOptionsJSON = {
    challenge: Base64URL;
    /** Milliseconds. */
    timeout?: number;
    rpId: string;
    /** Empty for a discoverable-credential request. */
    allowCredentials: PublicKeyCredentialDescriptorJSON[];
    userVerification: "required" | "preferred" | "discouraged";
    hints?: string[];
    /** Extension inputs: the requested ones (`AuthenticationExtensionInputs`), plus `appid` when a legacy U2F AppID is configured. */
    extensions?: {
        [key: string]: unknown;
    };
};
/** WebAuthn Level 3 `RegistrationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `navigator.credentials.create()`. Unknown members are ignored. */
export declare type RegistrationResponseJSON = {
    id: Base64URL;
    rawId: Base64URL;
    type: "public-key";
    /** `AuthenticatorAttestationResponseJSON`. */
    response: {
        clientDataJSON: Base64URL;
        attestationObject: Base64URL;
        authenticatorData?: string | null;
        transports?: string[] | null;
        publicKey?: string | null;
        publicKeyAlgorithm?: number | null;
    };
    authenticatorAttachment?: string | null;
    clientExtensionResults?: {
        [key: string]: unknown;
    } | null;
};
/** WebAuthn Level 3 `AuthenticationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `navigator.credentials.get()`. Unknown members are ignored. */
export declare type AuthenticationResponseJSON = {
    id: Base64URL;
    rawId: Base64URL;
    type: "public-key";
    /** `AuthenticatorAssertionResponseJSON`. */
    response: {
        clientDataJSON: Base64URL;
        authenticatorData: Base64URL;
        signature: Base64URL;
        /** The user handle, base64url (RFC 4648 §5, no padding); required for a discoverable-credential request. */
        userHandle?: string | null;
    };
    authenticatorAttachment?: string | null;
    clientExtensionResults?: {
        [key: string]: unknown;
    } | null;
};
export declare type RegistrationBeginRequest = {
    /** Exactly one of `name` (a new user) and `id` (an existing user); other members are ignored. */
    user: {
        /** The new account's name (1-256 UTF-8 bytes); refused with 409 `user_exists` when taken; no U+0000. */
        name: string;
        /** At most 256 UTF-8 bytes; defaults to `name`; no U+0000. */
        displayName?: string | null;
        id?: null;
    } | {
        /** The user's id (`User.id`): add a passkey to this user. Only for a person the calling backend has authenticated. */
        id: UserIdPath;
        name?: null;
    };
    /** Requested criteria: unknown values are ignored, and user verification is never weaker than the server's policy. */
    authenticatorSelection?: AuthenticatorSelectionCriteria | null;
    /** `none`, `indirect`, `direct` or `enterprise`; other values are ignored (the server's policy applies). */
    attestation?: string | null;
    /** Client hints; values other than `security-key`, `client-device` and `hybrid` are dropped. */
    hints?: string[] | null;
    /** Client extension inputs passed through to the client (`credProps`, `prf`, `largeBlob` only). */
    extensions?: RegistrationExtensionInputs | null;
    /** `conditional` begins an automatic passkey upgrade (a conditional create, right after the person signed in another way): the options ask for user verification `preferred` at most, and the finish accepts a credential created without user presence or verification (its `createdBy` is `conditional`). Pass the answer's `mediation` with `publicKey` to `navigator.credentials.create()`. Only with `user: {"id"}` (otherwise 400 `conditional_create_needs_user_id`). Omit (or null) for a normal registration. Refused with 400 `conditional_create_disabled` when the server turns upgrades off; each user may have at most `PASSKEYD_UPGRADE_PENDING_PER_USER` (3 by default) pending upgrades, counted apart from other ceremonies (429 `too_many_pending_ceremonies`). */
    mediation?: "conditional" | null;
} & ({
    mediation?: null;
} | {
    user?: {
        id: string;
    };
});
export declare type RegistrationBeginResponse = {
    publicKey: PublicKeyCredentialCreationOptionsJSON;
    /** Present only for an automatic upgrade (a begin with `mediation: "conditional"`): pass it to `navigator.credentials.create()` with `publicKey`. */
    mediation?: "conditional";
};
export declare type RegistrationFinishRequest = {
    credential: RegistrationResponseJSON;
    /** A label for the credential (at most 256 UTF-8 bytes); no U+0000. */
    nickname?: string | null;
};
export declare type RegistrationFinishResponse = {
    user: User;
    credential: Credential;
    /** With sessions on and `PASSKEYD_SESSION_ON_REGISTRATION=on`: a new session for the user (the refresh token in the body). */
    session?: Session & Required<Pick<Session, "refreshToken">>;
};
export declare type AuthenticationBeginRequest = {
    /** Omit (or null) for a discoverable-credential request; otherwise exactly one of `name` and `id` (an unknown one gets options of the same shape); other members of `user` are ignored. */
    user?: null | {
        /** No U+0000. */
        name: string;
    } | {
        id: UserIdPath;
    };
    /** Never weaker than the server's policy; omit (or null) for the policy's own requirement. */
    userVerification?: "required" | "preferred" | "discouraged" | null;
    /** Client extension inputs passed through to the client (`prf`, `largeBlob` only). */
    extensions?: AuthenticationExtensionInputs | null;
};
export declare type AuthenticationBeginResponse = {
    publicKey: PublicKeyCredentialRequestOptionsJSON;
};
export declare type AuthenticationFinishRequest = {
    credential: AuthenticationResponseJSON;
};
export declare type AuthenticationFinishResponse = {
    /** The credential's owner (absent only if the owner no longer exists). */
    user?: User;
    credential: Credential;
    /** Whether this assertion had the UV flag. */
    userVerified: boolean;
    /** `not_supported`: the authenticator does not count (normal for passkeys); `regressed` is returned only when the server reports rather than refuses a counter regression. */
    signCountStatus: "not_supported" | "increased" | "regressed";
    /** With sessions on (`PASSKEYD_SESSIONS=on`): a new session for the user (the refresh token in the body). */
    session?: Session & Required<Pick<Session, "refreshToken">>;
    /** The Signal API's arguments after this sign-in (absent only if the owner no longer exists), as read with the credential. */
    signal?: AcceptedCredentialsSignal;
};
export declare type Health = {
    status: "ok";
};
export declare type Readiness = {
    status: "ready";
};
export declare type UserPage = {
    users: User[];
    /** The cursor of the next page (pass as `after`); null on the last page. */
    next: string | null;
};
export declare type AdminUserWithCredentials = {
    user: User;
    credentials: AdminCredential[];
};
export declare type AdminCredentialList = {
    credentials: AdminCredential[];
};
export declare type AdminCredentialWithUser = {
    credential: AdminCredential;
    /** The owner (absent only if the owner no longer exists). */
    user?: User;
};
export declare type AdminCredentialResponse = {
    credential: AdminCredential;
};
export declare type AdminRenameCredentialRequest = {
    /** At most 256 UTF-8 bytes; null or the empty string clears the nickname; no U+0000. */
    nickname: string | null;
};
/** What registration proved about the authenticator (the attestation verdict, stored with the credential). */
export declare type Attestation = {
    /** The attestation type (WebAuthn §6.5.4) the format's verification established. */
    type: "none" | "self" | "basic" | "attca" | "anonca";
    /** `none`: no attestation; `self`: signed by the credential key; `untrusted`: a verified chain that reaches no configured or metadata root (only stored when the policy accepts it); `trusted`: the chain ends at a root. */
    trust: "none" | "self" | "untrusted" | "trusted";
    /** The subject of the root the chain ends at, when trusted. */
    trustAnchor: string | null;
    /** The authenticator's name from FIDO metadata (MDS3), when known at registration. */
    authenticatorDescription: string | null;
};
/** The attestation verdict as the admin API shows it: with the authenticator's icon from the FIDO metadata currently loaded. */
export declare type AdminAttestation = {
    /** The attestation type (WebAuthn §6.5.4) the format's verification established. */
    type: "none" | "self" | "basic" | "attca" | "anonca";
    /** `none`: no attestation; `self`: signed by the credential key; `untrusted`: a verified chain that reaches no configured or metadata root (only stored when the policy accepts it); `trusted`: the chain ends at a root. */
    trust: "none" | "self" | "untrusted" | "trusted";
    /** The subject of the root the chain ends at, when trusted. */
    trustAnchor: string | null;
    /** The authenticator's name from FIDO metadata (MDS3), when known at registration. */
    authenticatorDescription: string | null;
    /** The authenticator's icon (a data: URL) from the FIDO metadata currently loaded, looked up by AAGUID; null when unknown. */
    authenticatorIcon: string | null;
};
/** The profile's `ServerResponse`. */
export declare type ConformanceServerResponse = {
    status: "ok" | "failed";
    /** Empty when `status` is `ok`. */
    errorMessage: string;
};
/** The profile's `ServerPublicKeyCredentialCreationOptionsRequest`. */
export declare type ConformanceCreationOptionsRequest = {
    /** The user's name (1-256 bytes); a known name keeps its user handle and gets its credentials in `excludeCredentials`; no U+0000. */
    username: string;
    /** At most 256 bytes; defaults to `username`; no U+0000. */
    displayName?: string | null;
    authenticatorSelection?: AuthenticatorSelectionCriteria | null;
    /** Known values: `none`, `indirect`, `direct`, `enterprise`; null or an unknown value is ignored (WebAuthn §5.4). */
    attestation?: string | null;
    /** Client extension inputs, echoed. */
    extensions?: {
        [key: string]: unknown;
    } | null;
};
/** The profile's `ServerPublicKeyCredentialCreationOptionsResponse`. */
export declare type ConformanceCreationOptionsResponse = ConformanceServerResponse & {
    status?: "ok";
    errorMessage?: "";
    rp: {
        id?: string;
        name: string;
    };
    user: {
        id: Base64URL;
        name: string;
        displayName: string;
    };
    challenge: Base64URL;
    pubKeyCredParams: {
        type: "public-key";
        alg: number;
    }[];
    /** Milliseconds. */
    timeout?: number;
    excludeCredentials: PublicKeyCredentialDescriptorJSON[];
    /** The members the request named, with the values the relying party enforces; all of them when the request named none. */
    authenticatorSelection?: AuthenticatorSelectionCriteria;
    attestation: "none" | "indirect" | "direct" | "enterprise";
    /** The requested extension inputs (only when the request had `extensions`). */
    extensions?: {
        [key: string]: unknown;
    };
};
/** The profile's `ServerPublicKeyCredentialGetOptionsRequest`. */
export declare type ConformanceGetOptionsRequest = {
    /** The user's name; an unknown name gets options of the same shape (one random credential id); an empty one asks for a discoverable credential; no U+0000. */
    username: string;
    /** Never weaker than the relying party's policy; absent: the policy's. */
    userVerification?: "required" | "preferred" | "discouraged" | null;
    /** Client extension inputs, echoed. */
    extensions?: {
        [key: string]: unknown;
    } | null;
};
/** The profile's `ServerPublicKeyCredentialGetOptionsResponse`. */
export declare type ConformanceGetOptionsResponse = ConformanceServerResponse & {
    status?: "ok";
    errorMessage?: "";
    challenge: Base64URL;
    /** Milliseconds. */
    timeout?: number;
    rpId: string;
    allowCredentials: PublicKeyCredentialDescriptorJSON[];
    userVerification: "required" | "preferred" | "discouraged";
    extensions?: {
        [key: string]: unknown;
    };
};
/** The profile's `ServerPublicKeyCredential` with a `ServerAuthenticatorAttestationResponse`. */
export declare type ConformanceAttestationResult = {
    id: Base64URL;
    /** Optional here: defaults to `id`. */
    rawId?: Base64URL;
    type: "public-key";
    /** Client extension outputs (the profile's name for `clientExtensionResults`, also accepted). */
    getClientExtensionResults?: {
        [key: string]: unknown;
    };
    response: {
        clientDataJSON: Base64URL;
        attestationObject: Base64URL;
    };
};
/** The profile's `ServerPublicKeyCredential` with a `ServerAuthenticatorAssertionResponse`. */
export declare type ConformanceAssertionResult = {
    id: Base64URL;
    /** Optional here: defaults to `id`. */
    rawId?: Base64URL;
    type: "public-key";
    /** Client extension outputs (the profile's name for `clientExtensionResults`, also accepted). */
    getClientExtensionResults?: {
        [key: string]: unknown;
    };
    response: {
        clientDataJSON: Base64URL;
        authenticatorData: Base64URL;
        signature: Base64URL;
        /** Base64url; empty or null: none. */
        userHandle?: string | null;
    };
};
export declare type AuditEvent = {
    /** Increasing with time; the paging cursor. */
    id: string;
    occurredAt: string;
    event: "user.created" | "user.deleted" | "credential.registered" | "credential.renamed" | "credential.deleted" | "identity.linked" | "identity.unlinked" | "session.revoked" | "appstore.entitlement_changed" | "appattest.key_registered";
    /** The request's id, as in its log lines. */
    requestId: string | null;
    /** `api:<fingerprint>`, `admin:<fingerprint>`, `api:open`, `demo` or `conformance`. */
    actor: string;
    userId: Base64URL | null;
    credentialId: Base64URL | null;
    /** The provider identity of an `identity.*` event. */
    identityId: Base64URL | null;
    /** The client's address as the rate limits see it. */
    clientAddress: string | null;
    /** The event's other facts, ids and states only (never a token, key or secret); `{}` when none. `session.revoked`: `session_id`, `reason`; `appstore.entitlement_changed`: `product_id`, `change`, `state`, `original_transaction_id`, `transaction_id`; `appattest.key_registered`: `key_id`. */
    details: {
        [key: string]: string;
    };
};
export declare type AuditEventPage = {
    events: AuditEvent[];
    /** The cursor of the next page (pass as `after`); null on the last page. */
    next: string | null;
};
export declare type IDTokenBeginRequest = {
    /** A configured provider name. */
    provider: string;
};
export declare type IDTokenBeginResponse = {
    /** Opaque (16 bytes, or a sealed box of about 60 with ceremony keys); send it back with the finish. */
    session: Base64URL;
    provider: string;
    /** 256 bits (43 characters), base64url. Keep it in the app only if your provider SDK needs the raw value. */
    nonce: string;
    /** What the app passes to the provider SDK (the hex SHA-256 of `nonce` for Apple; `nonce` itself for LINE and Google). */
    providerNonce: string;
    expiresAt: string;
};
export declare type IDTokenFinishRequest = {
    session: Base64URL;
    provider: string;
    /** The provider's ID token (compact JWS) as the app received it. */
    idToken: string;
    /** Apple's authorization code (1-1024 bytes). With the code exchange configured (`PASSKEYD_IDTOKEN_APPLE_TEAM_ID`, `_KEY_ID`, `_PRIVATE_KEY_FILE`) and provider `apple`, it is redeemed at Apple after the token verifies and before the sign-in, for the token's audience; the refresh token is kept encrypted and revoked when the user is deleted or the identity unlinked. Without that configuration, or for other providers, it is accepted and ignored. */
    authorizationCode?: string | null;
    user?: {
        name: string;
        displayName?: string;
    } | {
        id: Base64URL;
    };
};
export declare type Identity = {
    id: Base64URL;
    provider: string;
    issuer: string;
    subject: string;
    /** As the provider said at the last sign-in; for display, never for linking. */
    email: string | null;
    emailVerified: boolean | null;
    /** Apple: a private relay address. */
    isPrivateEmail: boolean | null;
    /** Apple's real_user_status (0 unsupported, 1 unknown, 2 likely real). */
    realUserStatus: number | null;
    createdAt: string;
    lastUsedAt: string | null;
};
export declare type IDTokenFinishResponse = {
    user: User;
    identity: Identity;
    /** This sign-in created the user. */
    created: boolean;
    /** This sign-in attached the identity (its first use). */
    linked: boolean;
    /** With sessions on (`PASSKEYD_SESSIONS=on`): a new session for the user (the refresh token in the body). */
    session?: Session & Required<Pick<Session, "refreshToken">>;
};
export declare type AdminIdentityList = {
    identities: Identity[];
};
/** An opaque refresh token: `pkd_rt_` and 256 random bits in base64url. passkeyd keeps only its SHA-256. Single use: a refresh retires it and answers the next one. */
export declare type RefreshToken = string;
/** A session: an access token and the refresh token that renews it. */
export declare type Session = {
    /** A JWT (compact JWS). Header: `alg` `ES256` (default) or `EdDSA` (`PASSKEYD_SESSION_ALGORITHM`), `typ` `at+jwt`, `kid` the RFC 7638 thumbprint of a key in `/.well-known/jwks.json`. Claims: `iss` (`PASSKEYD_SESSION_ISSUER`), `sub` (the user id), `aud` (`PASSKEYD_SESSION_AUDIENCES`: a string for one audience, an array for several), `iat`, `exp`, `jti` (16 random bytes), `sid` (= `sessionId`), `auth_time` (when the person signed in: kept by refreshes and handoffs) and `amr` (RFC 8176: a passkey `hwk` for a device-bound key or `swk` for a synced, backup-eligible one, `user`, and `mfa` when the user was verified; an ID token `fed`; a handoff made with the API key `[]`). Verify the signature, `iss`, `aud` and `exp` (expired when now >= `exp`). */
    accessToken: string;
    tokenType: "Bearer";
    /** Seconds until the access token's `exp` (`PASSKEYD_SESSION_ACCESS_TTL`, 600 by default). */
    expiresIn: number;
    /** Absent when the refresh token travels in the session cookie instead (`Set-Cookie`). */
    refreshToken?: RefreshToken;
    /** Seconds the refresh token works if it is not used: until the earlier of the idle expiry (`PASSKEYD_SESSION_IDLE_TTL` after this answer) and the session's absolute expiry (`PASSKEYD_SESSION_MAX_TTL` after the session started). */
    refreshExpiresIn: number;
    /** The session (the refresh family: the same across refreshes), 16 bytes; the `sid` claim and the id of the admin API. */
    sessionId: Base64URL;
};
export declare type SessionResponse = {
    session: Session;
};
export declare type RefreshRequest = {
    /** Omit (or null, or send no body) to use the session cookie. */
    refreshToken?: RefreshToken | null;
};
export declare type IntrospectionRequest = {
    /** An access token (anything else is inactive). */
    token: string;
};
/** RFC 7662 §2.2: `{"active": false}` alone, or an active access token's claims. */
export declare type Introspection = {
    active: false;
} | {
    active: true;
    amr: string[];
    /** Always an array here. */
    aud: string[];
    auth_time: number;
    exp: number;
    iat: number;
    iss: string;
    jti: string;
    sid: Base64URL;
    /** The user id. */
    sub: Base64URL;
    token_type: "access_token";
};
export declare type HandoffRequest = {
    /** Your backend, with the API key: make the code for this user (no native session needed). Omit when the signed-in app calls with its access token. */
    userId?: Base64URL;
    /** The web page's PKCE challenge, BASE64URL(SHA-256(code_verifier)) (RFC 7636 §4.2); binds the code to the page that holds the verifier. Anything but 43 base64url characters of a SHA-256 is 400 `handoff_verifier_malformed`. */
    codeChallenge?: string | null;
    /** Only `S256` (the default); `plain` is refused. */
    codeChallengeMethod?: "S256" | null;
};
export declare type HandoffResponse = {
    /** `pkd_hc_` and 256 random bits in base64url; kept only as its SHA-256, never logged. Give it to the web view (e.g. in the URL fragment of the page it opens). */
    code: string;
    /** Seconds the code can be exchanged (`PASSKEYD_HANDOFF_TTL`, 30 by default). */
    expiresIn: number;
};
export declare type HandoffExchangeRequest = {
    /** The handoff code. */
    code: string;
    /** The PKCE verifier (43-128 characters of `A-Z a-z 0-9 - . _ ~`); required when the code was bound to a challenge, refused (`handoff_verifier_unexpected`) when it was not. */
    codeVerifier?: string | null;
    /** `true`: the refresh token in the session cookie (`Set-Cookie`) instead of the body. */
    cookie?: boolean | null;
};
/** A public key (RFC 7517): P-256 for ES256, Ed25519 (RFC 8037) for EdDSA. Never private members. */
export declare type JWK = {
    kty: "EC" | "OKP";
    crv: "P-256" | "Ed25519";
    x: Base64URL;
    /** EC keys only. */
    y?: Base64URL;
    /** The RFC 7638 thumbprint of the key; the access token header's `kid`. */
    kid: string;
    alg: "ES256" | "EdDSA";
    use: "sig";
};
export declare type JWKS = {
    keys: JWK[];
};
/** A session as the admin API shows it; never a token. */
export declare type SessionInfo = {
    /** The session id (`sessionId`, the `sid` claim). */
    id: Base64URL;
    /** What started it: a passkey sign-in, a registration finish, an ID-token sign-in, a handoff exchange. */
    origin: "passkey" | "registration" | "idtoken" | "handoff";
    /** RFC 8176 values, as in its access tokens. */
    amr: string[];
    /** Not revoked, and now before both expiries: its refresh token works. */
    active: boolean;
    /** When the person signed in (`auth_time`). */
    authTime: string;
    createdAt: string;
    /** The last refresh; null before the first. */
    refreshedAt: string | null;
    /** How many times its refresh token was rotated. */
    refreshCount: number;
    /** The refresh token stops working at the earlier of the two expiries. */
    idleExpiresAt: string;
    absoluteExpiresAt: string;
    revokedAt: string | null;
    /** Null exactly when not revoked. */
    revokedReason: "sign_out" | "refresh_token_reused" | "admin" | "credential_deleted" | "identity_unlinked" | null;
    /** The passkey that started it. */
    credentialId: Base64URL | null;
    /** The provider identity that started it. */
    identityId: Base64URL | null;
};
export declare type AdminSessionList = {
    sessions: SessionInfo[];
};
export declare type AdminRevokedSessions = {
    /** How many active sessions were revoked. */
    revoked: number;
};
export declare type AppAttestChallenge = {
    /** 32 random bytes, or a 53-byte sealed box with ceremony keys; base64url, opaque. */
    challenge: Base64URL;
    expiresAt: string;
};
export declare type AppAttestAttestationRequest = {
    /** The key identifier from `generateKey()` (32 bytes), base64 as Apple returns it (base64url accepted). */
    keyId: string;
    /** The attestation object from `attestKey`, base64 (or base64url). */
    attestationObject: string;
    /** A challenge from `/v1/appattest/challenge`; the app's clientDataHash is SHA-256 of its bytes. */
    challenge: Base64URL;
    /** Optional: the user (id) to attach the key to; must exist. */
    userId?: Base64URL;
};
export declare type AppAttestAssertionRequest = {
    /** The attested key's identifier, base64 (or base64url). */
    keyId: string;
    /** The assertion from `generateAssertion`, base64 (or base64url). */
    assertion: string;
    /** The exact bytes the app hashed, base64url (or base64): a JSON object whose `challenge` member is a challenge from `/v1/appattest/challenge`; its other members are the app's. */
    clientData: string;
};
export declare type AppAttestKey = {
    /** The key identifier, base64. */
    keyId: string;
    /** `TEAMID.bundle.id` the key was attested for. */
    appId: string;
    environment: "production" | "development";
    /** The highest accepted assertion counter (0 right after attestation). */
    counter: number;
    /** The user the key is attached to, when any. */
    userId?: Base64URL;
};
export declare type AppStoreTransactionRequest = {
    /** The user id (user handle), base64url. */
    userId: string;
    /** A compact JWS as StoreKit or Apple sends it. Any string passes the body's shape check; one that is not a compact JWS (the empty string included) is 400 `appstore_jws_malformed`. */
    signedTransaction: string;
};
export declare type AppStoreRenewalRequest = {
    /** A compact JWS as StoreKit or Apple sends it. Any string passes the body's shape check; one that is not a compact JWS (the empty string included) is 400 `appstore_jws_malformed`. */
    signedRenewalInfo: string;
};
/** The body App Store Server Notifications V2 post. */
export declare type AppStoreNotificationRequest = {
    /** A compact JWS as StoreKit or Apple sends it. Any string passes the body's shape check; one that is not a compact JWS (the empty string included) is 400 `appstore_jws_malformed`. */
    signedPayload: string;
};
/** A verified transaction, with Apple's member names. */
export declare type AppStoreTransaction = {
    transactionId: string;
    originalTransactionId: string;
    productId: string;
    /** Auto-Renewable Subscription, Non-Consumable, Consumable or Non-Renewing Subscription. */
    type: string;
    environment: "Production" | "Sandbox" | "Xcode" | "LocalTesting";
    /** Unix milliseconds. */
    purchaseDate: number;
    /** Unix milliseconds. */
    originalPurchaseDate: number | null;
    /** Unix milliseconds. */
    expiresDate: number | null;
    /** Unix milliseconds. */
    revocationDate: number | null;
    /** Apple's revocationReason: 0 other, 1 an app issue. */
    revocationReason: number | null;
    /** As the app set it, lowercased. */
    appAccountToken: string | null;
    /** PURCHASED or FAMILY_SHARED. */
    inAppOwnershipType: string | null;
    isUpgraded: boolean;
    /** Unix milliseconds. */
    signedDate: number | null;
};
/** Verified renewal information. */
export declare type AppStoreRenewalInfo = {
    originalTransactionId: string;
    productId: string | null;
    autoRenewProductId: string | null;
    /** autoRenewStatus 1. */
    autoRenew: boolean | null;
    expirationIntent: number | null;
    isInBillingRetryPeriod: boolean | null;
    /** Unix milliseconds. */
    gracePeriodExpiresDate: number | null;
    /** Unix milliseconds. */
    renewalDate: number | null;
    environment: "Production" | "Sandbox" | "Xcode" | "LocalTesting";
    /** Unix milliseconds. */
    signedDate: number | null;
};
/** What one purchase grants. */
export declare type AppStoreEntitlement = {
    productId: string;
    originalTransactionId: string;
    /** The purchase's latest transaction (latest `purchaseDate`, then `expiresDate`, then `signedDate`, then the greater `transactionId`). */
    transactionId: string;
    type: string;
    environment: "Production" | "Sandbox" | "Xcode" | "LocalTesting";
    status: "active" | "grace_period" | "expired" | "revoked" | "upgraded";
    /** Whether it grants access now (active or grace_period). */
    active: boolean;
    /** Unix milliseconds. */
    purchaseDate: number;
    /** Unix milliseconds. */
    expiresDate: number | null;
    /** Unix milliseconds. */
    revocationDate: number | null;
    revocationReason: number | null;
    /** PURCHASED or FAMILY_SHARED. */
    ownershipType: string | null;
    /** From the renewal information, when known. */
    autoRenew: boolean | null;
    autoRenewProductId: string | null;
    /** Unix milliseconds. */
    gracePeriodExpiresDate: number | null;
};
export declare type AppStoreTransactionResponse = {
    /** The user id (user handle), base64url. */
    userId: string;
    /** The user's appAccountToken: SHA-256("passkeyd-app-account-token:" ‖ the user handle's raw bytes, not its base64url text), first 16 bytes, as an RFC 9562 version 8 UUID in lowercase. Pass it to `Product.PurchaseOption.appAccountToken(_:)`. */
    appAccountToken: string;
    /** `unchanged`: the kept copy is newer. */
    stored: "inserted" | "updated" | "unchanged";
    transaction: AppStoreTransaction;
    /** Active now. */
    entitlements: AppStoreEntitlement[];
};
export declare type AppStoreRenewalResponse = {
    /** The purchase's user, when known. */
    userId: string | null;
    renewalInfo: AppStoreRenewalInfo;
};
/** Names no user and no purchase: the route is public. */
export declare type AppStoreNotificationResponse = {
    notificationUUID: string;
    notificationType: string;
    subtype: string | null;
    /** Seen before: nothing was applied again. */
    duplicate: boolean;
};
export declare type EntitlementsResponse = {
    /** The user id (user handle), base64url. */
    userId: string;
    /** The user's appAccountToken: SHA-256("passkeyd-app-account-token:" ‖ the user handle's raw bytes, not its base64url text), first 16 bytes, as an RFC 9562 version 8 UUID in lowercase. Pass it to `Product.PurchaseOption.appAccountToken(_:)`. */
    appAccountToken: string;
    /** What grants access now. */
    entitlements: AppStoreEntitlement[];
    /** Expired, revoked or upgraded purchases. */
    inactive: AppStoreEntitlement[];
};
/** The Signal API's arguments for one user: pass `{rpId, userId, allAcceptedCredentialIds}` to `PublicKeyCredential.signalAllAcceptedCredentials` and `{rpId, userId, name, displayName}` to `PublicKeyCredential.signalCurrentUserDetails` (where the browser has them), so the passkey provider drops passkeys this RP no longer accepts and shows the current names. Ids base64url. */
export declare type AcceptedCredentialsSignal = {
    rpId: string;
    /** The user handle, base64url. */
    userId: string;
    /** Every credential id of the user, oldest first. */
    allAcceptedCredentialIds: string[];
    name: string;
    displayName: string;
};
/** An id in a path: 1 to 1023 bytes, base64url without padding (RFC 4648 §5). Anything else is 400 `invalid_parameter`. */
export declare type PathId = string;
/** A user id (user handle, 1 to 64 bytes) in a path, base64url without padding (RFC 4648 §5). Anything else is 400 `invalid_parameter`. */
export declare type UserIdPath = string;
/** What the registration's client extension results reported, each null when the client did not report it. Only these flags are kept: PRF results and large blobs are never stored. */
export declare type CredentialExtensions = {
    /** `credProps.rk`: whether the credential is a discoverable credential (a passkey). */
    discoverable: boolean | null;
    /** `prf.enabled`: whether the credential supports the PRF extension. */
    prfEnabled: boolean | null;
    /** `largeBlob.supported`: whether the credential can store a large blob. */
    largeBlobSupported: boolean | null;
};
/** WebAuthn `AuthenticationExtensionsPRFValues` (§10.1.4): PRF salts, each 1 to 64 bytes, base64url. Anything else is 400 `extension_input_invalid`. */
export declare type PRFValues = {
    /** 1 to 64 bytes, base64url without padding (RFC 4648 §5). */
    first: string;
    /** 1 to 64 bytes, base64url without padding (RFC 4648 §5). */
    second?: string;
};
/** Client extension inputs passed through to `publicKey.extensions` (`credProps: true` is always added). Only these, with exactly these members: any other extension is 400 `extension_unsupported`; a member of the wrong type or value, or not allowed in a registration (`prf.evalByCredential`, `largeBlob.read`/`write`), is 400 `extension_input_invalid`. */
export declare type RegistrationExtensionInputs = {
    /** Only `true` (§10.1.3). */
    credProps?: true;
    /** §10.1.4: only `eval` in a registration. */
    prf?: {
        eval?: PRFValues;
    };
    /** §10.1.5: only `support` in a registration. */
    largeBlob?: {
        support?: "required" | "preferred";
    };
    /** CTAP credProtect. */
    credentialProtectionPolicy?: "userVerificationOptional" | "userVerificationOptionalWithCredentialIDList" | "userVerificationRequired";
    /** CTAP credProtect: whether the authenticator must support the policy. */
    enforceCredentialProtectionPolicy?: boolean;
    /** CTAP minPinLength: only `true`. */
    minPinLength?: true;
};
/** Client extension inputs passed through to `publicKey.extensions` (`appid` is added when a legacy U2F AppID is configured). Only these two, with exactly these members: any other extension is 400 `extension_unsupported`; a registration extension (`credProps`, `credentialProtectionPolicy`, `enforceCredentialProtectionPolicy`, `minPinLength`), or a member of the wrong type or value or not allowed in an authentication (`largeBlob.support`), is 400 `extension_input_invalid`. `prf.evalByCredential` keeps only the entries of the user's `allowCredentials` (none in a discoverable request); browsers accept `largeBlob.write` only when `allowCredentials` has exactly one entry. */
export declare type AuthenticationExtensionInputs = {
    /** §10.1.4: `eval`, and `evalByCredential` (salts per credential). */
    prf?: {
        eval?: PRFValues;
        /** At most 64 entries, each keyed by a credential id (1 to 1023 bytes, base64url without padding). */
        evalByCredential?: {
            [key: string]: PRFValues;
        };
    };
    /** §10.1.5: exactly one of `read: true` and `write` (1 to 4096 bytes by default, `PASSKEYD_LARGE_BLOB_MAX_BYTES`; base64url without padding). */
    largeBlob?: {
        read?: true;
        /** The blob to store: 1 to 4096 bytes by default (`PASSKEYD_LARGE_BLOB_MAX_BYTES`), base64url without padding. */
        write?: string;
    } & ({
        read: {};
        write?: never;
    } | {
        write: {};
        read?: never;
    });
};
export declare type MeCredentialList = {
    credentials: Credential[];
};
export declare type MeCredentialResponse = {
    credential: Credential;
};
export declare type MeIdentityList = {
    identities: Identity[];
};
export declare type MeRegistrationFinishResponse = {
    user: User;
    credential: Credential;
};
/** A registration begin's choices without `user` (the signed-in person); a `user` member is 400 `malformed_json`. */
export declare type MeRegistrationBeginRequest = {
    user?: never;
    /** Requested criteria: unknown values are ignored, and user verification is never weaker than the server's policy. */
    authenticatorSelection?: AuthenticatorSelectionCriteria | null;
    /** `none`, `indirect`, `direct` or `enterprise`; other values are ignored (the server's policy applies). */
    attestation?: string | null;
    /** Client hints; values other than `security-key`, `client-device` and `hybrid` are dropped. */
    hints?: string[] | null;
    /** Client extension inputs passed through to the client (`credProps`, `prf`, `largeBlob` only). */
    extensions?: RegistrationExtensionInputs | null;
    /** `conditional` begins an automatic passkey upgrade (a conditional create, right after the person signed in another way): the options ask for user verification `preferred` at most, and the finish accepts a credential created without user presence or verification (its `createdBy` is `conditional`). Pass the answer's `mediation` with `publicKey` to `navigator.credentials.create()`. Omit (or null) for a normal registration. Refused with 400 `conditional_create_disabled` when the server turns upgrades off; each user may have at most `PASSKEYD_UPGRADE_PENDING_PER_USER` (3 by default) pending upgrades, counted apart from other ceremonies (429 `too_many_pending_ceremonies`). */
    mediation?: "conditional" | null;
};
/** A new account with no sign-in method yet. */
export declare type CreateUserRequest = {
    /** The new account's name (1-256 UTF-8 bytes); refused with 409 `user_exists` when taken; no U+0000. */
    name: string;
    /** At most 256 UTF-8 bytes; defaults to `name`; no U+0000. */
    displayName?: string | null;
};
export declare type CreateUserResponse = {
    user: User;
};
export declare type WebhookEndpoint = {
    /** The endpoint's name in the settings. */
    id: string;
    /** Where deliveries are POSTed. */
    url: string;
    /** The event types it receives, sorted; null: every type. */
    events: ("user.created" | "user.deleted" | "credential.registered" | "credential.renamed" | "credential.deleted" | "identity.linked" | "identity.unlinked" | "session.revoked" | "appstore.entitlement_changed" | "appattest.key_registered")[] | null;
    /** Paused by an administrator: deliveries wait. */
    paused: boolean;
    /** No longer in the settings: nothing new is fanned out to it, nothing is sent. */
    removed: boolean;
};
export declare type WebhookEndpointList = {
    endpoints: WebhookEndpoint[];
};
export declare type WebhookDelivery = {
    /** The delivery's id (the paging cursor and the redeliver route's `deliveryId`). */
    id: string;
    endpointId: string;
    /** `pending`: waiting for its first or next attempt; `delivered`: a 2xx answer was received; `failed`: retries exhausted or refused for good. */
    status: "pending" | "delivered" | "failed";
    attempts: number;
    /** When a pending delivery is due; null otherwise. */
    nextAttemptAt: string | null;
    lastAttemptAt: string | null;
    /** The HTTP status of the last attempt, when one was received. */
    lastStatusCode: number | null;
    /** Why the last attempt failed (at most 500 characters). */
    lastError: string | null;
    deliveredAt: string | null;
    event: AuditEvent;
};
export declare type WebhookDeliveryPage = {
    deliveries: WebhookDelivery[];
    /** The cursor of the next page (pass as `after`); null on the last page. */
    next: string | null;
};
/** The request and answer types of each operation, by operationId. */
export interface Operations {
    /**
     * POST /v1/registration/begin: Begin a registration
     *
     * Starts a registration ceremony. `user` names whose passkey it creates, and the choice is kept with the ceremony: `{"name", "displayName"?}` signs up a NEW user (a fresh random 32-byte user handle; refused with 409 `user_exists` when the name is taken, so a sign-up form forwarded here can never add a passkey to someone else's account); `{"id"}` adds a passkey to the EXISTING user with that id (they keep their handle and get their credentials in `excludeCredentials`; 404 `user_unknown` otherwise). Send an id only for a person your backend has authenticated (see the security model, docs/security.md). The user is stored only when the registration finishes. Pass `publicKey` to `PublicKeyCredential.parseCreationOptionsFromJSON()` and then to `navigator.credentials.create()`. With `mediation: "conditional"` (only for `user: {"id"}`) it begins an automatic passkey upgrade: the answer carries `mediation: "conditional"` to pass along.
     */
    registrationBegin: {
        pathParams: {};
        query: {};
        body: RegistrationBeginRequest;
        bodyRequired: true;
        response: RegistrationBeginResponse;
        status: 200;
        errorCode: "body_too_large" | "ceremony_capacity_reached" | "conditional_create_disabled" | "conditional_create_needs_user_id" | "extension_input_invalid" | "extension_unsupported" | "internal_error" | "invalid_user_entity" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "too_many_pending_ceremonies" | "unauthorized" | "user_exists" | "user_unknown";
    };
    /**
     * POST /v1/registration/finish: Finish a registration
     *
     * Verifies the credential created with the options of `registration/begin` (WebAuthn §7.1) and stores it: for a ceremony begun with `user.name` it creates that user (409 `user_exists` if another sign-up of the same name finished first: exactly one succeeds), for one begun with `user.id` it adds the credential to that user (404 `user_unknown` if the user was deleted meanwhile). The pending ceremony is consumed even when verification fails. With sessions on and `PASSKEYD_SESSION_ON_REGISTRATION=on` the answer also starts a session for the user (`session`).
     */
    registrationFinish: {
        pathParams: {};
        query: {};
        body: RegistrationFinishRequest;
        bodyRequired: true;
        response: RegistrationFinishResponse;
        status: 201;
        errorCode: "aaguid_denied" | "aaguid_not_allowed" | "algorithm_not_allowed" | "android_key_all_applications" | "android_key_challenge_mismatch" | "android_key_description_invalid" | "android_key_origin_invalid" | "android_key_public_key_mismatch" | "android_key_purpose_invalid" | "apple_nonce_extension_invalid" | "apple_nonce_mismatch" | "apple_public_key_mismatch" | "attestation_aaguid_mismatch" | "attestation_algorithm_mismatch" | "attestation_certificate_expired" | "attestation_certificate_invalid" | "attestation_not_allowed" | "attestation_signature_invalid" | "attestation_untrusted" | "attested_credential_data_missing" | "authenticator_status_refused" | "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "credential_already_registered" | "credential_id_mismatch" | "credential_id_too_long" | "cross_origin_not_allowed" | "extension_output_invalid" | "internal_error" | "invalid_credential_type" | "invalid_public_key" | "jws_algorithm_unsupported" | "jws_malformed" | "jws_signature_invalid" | "malformed_attestation_object" | "malformed_attestation_statement" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "metadata_expired" | "metadata_malformed" | "metadata_signature_invalid" | "metadata_untrusted" | "origin_not_allowed" | "rate_limited" | "rp_id_hash_mismatch" | "safetynet_cts_profile_mismatch" | "safetynet_hostname_mismatch" | "safetynet_nonce_mismatch" | "safetynet_timestamp_invalid" | "storage_unavailable" | "token_binding_invalid" | "top_origin_not_allowed" | "tpm_aik_extended_key_usage_missing" | "tpm_aik_is_ca" | "tpm_aik_subject_alt_name_invalid" | "tpm_aik_subject_not_empty" | "tpm_aik_version_invalid" | "tpm_attest_type_invalid" | "tpm_attested_name_mismatch" | "tpm_cert_info_invalid" | "tpm_extra_data_mismatch" | "tpm_magic_invalid" | "tpm_manufacturer_unknown" | "tpm_pub_area_invalid" | "tpm_pub_area_key_mismatch" | "tpm_version_unsupported" | "unauthorized" | "unsupported_attestation_format" | "user_exists" | "user_not_present" | "user_not_verified" | "user_unknown";
    };
    /**
     * POST /v1/users: Create a user without a sign-in method
     *
     * Creates an account with a fresh random 32-byte user handle and no passkey or identity yet, for a person your backend signed in another way (a password) and is about to move to passkeys: follow with `POST /v1/registration/begin` with `user: {"id"}` and `mediation: "conditional"` (an automatic upgrade). Refused with 409 `user_exists` when the name is taken. Records `user.created`.
     */
    createUser: {
        pathParams: {};
        query: {};
        body: CreateUserRequest;
        bodyRequired: true;
        response: CreateUserResponse;
        status: 201;
        errorCode: "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_exists";
    };
    /**
     * POST /v1/authentication/begin: Begin an authentication
     *
     * Starts an authentication ceremony. With `user.name` or `user.id`, `allowCredentials` lists that user's credentials (an unknown user gets options of the same shape, listing one random credential id, so names cannot be probed); without, the request is for a discoverable credential (passkey autofill / conditional UI). The body may be empty. Pass `publicKey` to `PublicKeyCredential.parseRequestOptionsFromJSON()` and then to `navigator.credentials.get()`.
     */
    authenticationBegin: {
        pathParams: {};
        query: {};
        body: AuthenticationBeginRequest;
        bodyRequired: false;
        response: AuthenticationBeginResponse;
        status: 200;
        errorCode: "body_too_large" | "ceremony_capacity_reached" | "extension_input_invalid" | "extension_unsupported" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "too_many_pending_ceremonies" | "unauthorized";
    };
    /**
     * POST /v1/authentication/finish: Finish an authentication
     *
     * Verifies the assertion (WebAuthn §7.2) against the stored credential and records its use (signature counter, backup state, last use). The pending ceremony is consumed even when verification fails. With sessions on (`PASSKEYD_SESSIONS=on`) the answer also starts a session for the user (`session`; `amr` from this assertion), which deleting this passkey revokes (`PASSKEYD_SESSION_REVOKE_ON_DELETE`).
     */
    authenticationFinish: {
        pathParams: {};
        query: {};
        body: AuthenticationFinishRequest;
        bodyRequired: true;
        response: AuthenticationFinishResponse;
        status: 200;
        errorCode: "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "credential_id_mismatch" | "credential_not_allowed" | "credential_not_owned_by_user" | "credential_unknown" | "cross_origin_not_allowed" | "internal_error" | "invalid_credential_type" | "invalid_public_key" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "origin_not_allowed" | "rate_limited" | "rp_id_hash_mismatch" | "sign_count_regressed" | "signature_invalid" | "storage_unavailable" | "stored_public_key_invalid" | "token_binding_invalid" | "top_origin_not_allowed" | "unauthorized" | "unexpected_attested_credential_data" | "user_handle_mismatch" | "user_handle_missing" | "user_not_present" | "user_not_verified" | "user_unknown";
    };
    /**
     * GET /healthz: Liveness
     *
     * 200 while the process is up; does not touch the store.
     */
    getHealth: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: Health;
        status: 200;
        errorCode: "malformed_request";
    };
    /**
     * GET /readyz: Readiness
     *
     * 200 while the store answers, 503 otherwise.
     */
    getReadiness: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: Readiness;
        status: 200;
        errorCode: "malformed_request" | "storage_unavailable";
    };
    /**
     * GET /metrics: Prometheus metrics
     *
     * Metrics in the Prometheus text exposition format. The route exists only when metrics are enabled (otherwise this path is 404 `route_unknown`).
     */
    getMetrics: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: string;
        status: 200;
        errorCode: "malformed_request" | "rate_limited";
    };
    /**
     * GET /openapi.json: This document
     *
     * The OpenAPI 3.1 document describing this API.
     */
    getOpenAPIDocument: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: {
            [key: string]: unknown;
        };
        status: 200;
        errorCode: "malformed_request";
    };
    /**
     * GET /v1/admin/users: List users
     *
     * Users ordered by name, optionally filtered by a name substring, in pages chained with `next`.
     */
    adminListUsers: {
        pathParams: {};
        query: {
            /** Only users whose name contains this substring (at most 256 UTF-8 bytes; empty means no filter). */
            name?: string;
            /** Page size. */
            limit?: number;
            /** The `next` cursor of the previous page (empty means the first page). */
            after?: string;
        };
        body: never;
        bodyRequired: false;
        response: UserPage;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /** GET /v1/admin/users/{userId}: Get a user with their credentials */
    adminGetUser: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminUserWithCredentials;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /** DELETE /v1/admin/users/{userId}: Delete a user and all their credentials */
    adminDeleteUser: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /** GET /v1/admin/users/{userId}/credentials: List a user's credentials */
    adminListUserCredentials: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminCredentialList;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /** GET /v1/admin/credentials/{credentialId}: Get a credential with its owner */
    adminGetCredential: {
        pathParams: {
            /** The credential id, base64url (RFC 4648 §5, no padding). */
            credentialId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminCredentialWithUser;
        status: 200;
        errorCode: "body_too_large" | "credential_unknown" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /** DELETE /v1/admin/credentials/{credentialId}: Delete a credential */
    adminDeleteCredential: {
        pathParams: {
            /** The credential id, base64url (RFC 4648 §5, no padding). */
            credentialId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "credential_unknown" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /** PATCH /v1/admin/credentials/{credentialId}: Set or clear a credential's nickname */
    adminRenameCredential: {
        pathParams: {
            /** The credential id, base64url (RFC 4648 §5, no padding). */
            credentialId: PathId;
        };
        query: {};
        body: AdminRenameCredentialRequest;
        bodyRequired: true;
        response: AdminCredentialResponse;
        status: 200;
        errorCode: "body_too_large" | "credential_unknown" | "internal_error" | "invalid_parameter" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /attestation/options: FIDO conformance: registration options
     *
     * Begins a registration like `POST /v1/registration/begin`, in the profile's shapes. Sets the session cookie `passkeyd_attestation` (Path=/attestation, HttpOnly, SameSite=Strict, Max-Age = the challenge timeout) whose value is the challenge; the result call must send it back.
     */
    conformanceAttestationOptions: {
        pathParams: {};
        query: {};
        body: ConformanceCreationOptionsRequest;
        bodyRequired: true;
        response: ConformanceCreationOptionsResponse;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_user_entity" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "too_many_pending_ceremonies" | "unauthorized";
    };
    /**
     * POST /attestation/result: FIDO conformance: registration result
     *
     * Finishes the registration of the session cookie `passkeyd_attestation` like `POST /v1/registration/finish`. The clientData challenge must be the session's (`challenge_mismatch` otherwise). Every reply consumes the session's ceremony and clears the cookie.
     */
    conformanceAttestationResult: {
        pathParams: {};
        query: {};
        body: ConformanceAttestationResult;
        bodyRequired: true;
        response: ConformanceServerResponse;
        status: 200;
        errorCode: "aaguid_denied" | "aaguid_not_allowed" | "algorithm_not_allowed" | "android_key_all_applications" | "android_key_challenge_mismatch" | "android_key_description_invalid" | "android_key_origin_invalid" | "android_key_public_key_mismatch" | "android_key_purpose_invalid" | "apple_nonce_extension_invalid" | "apple_nonce_mismatch" | "apple_public_key_mismatch" | "attestation_aaguid_mismatch" | "attestation_algorithm_mismatch" | "attestation_certificate_expired" | "attestation_certificate_invalid" | "attestation_not_allowed" | "attestation_signature_invalid" | "attestation_untrusted" | "attested_credential_data_missing" | "authenticator_status_refused" | "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "credential_already_registered" | "credential_id_mismatch" | "credential_id_too_long" | "cross_origin_not_allowed" | "extension_output_invalid" | "internal_error" | "invalid_credential_type" | "invalid_public_key" | "jws_algorithm_unsupported" | "jws_malformed" | "jws_signature_invalid" | "malformed_attestation_object" | "malformed_attestation_statement" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "metadata_expired" | "metadata_malformed" | "metadata_signature_invalid" | "metadata_untrusted" | "origin_not_allowed" | "rate_limited" | "rp_id_hash_mismatch" | "safetynet_cts_profile_mismatch" | "safetynet_hostname_mismatch" | "safetynet_nonce_mismatch" | "safetynet_timestamp_invalid" | "session_missing" | "storage_unavailable" | "token_binding_invalid" | "top_origin_not_allowed" | "tpm_aik_extended_key_usage_missing" | "tpm_aik_is_ca" | "tpm_aik_subject_alt_name_invalid" | "tpm_aik_subject_not_empty" | "tpm_aik_version_invalid" | "tpm_attest_type_invalid" | "tpm_attested_name_mismatch" | "tpm_cert_info_invalid" | "tpm_extra_data_mismatch" | "tpm_magic_invalid" | "tpm_manufacturer_unknown" | "tpm_pub_area_invalid" | "tpm_pub_area_key_mismatch" | "tpm_version_unsupported" | "unauthorized" | "unsupported_attestation_format" | "user_exists" | "user_not_present" | "user_not_verified";
    };
    /**
     * POST /assertion/options: FIDO conformance: authentication options
     *
     * Begins an authentication like `POST /v1/authentication/begin`, in the profile's shapes. Sets the session cookie `passkeyd_assertion` (Path=/assertion, HttpOnly, SameSite=Strict, Max-Age = the challenge timeout) whose value is the challenge; the result call must send it back.
     */
    conformanceAssertionOptions: {
        pathParams: {};
        query: {};
        body: ConformanceGetOptionsRequest;
        bodyRequired: true;
        response: ConformanceGetOptionsResponse;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "too_many_pending_ceremonies" | "unauthorized";
    };
    /**
     * POST /assertion/result: FIDO conformance: authentication result
     *
     * Finishes the authentication of the session cookie `passkeyd_assertion` like `POST /v1/authentication/finish`. The clientData challenge must be the session's (`challenge_mismatch` otherwise). Every reply consumes the session's ceremony and clears the cookie.
     */
    conformanceAssertionResult: {
        pathParams: {};
        query: {};
        body: ConformanceAssertionResult;
        bodyRequired: true;
        response: ConformanceServerResponse;
        status: 200;
        errorCode: "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "credential_id_mismatch" | "credential_not_allowed" | "credential_not_owned_by_user" | "credential_unknown" | "cross_origin_not_allowed" | "internal_error" | "invalid_credential_type" | "invalid_public_key" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "origin_not_allowed" | "rate_limited" | "rp_id_hash_mismatch" | "session_missing" | "sign_count_regressed" | "signature_invalid" | "storage_unavailable" | "stored_public_key_invalid" | "token_binding_invalid" | "top_origin_not_allowed" | "unauthorized" | "unexpected_attested_credential_data" | "user_handle_mismatch" | "user_handle_missing" | "user_not_present" | "user_not_verified";
    };
    /**
     * GET /v1/admin/audit-events: Page through the audit trail
     *
     * The append-only audit trail, oldest first: `user.created`, `user.deleted`, `credential.registered`, `credential.renamed`, `credential.deleted`, `identity.linked`, `identity.unlinked`, `session.revoked`, `appstore.entitlement_changed`, `appattest.key_registered`, each written by the statement (or transaction) that made the change, with its `details`. These rows are also the webhooks' events. `actor` names who asked without revealing a key: `api:` or `admin:` and the first 16 hex digits of SHA-256 of the bearer key, `api:open` (no API keys configured), `demo` or `conformance`. Filters combine; pages chain with `next`.
     */
    adminAuditEvents: {
        pathParams: {};
        query: {
            /** Only events of this user id (base64url). */
            user?: UserIdPath;
            /** Only events at or after this RFC 3339 time. */
            since?: string;
            /** Only events before this RFC 3339 time. */
            until?: string;
            /** Page size. */
            limit?: number;
            /** The `next` cursor of the previous page. */
            after?: string;
        };
        body: never;
        bodyRequired: false;
        response: AuditEventPage;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/idtoken/begin: Begin an ID-token sign-in
     *
     * Starts a sign-in with `provider` (a configured name: `apple`, `line`, `google` or a generic OpenID Connect provider). Returns an opaque `session` (16 random bytes; with ceremony keys configured, a sealed box of 53 bytes plus 1 plus the provider name's length, e.g. 59 for `apple`: treat it as opaque and of variable length), the `nonce` (256 bits: random, or with ceremony keys the SHA-256 of the sealed session, so the provider never sees the session) and `providerNonce`, the value the app passes to the provider SDK: for Apple the lowercase hex SHA-256 of the nonce (`ASAuthorizationAppleIDRequest.nonce`), for LINE and Google the nonce itself (configurable per provider with `PASSKEYD_IDTOKEN_<NAME>_NONCE`). The session is single use and expires at `expiresAt` (`PASSKEYD_IDTOKEN_SESSION_TIMEOUT`, default 300 s); it is kept in the database, or sealed with the ceremony keys every instance holds, so any instance can finish it.
     */
    idTokenBegin: {
        pathParams: {};
        query: {};
        body: IDTokenBeginRequest;
        bodyRequired: true;
        response: IDTokenBeginResponse;
        status: 200;
        errorCode: "body_too_large" | "ceremony_capacity_reached" | "idtoken_provider_unknown" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/idtoken/finish: Finish an ID-token sign-in
     *
     * Once the body is well-formed, takes the session (it is used up by this call whatever its outcome, an unconfigured `provider` included), then checks, in this order: `provider` is configured (`idtoken_provider_unknown`); the session exists, unexpired (`idtoken_session_unknown`) and begun for `provider` (`idtoken_provider_mismatch`); `idToken` is a compact JWS within 8 KiB (`idtoken_too_large`) with a duplicate-free JSON header (`idtoken_malformed`), no `crit` (`idtoken_critical_header`) and a string `alg` (a header without `alg` is `idtoken_malformed`); the provider's keys can be had (503 `provider_unavailable`); `alg` is in the provider's allow-list (`idtoken_algorithm_not_allowed`: Apple RS256; LINE ES256, and HS256 only with a configured channel secret; Google RS256; never `none`, never an HMAC keyed with a public key); the key by `kid` (`idtoken_key_unknown`, `idtoken_key_invalid`); the signature (`idtoken_signature_invalid`); the claims are a duplicate-free JSON object (`idtoken_malformed`); `iss` is one of the provider's spellings (`idtoken_issuer_mismatch`); `aud` among the configured client ids, with several audiences `azp` too (`idtoken_audience_mismatch`); `exp` not passed beyond the clock skew (`idtoken_expired`); `nbf`, when present, not beyond now plus the skew (`idtoken_not_yet_valid`); `iat` not in the future and within the maximum age (`idtoken_issued_at_invalid`); `exp`, `nbf`, `iat` and `auth_time` are JSON numbers (RFC 7519 NumericDate) when present, a string of digits included is `idtoken_malformed`; `nonce` present (`idtoken_nonce_missing`) and equal under the provider's rule, compared in constant time (`idtoken_nonce_mismatch`); `sub` (`idtoken_subject_missing`). An identity is (the provider's canonical issuer, subject): Google's two spellings (`https://accounts.google.com`, `accounts.google.com`) are one issuer, stored as `https://accounts.google.com`. A returning identity (same issuer and subject) signs its user in (200). A new one creates a user (201) named `user.name`, or `provider:subject` when absent; with `user.id` it is attached to that existing user instead, whom your backend has authenticated (200). A name never links: a taken `user.name` is 409 `user_exists`. E-mail claims are stored for display and never link accounts. With the Apple code exchange configured, `authorizationCode` is redeemed at Apple (after the token verifies, before the sign-in): a refused code is 422 `apple_authorization_code_invalid`, Apple unreachable 503 `provider_unavailable`; otherwise it is accepted and ignored. With sessions on (`PASSKEYD_SESSIONS=on`) the answer also starts a session for the user (`session`, `amr` `["fed"]`), which unlinking this identity revokes (`PASSKEYD_SESSION_REVOKE_ON_DELETE`).
     */
    idTokenFinish: {
        pathParams: {};
        query: {};
        body: IDTokenFinishRequest;
        bodyRequired: true;
        response: IDTokenFinishResponse;
        status: 200 | 201;
        errorCode: "apple_authorization_code_invalid" | "body_too_large" | "identity_linked_elsewhere" | "idtoken_algorithm_not_allowed" | "idtoken_audience_mismatch" | "idtoken_critical_header" | "idtoken_expired" | "idtoken_issued_at_invalid" | "idtoken_issuer_mismatch" | "idtoken_key_invalid" | "idtoken_key_unknown" | "idtoken_malformed" | "idtoken_nonce_mismatch" | "idtoken_nonce_missing" | "idtoken_not_yet_valid" | "idtoken_provider_mismatch" | "idtoken_provider_unknown" | "idtoken_session_unknown" | "idtoken_signature_invalid" | "idtoken_subject_missing" | "idtoken_too_large" | "internal_error" | "malformed_base64" | "malformed_json" | "malformed_request" | "provider_unavailable" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_exists" | "user_unknown";
    };
    /**
     * GET /v1/admin/users/{userId}/identities: List a user's provider identities
     *
     * Present when ID-token sign-in is configured.
     */
    adminListUserIdentities: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminIdentityList;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * DELETE /v1/admin/users/{userId}/identities/{identityId}: Unlink a provider identity
     *
     * Detaches the identity from the user (audited as `identity.unlinked`). The provider account can then sign in again, which creates a new user unless your backend attaches it by id.
     */
    adminUnlinkIdentity: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
            /** The identity's id, base64url. */
            identityId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "identity_unknown" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * GET /.well-known/jwks.json: The access tokens' public keys (JWKS)
     *
     * The public keys that verify passkeyd's access tokens, as a JWK set (RFC 7517), for your API servers: a token's header `kid` names its key. Open; cacheable for 5 minutes (`Cache-Control: public, max-age=300`). With keys in the database (the default; sealed under `PASSKEYD_KEY_ENCRYPTION_KEY_FILE`) passkeyd makes the first key when it starts, a new one every `PASSKEYD_SESSION_KEY_ROTATION` (30 days) or on `passkeyd rotate-session-key`, and adds each new key to the database 10 minutes (twice the cache lifetime) before it signs (the first key ever signs at once); every instance serves a new key here after its next reread of the keys, within a minute of its being added (an instance rereads them when its copy is more than 60 s old); the key it replaces stops signing then and leaves the set once every token it signed has expired (the access-token lifetime plus a minute later). With `PASSKEYD_SESSION_KEY_FILES` every file's key is published and the first one signs. Never private members.
     */
    getSessionJWKS: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: JWKS;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_request" | "rate_limited" | "storage_unavailable";
    };
    /**
     * POST /v1/sessions/refresh: Refresh a session
     *
     * Rotates the refresh token: a new access token and a new refresh token, the presented one retired, in one atomic step (of concurrent refreshes with one token exactly one succeeds; the others present a retired token). Each refresh moves the idle expiry to `PASSKEYD_SESSION_IDLE_TTL` from now, never past the absolute expiry (`PASSKEYD_SESSION_MAX_TTL` after the session started). Presenting a retired refresh token is treated as theft: the whole session is revoked (`revokedReason` `refresh_token_reused`, its current refresh token stops working too), 401 `refresh_token_reused`, a warning in the log and `passkeyd_sessions_total{event="reused"}`. No API key: the refresh token is the credential, `{"refreshToken"}` in the body or, when the body is empty or has none, the session cookie. A refresh with the cookie answers the new refresh token in a new cookie (`Set-Cookie`), not in the body; a refresh with the cookie that fails on the token (400 `refresh_token_malformed`, 401) clears the cookie.
     */
    refreshSession: {
        pathParams: {};
        query: {};
        body: RefreshRequest;
        bodyRequired: false;
        response: SessionResponse;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "refresh_token_malformed" | "refresh_token_reused" | "refresh_token_unknown" | "session_inactive" | "storage_unavailable";
    };
    /**
     * POST /v1/sessions/revoke: Sign out
     *
     * Revokes a session (`revokedReason` `sign_out`). The credential is the refresh token (`{"refreshToken"}`, or the session cookie when the body is empty or has none) or, when the body is empty or `{}` and an `Authorization: Bearer` header is present (it then wins over the cookie), the session's access token, checked in this order, each with its own code: a compact JWS of at most 8 KiB with a JSON header without `crit` (`access_token_malformed`); `alg` `ES256` or `EdDSA` (`access_token_algorithm_not_allowed`; never `none` or HMAC); `kid` among the published keys (`access_token_key_unknown`; an unknown `kid` first makes passkeyd reread its keys) and `alg` that key's (`access_token_algorithm_not_allowed`); the signature (`access_token_signature_invalid`); claims of the right types (`access_token_malformed`); `iss` (`access_token_issuer_mismatch`); `aud` holding a configured audience (`access_token_audience_mismatch`); `exp` after now (`access_token_expired`). Like RFC 7009 the answer is 204 whether the session was active or not (an unknown, retired or already revoked refresh token changes nothing and reveals nothing), and it clears the session cookie. Access tokens already issued stay valid until their `exp` for verifiers that do not introspect.
     */
    revokeSession: {
        pathParams: {};
        query: {};
        body: RefreshRequest;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "refresh_token_malformed" | "storage_unavailable";
    };
    /**
     * POST /v1/sessions/introspect: Introspect an access token (RFC 7662)
     *
     * For your backend (API key): whether an access token is active now, as RFC 7662 answers it, but with a JSON body `{"token"}` instead of a form. Active means the token verifies (signature, `iss`, `aud`, `exp`) AND its session is not revoked and not past its absolute expiry: the way to see a sign-out or a revocation before the token's `exp`. Then the answer holds its claims (`aud` always an array, `sub` the user id, `token_type` `access_token`). Anything else is `{"active": false}` alone, with 200: a malformed, expired or foreign token, a token of a revoked session, a refresh token (never introspectable), and also a failure to read the keys or the session (fails closed).
     */
    introspectAccessToken: {
        pathParams: {};
        query: {};
        body: IntrospectionRequest;
        bodyRequired: true;
        response: Introspection;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "unauthorized";
    };
    /**
     * POST /v1/handoff: Make a handoff code for a web view
     *
     * A one-time code that a web view exchanges for a session of its own (`/v1/handoff/exchange`), e.g. a signed-in native app opening its web content. Two callers. The signed-in app: `Authorization: Bearer <accessToken>` and no `userId`; the token is checked in this order, each with its own code: a compact JWS of at most 8 KiB with a JSON header without `crit` (`access_token_malformed`); `alg` `ES256` or `EdDSA` (`access_token_algorithm_not_allowed`; never `none` or HMAC); `kid` among the published keys (`access_token_key_unknown`; an unknown `kid` first makes passkeyd reread its keys) and `alg` that key's (`access_token_algorithm_not_allowed`); the signature (`access_token_signature_invalid`); claims of the right types (`access_token_malformed`); `iss` (`access_token_issuer_mismatch`); `aud` holding a configured audience (`access_token_audience_mismatch`); `exp` after now (`access_token_expired`), and its session must exist for that user, not be revoked and not be past its absolute expiry (`session_revoked` otherwise); the code carries the user, `amr` and `auth_time` of that session. Or your backend: the API key and `{"userId"}`, for any user (`amr` `[]`, `auth_time` now); without API keys configured this form is open, like the ceremony endpoints (development only: anyone could then get a session for any user id). The web page may bind the code to its PKCE challenge (`codeChallenge`, S256 only; `plain` is refused), passed through the app; the exchange then requires the verifier. The code lives `PASSKEYD_HANDOFF_TTL` seconds (30 by default, at most 60), is stored only as a hash, and used up by its first exchange, whatever the outcome.
     */
    createHandoffCode: {
        pathParams: {};
        query: {};
        body: HandoffRequest;
        bodyRequired: false;
        response: HandoffResponse;
        status: 201;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "handoff_verifier_malformed" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "session_revoked" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * POST /v1/handoff/exchange: Exchange a handoff code for a session
     *
     * The web view exchanges the code for a new session of its own (origin `handoff`, a new `sessionId`, the code's `amr` and `auth_time`; revoking either session leaves the other). No API key: the code is the credential. It is taken in one atomic step (of concurrent exchanges exactly one succeeds) and used up whatever the outcome, so a wrong verifier burns it. Checks, in this order: the code's form (`handoff_code_malformed`); it exists (`handoff_code_unknown`: never issued or already exchanged); it has not expired (`handoff_code_expired`: at or after its expiry); for a code bound to a challenge, `codeVerifier` is present (`handoff_verifier_required`), 43-128 characters of the RFC 7636 alphabet (`handoff_verifier_malformed`) and matches, compared in constant time (`handoff_verifier_mismatch`); for a code issued without a challenge, no `codeVerifier` is sent (`handoff_verifier_unexpected`: RFC 9700 §2.1.1, a verifier for an unbound code is a downgrade attempt, and the code is used up). With `"cookie": true` the refresh token is not in the answer but in the session cookie (`Set-Cookie`: HttpOnly, Secure, SameSite=Strict, `Path=/v1/sessions`), so page scripts never read it and only refresh and sign-out receive it.
     */
    exchangeHandoffCode: {
        pathParams: {};
        query: {};
        body: HandoffExchangeRequest;
        bodyRequired: true;
        response: SessionResponse;
        status: 200;
        errorCode: "body_too_large" | "handoff_code_expired" | "handoff_code_malformed" | "handoff_code_unknown" | "handoff_verifier_malformed" | "handoff_verifier_mismatch" | "handoff_verifier_required" | "handoff_verifier_unexpected" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "user_unknown";
    };
    /**
     * GET /v1/me/credentials: List my passkeys
     *
     * The signed-in person's passkeys, oldest first, with provider names: for a passkey management screen.
     */
    meListCredentials: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: MeCredentialList;
        status: 200;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "internal_error" | "malformed_request" | "rate_limited" | "session_revoked" | "storage_unavailable" | "unauthorized";
    };
    /**
     * DELETE /v1/me/credentials/{credentialId}: Delete my passkey
     *
     * Deletes one of the signed-in person's passkeys (audited as `credential.deleted`, actor `user:<id>`). Needs a recent sign-in: the access token's `auth_time` within `PASSKEYD_REAUTHENTICATION_WINDOW` (5 minutes by default), else 401 `reauthentication_required`. Refused with 409 `last_sign_in_method` when it is the account's only way to sign in (no other passkey, no linked identity), unless `PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD` is on.
     */
    meDeleteCredential: {
        pathParams: {
            /** The credential id, base64url (RFC 4648 §5, no padding). */
            credentialId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "credential_unknown" | "internal_error" | "invalid_parameter" | "last_sign_in_method" | "malformed_request" | "rate_limited" | "reauthentication_required" | "session_revoked" | "storage_unavailable" | "unauthorized";
    };
    /**
     * PATCH /v1/me/credentials/{credentialId}: Set or clear my passkey's nickname
     *
     * Renames one of the signed-in person's passkeys (audited as `credential.renamed`, actor `user:<id>`).
     */
    meRenameCredential: {
        pathParams: {
            /** The credential id, base64url (RFC 4648 §5, no padding). */
            credentialId: PathId;
        };
        query: {};
        body: AdminRenameCredentialRequest;
        bodyRequired: true;
        response: MeCredentialResponse;
        status: 200;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "credential_unknown" | "internal_error" | "invalid_parameter" | "malformed_json" | "malformed_request" | "rate_limited" | "session_revoked" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/me/registration/begin: Begin adding a passkey to my account
     *
     * Starts a registration ceremony for the signed-in person (their credentials in `excludeCredentials`), taking the choices of `/v1/registration/begin` without `user`; `mediation: "conditional"` begins an automatic passkey upgrade. Finish it with `/v1/me/registration/finish`. Needs a recent sign-in: the access token's `auth_time` within `PASSKEYD_REAUTHENTICATION_WINDOW` (5 minutes by default), else 401 `reauthentication_required`.
     */
    meRegistrationBegin: {
        pathParams: {};
        query: {};
        body: MeRegistrationBeginRequest;
        bodyRequired: false;
        response: RegistrationBeginResponse;
        status: 200;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "ceremony_capacity_reached" | "conditional_create_disabled" | "extension_input_invalid" | "extension_unsupported" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "reauthentication_required" | "session_revoked" | "storage_unavailable" | "too_many_pending_ceremonies" | "unauthorized" | "user_unknown";
    };
    /**
     * POST /v1/me/registration/finish: Finish adding a passkey to my account
     *
     * Verifies and stores the credential of a ceremony begun with `/v1/me/registration/begin` by the same person: a challenge of any other ceremony is `challenge_unknown_or_expired` (and consumed, like any failed finish). Answers no session: the person is signed in. Audited with the actor `user:<id>`. Needs a recent sign-in: the access token's `auth_time` within `PASSKEYD_REAUTHENTICATION_WINDOW` (5 minutes by default), else 401 `reauthentication_required`.
     */
    meRegistrationFinish: {
        pathParams: {};
        query: {};
        body: RegistrationFinishRequest;
        bodyRequired: true;
        response: MeRegistrationFinishResponse;
        status: 201;
        errorCode: "aaguid_denied" | "aaguid_not_allowed" | "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "algorithm_not_allowed" | "android_key_all_applications" | "android_key_challenge_mismatch" | "android_key_description_invalid" | "android_key_origin_invalid" | "android_key_public_key_mismatch" | "android_key_purpose_invalid" | "apple_nonce_extension_invalid" | "apple_nonce_mismatch" | "apple_public_key_mismatch" | "attestation_aaguid_mismatch" | "attestation_algorithm_mismatch" | "attestation_certificate_expired" | "attestation_certificate_invalid" | "attestation_not_allowed" | "attestation_signature_invalid" | "attestation_untrusted" | "attested_credential_data_missing" | "authenticator_status_refused" | "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "credential_already_registered" | "credential_id_mismatch" | "credential_id_too_long" | "cross_origin_not_allowed" | "extension_output_invalid" | "internal_error" | "invalid_credential_type" | "invalid_public_key" | "jws_algorithm_unsupported" | "jws_malformed" | "jws_signature_invalid" | "malformed_attestation_object" | "malformed_attestation_statement" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "metadata_expired" | "metadata_malformed" | "metadata_signature_invalid" | "metadata_untrusted" | "origin_not_allowed" | "rate_limited" | "reauthentication_required" | "rp_id_hash_mismatch" | "safetynet_cts_profile_mismatch" | "safetynet_hostname_mismatch" | "safetynet_nonce_mismatch" | "safetynet_timestamp_invalid" | "session_revoked" | "storage_unavailable" | "token_binding_invalid" | "top_origin_not_allowed" | "tpm_aik_extended_key_usage_missing" | "tpm_aik_is_ca" | "tpm_aik_subject_alt_name_invalid" | "tpm_aik_subject_not_empty" | "tpm_aik_version_invalid" | "tpm_attest_type_invalid" | "tpm_attested_name_mismatch" | "tpm_cert_info_invalid" | "tpm_extra_data_mismatch" | "tpm_magic_invalid" | "tpm_manufacturer_unknown" | "tpm_pub_area_invalid" | "tpm_pub_area_key_mismatch" | "tpm_version_unsupported" | "unauthorized" | "unsupported_attestation_format" | "user_not_present" | "user_not_verified" | "user_unknown";
    };
    /**
     * GET /v1/me/identities: List my linked identities
     *
     * The provider identities (Sign in with Apple, Google, …) linked to the signed-in person. Present with ID-token sign-in (`PASSKEYD_IDTOKEN_PROVIDERS`).
     */
    meListIdentities: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: MeIdentityList;
        status: 200;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "internal_error" | "malformed_request" | "rate_limited" | "session_revoked" | "storage_unavailable" | "unauthorized";
    };
    /**
     * DELETE /v1/me/identities/{identityId}: Unlink one of my identities
     *
     * Detaches a provider identity from the signed-in person (audited as `identity.unlinked`, actor `user:<id>`). Present with ID-token sign-in (`PASSKEYD_IDTOKEN_PROVIDERS`). Needs a recent sign-in: the access token's `auth_time` within `PASSKEYD_REAUTHENTICATION_WINDOW` (5 minutes by default), else 401 `reauthentication_required`. Refused with 409 `last_sign_in_method` when it is the account's only way to sign in (no other passkey, no linked identity), unless `PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD` is on.
     */
    meUnlinkIdentity: {
        pathParams: {
            /** The identity's id, base64url. */
            identityId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "body_too_large" | "identity_unknown" | "internal_error" | "invalid_parameter" | "last_sign_in_method" | "malformed_request" | "rate_limited" | "reauthentication_required" | "session_revoked" | "storage_unavailable" | "unauthorized";
    };
    /**
     * GET /v1/admin/users/{userId}/sessions: List a user's sessions
     *
     * Present when sessions are on. Newest first, with the ended ones the purge has not removed yet (every 10 minutes it deletes sessions revoked more than a day ago or past their absolute expiry by more than a day). Never a token.
     */
    adminListUserSessions: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminSessionList;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * DELETE /v1/admin/users/{userId}/sessions: Revoke all of a user's sessions
     *
     * Revokes every active session of the user (`revokedReason` `admin`): their refresh tokens stop working at once; access tokens already issued stay valid until their `exp` for verifiers that do not introspect.
     */
    adminRevokeUserSessions: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AdminRevokedSessions;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * DELETE /v1/admin/users/{userId}/sessions/{sessionId}: Revoke one session
     *
     * Revokes the session (`revokedReason` `admin`): its refresh token stops working at once; its access tokens stay valid until their `exp` for verifiers that do not introspect.
     */
    adminRevokeUserSession: {
        pathParams: {
            /** The user handle, base64url (RFC 4648 §5, no padding). */
            userId: PathId;
            /** The session id (`sessionId`), base64url. */
            sessionId: PathId;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "session_unknown" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/appattest/challenge: Get an App Attest challenge
     *
     * A single-use challenge (32 random bytes, base64url; with ceremony keys configured, a sealed box of 53 bytes, nothing stored: treat it as opaque and of variable length) for one attestation or one assertion, kept like a ceremony until `expiresAt` (`PASSKEYD_APPATTEST_CHALLENGE_TTL`, 300 s by default). For an attestation the app passes SHA-256 of the challenge bytes as `clientDataHash`; for an assertion it puts the challenge (as given here) in the `challenge` member of its `clientData` JSON.
     */
    appAttestChallenge: {
        pathParams: {};
        query: {};
        body: {
            [key: string]: unknown;
        };
        bodyRequired: false;
        response: AppAttestChallenge;
        status: 200;
        errorCode: "body_too_large" | "ceremony_capacity_reached" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/appattest/attestations: Verify and store an App Attest key
     *
     * Verifies `attestationObject` from `DCAppAttestService.attestKey(keyId, clientDataHash: SHA256(challenge bytes))` with Apple's validation steps, in order: `fmt` `apple-appattest`; the `x5c` chain to the configured App Attestation root at now; nonce = SHA-256(authData ‖ clientDataHash) equals credCert's extension 1.2.840.113635.100.8.2; `keyId` = SHA-256 of credCert's public key; rpIdHash = SHA-256 of a configured `TEAMID.bundle.id`; counter 0; AAGUID of production (or development, only when allowed); credentialId = `keyId`. The challenge is used up first, whatever the outcome. Stores the key, its app, environment and receipt; `userId` attaches it to an existing user.
     */
    appAttestAttestation: {
        pathParams: {};
        query: {};
        body: AppAttestAttestationRequest;
        bodyRequired: true;
        response: AppAttestKey;
        status: 201;
        errorCode: "appattest_aaguid_mismatch" | "appattest_chain_invalid" | "appattest_challenge_invalid" | "appattest_counter_not_zero" | "appattest_credential_id_mismatch" | "appattest_format_invalid" | "appattest_key_exists" | "appattest_key_id_mismatch" | "appattest_malformed" | "appattest_nonce_extension_invalid" | "appattest_nonce_mismatch" | "appattest_rp_id_mismatch" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * POST /v1/appattest/assertions: Verify an App Attest assertion
     *
     * Verifies `assertion` from `generateAssertion(keyId, clientDataHash: SHA256(clientData))` against the stored key: the challenge inside `clientData` is used up first (whatever the outcome); then the signature (DER ECDSA P-256 over SHA-256(authData ‖ SHA-256(clientData))), rpIdHash = SHA-256 of the key's App ID, and a counter strictly above the stored one, stored with a conditional update: of concurrent assertions with one counter exactly one succeeds.
     */
    appAttestAssertion: {
        pathParams: {};
        query: {};
        body: AppAttestAssertionRequest;
        bodyRequired: true;
        response: AppAttestKey;
        status: 200;
        errorCode: "appattest_challenge_invalid" | "appattest_client_data_invalid" | "appattest_counter_not_increasing" | "appattest_key_unknown" | "appattest_malformed" | "appattest_rp_id_mismatch" | "appattest_signature_invalid" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/appstore/transactions: Keep a verified StoreKit transaction for a user
     *
     * Your backend posts the app's `Transaction.jwsRepresentation` for the signed-in user. passkeyd verifies it (see the tag), checks that its `appAccountToken`, when set, is this user's, and keeps it, idempotent by `transactionId`: a copy replaces the kept one only when its `signedDate` is not older (so an old copy never undoes a refund). 201 when first kept, 200 otherwise; the answer carries the user's entitlements after it.
     */
    appStorePostTransaction: {
        pathParams: {};
        query: {};
        body: AppStoreTransactionRequest;
        bodyRequired: true;
        response: AppStoreTransactionResponse;
        status: 200 | 201;
        errorCode: "appstore_algorithm_not_allowed" | "appstore_app_account_token_mismatch" | "appstore_bundle_id_mismatch" | "appstore_chain_expired" | "appstore_chain_length_invalid" | "appstore_chain_untrusted" | "appstore_environment_mismatch" | "appstore_intermediate_oid_missing" | "appstore_jws_malformed" | "appstore_leaf_oid_missing" | "appstore_payload_malformed" | "appstore_product_unknown" | "appstore_signature_invalid" | "appstore_transaction_owned_elsewhere" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * POST /v1/appstore/renewals: Keep verified subscription renewal information
     *
     * Your backend posts `Product.SubscriptionInfo.RenewalInfo`'s `jwsRepresentation`. Renewal information names no bundle id, so only the chain, the signature and the environment are checked. Kept per original transaction (the newest `signedDate` wins); `userId` is the purchase's user when known.
     */
    appStorePostRenewalInfo: {
        pathParams: {};
        query: {};
        body: AppStoreRenewalRequest;
        bodyRequired: true;
        response: AppStoreRenewalResponse;
        status: 200;
        errorCode: "appstore_algorithm_not_allowed" | "appstore_chain_expired" | "appstore_chain_length_invalid" | "appstore_chain_untrusted" | "appstore_environment_mismatch" | "appstore_intermediate_oid_missing" | "appstore_jws_malformed" | "appstore_leaf_oid_missing" | "appstore_payload_malformed" | "appstore_signature_invalid" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * POST /v1/appstore/notifications: App Store Server Notifications V2
     *
     * The URL to give App Store Connect for App Store Server Notifications V2 (production and sandbox). Public: Apple's signature is the authentication, so no API key is needed. The outer `signedPayload` and the `signedTransactionInfo` / `signedRenewalInfo` inside it are verified the same way; then the transaction and renewal information are applied (renewals, expiries, refunds and revocations all arrive as re-signed transactions and renewal information; the newest `signedDate` wins), all in one database transaction. 200 only once stored, so Apple retries anything else. Idempotent by `notificationUUID`: a retry or a replay answers 200 with `duplicate: true` and applies nothing. A purchase nobody posted yet is attached to the user whose `appAccountToken` its transaction carries, else kept without a user until a backend posts it. A transaction of a product outside `PASSKEYD_APPSTORE_PRODUCT_IDS` is not kept, but the notification is recorded and answered 200. The answer names no user and no purchase.
     */
    appStoreNotification: {
        pathParams: {};
        query: {};
        body: AppStoreNotificationRequest;
        bodyRequired: true;
        response: AppStoreNotificationResponse;
        status: 200;
        errorCode: "appstore_algorithm_not_allowed" | "appstore_app_apple_id_mismatch" | "appstore_bundle_id_mismatch" | "appstore_chain_expired" | "appstore_chain_length_invalid" | "appstore_chain_untrusted" | "appstore_environment_mismatch" | "appstore_intermediate_oid_missing" | "appstore_jws_malformed" | "appstore_leaf_oid_missing" | "appstore_payload_malformed" | "appstore_signature_invalid" | "body_too_large" | "internal_error" | "malformed_json" | "malformed_request" | "rate_limited" | "storage_unavailable";
    };
    /**
     * GET /v1/users/{userId}/entitlements: What a user's App Store purchases grant now
     *
     * One entry per purchase (original transaction) of the user, from its latest transaction and renewal information. The latest transaction is chosen by a total order, whatever order the transactions arrived in: the latest `purchaseDate`; on a tie the latest `expiresDate` (none counts as earliest); then the latest `signedDate`; then the greater `transactionId` (as a number). `entitlements` holds what grants access now (`active`, or `grace_period` while Apple retries a failed renewal), `inactive` the expired, revoked (refunded) and upgraded ones. Consumables are left out. Also the user's `appAccountToken`, for the app's purchases.
     */
    appStoreEntitlements: {
        pathParams: {
            /** The user id (user handle), base64url (RFC 4648 §5, no padding). */
            userId: UserIdPath;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: EntitlementsResponse;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * GET /.well-known/apple-app-site-association: Apple app site association (webcredentials)
     *
     * The `webcredentials` section of the apple-app-site-association file: the App IDs (`TEAMID.bundle.id`) of `PASSKEYD_APPLE_APP_IDS`, which may use passkeys of this RP id through `ASAuthorizationPlatformPublicKeyCredentialProvider` once the app lists `webcredentials:<rp id>` in its Associated Domains entitlement. Apple's CDN fetches it from `https://<rp id>/.well-known/apple-app-site-association`. iOS clients send the RP's web origin `https://<rp id>`, which `PASSKEYD_ORIGINS` must list.
     */
    getAppleAppSiteAssociation: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: {
            webcredentials: {
                apps: string[];
            };
        };
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_request" | "rate_limited";
    };
    /**
     * GET /.well-known/assetlinks.json: Android Digital Asset Links (get_login_creds)
     *
     * One statement per app of `PASSKEYD_ANDROID_APPS`: relation `delegate_permission/common.get_login_creds`, target the app's package and the SHA-256 fingerprints of its signing certificates (upper-case hex, colon-separated). Credential Manager fetches it from `https://<rp id>/.well-known/assetlinks.json`. The app's ceremonies carry the origin `android:apk-key-hash:<base64url of the fingerprint>`, which passkeyd accepts for every configured fingerprint.
     */
    getAssetLinks: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: {
            relation: "delegate_permission/common.get_login_creds"[];
            target: {
                namespace: "android_app";
                package_name: string;
                sha256_cert_fingerprints: string[];
            };
        }[];
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_request" | "rate_limited";
    };
    /**
     * GET /.well-known/webauthn: WebAuthn related origins
     *
     * The web origins that may use this RP id although their registrable domain differs (WebAuthn Level 3 §5.11, related origin requests): `PASSKEYD_RELATED_ORIGINS`, or by default every web origin of `PASSKEYD_ORIGINS` outside the RP id. Browsers fetch it from `https://<rp id>/.well-known/webauthn` and honour origins under at most five distinct domain labels (passkeyd warns at start past five).
     */
    getRelatedOrigins: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: {
            origins: string[];
        };
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_request" | "rate_limited";
    };
    /**
     * GET /v1/users/{userId}/signals: The Signal API's arguments for a user
     *
     * What a page or app passes to `PublicKeyCredential.signalAllAcceptedCredentials` and `signalCurrentUserDetails` after your backend deleted one of the user's passkeys or renamed the user, so the passkey provider drops the deleted passkey and shows the new name: the RP id, the user id, every credential id of the user (oldest first), name and display name. A successful `POST /v1/authentication/finish` carries the same object as `signal`.
     */
    getUserSignals: {
        pathParams: {
            /** The user id (user handle), base64url (RFC 4648 §5, no padding). */
            userId: UserIdPath;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: AcceptedCredentialsSignal;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "user_unknown";
    };
    /**
     * GET /v1/admin/webhooks/endpoints: List the webhook endpoints
     *
     * The endpoints as the store knows them, by id: those in the settings and those removed from them (`removed`: nothing new is fanned out to them and nothing is sent). `events` null: every event type.
     */
    adminListWebhookEndpoints: {
        pathParams: {};
        query: {};
        body: never;
        bodyRequired: false;
        response: WebhookEndpointList;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized";
    };
    /**
     * GET /v1/admin/webhooks/endpoints/{endpointId}/deliveries: Page through an endpoint's deliveries
     *
     * One delivery per event fanned out to this endpoint, oldest first: its status, attempts, next and last attempt, the last HTTP status and error, and the event (the audit trail's row). Pages chain with `next`.
     */
    adminListWebhookDeliveries: {
        pathParams: {
            /** The endpoint's name in the settings (letters, digits, `-`, `_`; at most 64). */
            endpointId: string;
        };
        query: {
            /** Only deliveries in this status. */
            status?: "pending" | "delivered" | "failed";
            /** Page size. */
            limit?: number;
            /** The `next` cursor of the previous page. */
            after?: string;
        };
        body: never;
        bodyRequired: false;
        response: WebhookDeliveryPage;
        status: 200;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "webhook_endpoint_unknown";
    };
    /**
     * POST /v1/admin/webhooks/deliveries/{deliveryId}/redeliver: Redeliver one delivery
     *
     * Makes the delivery pending again and due now (a pending one is only made due now); its attempts are kept.
     */
    adminRedeliverWebhook: {
        pathParams: {
            /** The delivery's id (`id` of a listed delivery). */
            deliveryId: string;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "webhook_delivery_unknown";
    };
    /**
     * POST /v1/admin/webhooks/endpoints/{endpointId}/pause: Pause an endpoint
     *
     * Deliveries to the endpoint keep being written but wait until it is resumed. The paused flag survives restarts and settings changes.
     */
    adminPauseWebhookEndpoint: {
        pathParams: {
            /** The endpoint's name in the settings (letters, digits, `-`, `_`; at most 64). */
            endpointId: string;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "webhook_endpoint_unknown";
    };
    /**
     * POST /v1/admin/webhooks/endpoints/{endpointId}/resume: Resume an endpoint
     *
     * Its waiting deliveries are sent again, oldest first.
     */
    adminResumeWebhookEndpoint: {
        pathParams: {
            /** The endpoint's name in the settings (letters, digits, `-`, `_`; at most 64). */
            endpointId: string;
        };
        query: {};
        body: never;
        bodyRequired: false;
        response: void;
        status: 204;
        errorCode: "body_too_large" | "internal_error" | "invalid_parameter" | "malformed_request" | "rate_limited" | "storage_unavailable" | "unauthorized" | "webhook_endpoint_unknown";
    };
}
/** Every operationId of the document. */
export declare type OperationId = keyof Operations;
/** Every error code the document names (an answer may carry another: treat unknown codes by their status). */
export declare type ErrorCode = "aaguid_denied" | "aaguid_not_allowed" | "access_token_algorithm_not_allowed" | "access_token_audience_mismatch" | "access_token_expired" | "access_token_issuer_mismatch" | "access_token_key_unknown" | "access_token_malformed" | "access_token_signature_invalid" | "algorithm_not_allowed" | "android_key_all_applications" | "android_key_challenge_mismatch" | "android_key_description_invalid" | "android_key_origin_invalid" | "android_key_public_key_mismatch" | "android_key_purpose_invalid" | "appattest_aaguid_mismatch" | "appattest_chain_invalid" | "appattest_challenge_invalid" | "appattest_client_data_invalid" | "appattest_counter_not_increasing" | "appattest_counter_not_zero" | "appattest_credential_id_mismatch" | "appattest_format_invalid" | "appattest_key_exists" | "appattest_key_id_mismatch" | "appattest_key_unknown" | "appattest_malformed" | "appattest_nonce_extension_invalid" | "appattest_nonce_mismatch" | "appattest_rp_id_mismatch" | "appattest_signature_invalid" | "apple_authorization_code_invalid" | "apple_nonce_extension_invalid" | "apple_nonce_mismatch" | "apple_public_key_mismatch" | "appstore_algorithm_not_allowed" | "appstore_app_account_token_mismatch" | "appstore_app_apple_id_mismatch" | "appstore_bundle_id_mismatch" | "appstore_chain_expired" | "appstore_chain_length_invalid" | "appstore_chain_untrusted" | "appstore_environment_mismatch" | "appstore_intermediate_oid_missing" | "appstore_jws_malformed" | "appstore_leaf_oid_missing" | "appstore_payload_malformed" | "appstore_product_unknown" | "appstore_signature_invalid" | "appstore_transaction_owned_elsewhere" | "attestation_aaguid_mismatch" | "attestation_algorithm_mismatch" | "attestation_certificate_expired" | "attestation_certificate_invalid" | "attestation_not_allowed" | "attestation_signature_invalid" | "attestation_untrusted" | "attested_credential_data_missing" | "authenticator_status_refused" | "backup_eligibility_mismatch" | "backup_state_invalid" | "body_too_large" | "ceremony_capacity_reached" | "challenge_expired" | "challenge_mismatch" | "challenge_unknown_or_expired" | "client_data_type_mismatch" | "conditional_create_disabled" | "conditional_create_needs_user_id" | "credential_already_registered" | "credential_id_mismatch" | "credential_id_too_long" | "credential_not_allowed" | "credential_not_owned_by_user" | "credential_unknown" | "cross_origin_not_allowed" | "extension_input_invalid" | "extension_output_invalid" | "extension_unsupported" | "handoff_code_expired" | "handoff_code_malformed" | "handoff_code_unknown" | "handoff_verifier_malformed" | "handoff_verifier_mismatch" | "handoff_verifier_required" | "handoff_verifier_unexpected" | "identity_linked_elsewhere" | "identity_unknown" | "idtoken_algorithm_not_allowed" | "idtoken_audience_mismatch" | "idtoken_critical_header" | "idtoken_expired" | "idtoken_issued_at_invalid" | "idtoken_issuer_mismatch" | "idtoken_key_invalid" | "idtoken_key_unknown" | "idtoken_malformed" | "idtoken_nonce_mismatch" | "idtoken_nonce_missing" | "idtoken_not_yet_valid" | "idtoken_provider_mismatch" | "idtoken_provider_unknown" | "idtoken_session_unknown" | "idtoken_signature_invalid" | "idtoken_subject_missing" | "idtoken_too_large" | "internal_error" | "invalid_credential_type" | "invalid_parameter" | "invalid_public_key" | "invalid_user_entity" | "jws_algorithm_unsupported" | "jws_malformed" | "jws_signature_invalid" | "last_sign_in_method" | "malformed_attestation_object" | "malformed_attestation_statement" | "malformed_authenticator_data" | "malformed_base64" | "malformed_client_data" | "malformed_json" | "malformed_request" | "malformed_response" | "metadata_expired" | "metadata_malformed" | "metadata_signature_invalid" | "metadata_untrusted" | "origin_not_allowed" | "provider_unavailable" | "rate_limited" | "reauthentication_required" | "refresh_token_malformed" | "refresh_token_reused" | "refresh_token_unknown" | "rp_id_hash_mismatch" | "safetynet_cts_profile_mismatch" | "safetynet_hostname_mismatch" | "safetynet_nonce_mismatch" | "safetynet_timestamp_invalid" | "session_inactive" | "session_missing" | "session_revoked" | "session_unknown" | "sign_count_regressed" | "signature_invalid" | "storage_unavailable" | "stored_public_key_invalid" | "token_binding_invalid" | "too_many_pending_ceremonies" | "top_origin_not_allowed" | "tpm_aik_extended_key_usage_missing" | "tpm_aik_is_ca" | "tpm_aik_subject_alt_name_invalid" | "tpm_aik_subject_not_empty" | "tpm_aik_version_invalid" | "tpm_attest_type_invalid" | "tpm_attested_name_mismatch" | "tpm_cert_info_invalid" | "tpm_extra_data_mismatch" | "tpm_magic_invalid" | "tpm_manufacturer_unknown" | "tpm_pub_area_invalid" | "tpm_pub_area_key_mismatch" | "tpm_version_unsupported" | "unauthorized" | "unexpected_attested_credential_data" | "unsupported_attestation_format" | "user_exists" | "user_handle_mismatch" | "user_handle_missing" | "user_not_present" | "user_not_verified" | "user_unknown" | "webhook_delivery_unknown" | "webhook_endpoint_unknown";
/** How each operation is sent. security: the accepted schemes in the document's order; null: no credentials. */
export interface OperationSpec {
    readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    readonly path: string;
    readonly security: readonly ("apiKey" | "adminKey" | "accessToken" | null)[];
    readonly pathParams: readonly string[];
    readonly queryParams: readonly string[];
    readonly body: "required" | "optional" | "none";
    readonly response: "json" | "text" | "none";
}
export declare const operations: {
    readonly [K in OperationId]: OperationSpec;
};
