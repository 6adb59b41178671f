import PasskeyApp
import Hummingbird
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

/// The Signal API's arguments for one user, for backends (API key):
///
///     GET /v1/users/{userId}/signals   {"rpId", "userId", "allAcceptedCredentialIds", "name", "displayName"}
///
/// A page or app passes them to `PublicKeyCredential.signalAllAcceptedCredentials` and
/// `signalCurrentUserDetails` after a passkey was deleted or the user renamed, so the passkey provider drops the
/// deleted one and shows the new name. A successful authentication finish carries the same object as `signal`,
/// and a finish with an unknown credential the arguments of `signalUnknownCredential` (APIError).
func addSignalRoutes(to router: Router<PasskeyRequestContext>, api: API) {
    api.route(router, .userSignals) { _, _, context in
        guard let text = context.parameters.get("userId"), let handle = Base64URL.decodeStrict(text), (1...64).contains(handle.count) else {
            throw APIError.invalidParameter("userId must be a user id (base64url).")
        }
        let (user, credentialIDs) = try await api.service.signalState(ofUser: handle)
        let signal = AcceptedCredentialsSignal(rpID: api.service.relyingParty.id, user: user, credentialIDs: credentialIDs)
        return try api.json(status: .ok, signal)
    }
}

