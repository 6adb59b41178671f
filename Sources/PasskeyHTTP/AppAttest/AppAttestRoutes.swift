import PasskeyApp
import AppleSignedData
import Foundation
import Hummingbird
import PasskeyStore
import WebAuthnModel

/// App Attest (present when `PASSKEYD_APPATTEST_APP_IDS` is set), called by the app's backend with the API key:
///
///     POST /v1/appattest/challenge      {} → {"challenge", "expiresAt"}
///     POST /v1/appattest/attestations   {"keyId", "attestationObject", "challenge", "userId"?} → 201 the key
///     POST /v1/appattest/assertions     {"keyId", "assertion", "clientData"} → 200 the key with its new counter
///
/// `keyId`, `attestationObject` and `assertion` are base64 as Apple's API hands them over (base64url also accepted);
/// `challenge` and `userId` are base64url. The attestation's clientDataHash is SHA-256 of the challenge bytes.
/// `clientData` is the base64url (or base64) of the exact bytes the app hashed for `generateAssertion`: a JSON object
/// whose `challenge` member is a challenge from `/v1/appattest/challenge` (its other members are the app's).
func addAppAttestRoutes(to router: Router<PasskeyRequestContext>, api: API, service: AppAttestService) {
    api.route(router, .appAttestChallenge) { _, body, _ in
        // An empty body or an empty object: the challenge carries nothing.
        if !body.isEmpty { _ = try api.object(body) }
        let (challenge, expiresAt) = try await service.challenge()
        return try api.json(status: .ok, AppAttestChallengeJSON(challenge: Base64URL.encode(challenge), expiresAt: expiresAt))
    }
    api.route(router, .appAttestAttestation) { _, body, _ in
        let members = try api.object(body)
        let keyID = try AppAttestRequest.keyID(members)
        let object = try AppAttestRequest.bytes(members, "attestationObject")
        let challenge = try AppAttestRequest.bytes(members, "challenge")
        var userHandle: [UInt8]?
        switch members["userId"] {
        case nil, .null?: userHandle = nil
        case .string(let text)?:
            guard let handle = Base64URL.decode(text), (1...64).contains(handle.count) else {
                throw AppAttestRequest.malformed("userId must be a user id (base64url).")
            }
            userHandle = handle
        default: throw AppAttestRequest.malformed("userId must be a user id (base64url).")
        }
        let key = try await service.attest(
            keyID: keyID, attestationObject: object, challenge: challenge, userHandle: userHandle, audit: RequestScope.audit)
        RequestScope.log(.appAttestKeyRegistered, user: userHandle, details: ["key_id": Base64URL.encode(keyID)])
        return try api.json(status: .created, AppAttestKeyJSON(key))
    }
    api.route(router, .appAttestAssertion) { _, body, _ in
        let members = try api.object(body)
        let keyID = try AppAttestRequest.keyID(members)
        let assertion = try AppAttestRequest.bytes(members, "assertion")
        let clientData = try AppAttestRequest.bytes(members, "clientData")
        let key = try await service.assert(keyID: keyID, assertion: assertion, clientData: clientData)
        return try api.json(status: .ok, AppAttestKeyJSON(key))
    }
}


/// Request members.
enum AppAttestRequest {
    static func malformed(_ message: String) -> APIError { APIError(status: 400, code: "malformed_json", message: message) }

    /// A required base64 / base64url member, non-empty.
    static func bytes(_ members: [String: JSONValue], _ name: String) throws -> [UInt8] {
        guard case .string(let text)? = members[name], let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw malformed("\(name) is required, base64 or base64url.")
        }
        return bytes
    }

    /// `keyId`: 32 bytes, base64 as `generateKey` returns it.
    static func keyID(_ members: [String: JSONValue]) throws -> [UInt8] {
        guard case .string(let text)? = members["keyId"], let bytes = Base64URL.decode(text), bytes.count == 32 else {
            throw malformed("keyId is required: the 32-byte key identifier, base64.")
        }
        return bytes
    }
}

/// `{"challenge", "expiresAt"}`.
struct AppAttestChallengeJSON: Encodable {
    let challenge: String
    let expiresAt: Date
}

/// An attested key as answered: `{"keyId", "appId", "environment", "counter", "userId"?}` (keyId in base64, as
/// Apple's API spells it; userId base64url).
struct AppAttestKeyJSON: Encodable {
    let keyId: String
    let appId: String
    let environment: String
    let counter: UInt32
    let userId: String?

    init(_ key: StoredAppAttestKey) {
        keyId = Data(key.keyID).base64EncodedString()
        appId = key.appID
        environment = key.environment.rawValue
        counter = key.counter
        userId = key.userHandle.map { Base64URL.encode($0) }
    }
}

extension APIError {
    /// App Attest refusals: malformed input and unusable challenges are 400, an unknown key 404, a key attested
    /// twice 409, every failed check 422; the code names the check.
    init(_ error: AppAttestError) {
        switch error.code {
        case .malformed, .clientDataInvalid:
            self.init(status: 400, code: error.code.rawValue, message: "The App Attest data is malformed.")
        case .challengeInvalid:
            self.init(
                status: 400, code: error.code.rawValue,
                message: "The challenge is unknown, expired or already used; get a new one from /v1/appattest/challenge.")
        case .keyUnknown:
            self.init(status: 404, code: error.code.rawValue, message: "No attested key has this id.")
        case .keyExists:
            self.init(status: 409, code: error.code.rawValue, message: "This key is already attested.")
        default:
            self.init(status: 422, code: error.code.rawValue, message: "The App Attest data failed verification.")
        }
    }
}
