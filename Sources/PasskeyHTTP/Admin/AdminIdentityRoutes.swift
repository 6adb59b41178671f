import PasskeyApp
import Hummingbird
import PasskeyStore
import WebAuthnModel

/// The admin API for provider identities (present when ID-token sign-in is configured):
///
///     GET    /v1/admin/users/:userId/identities                  {"identities": [...]}, oldest first
///     DELETE /v1/admin/users/:userId/identities/:identityId      (204) unlink it (`identity.unlinked`)
///
/// Deleting the user (`DELETE /v1/admin/users/:userId`) deletes their identities too.
func addAdminIdentityRoutes(to router: Router<PasskeyRequestContext>, api: API, admin: UserAdministration) {
    api.route(router, .adminUserIdentities) { _, _, context in
        let list = try await admin.identities(ofUser: try AdminAPI.id(context, "userId")).map(IdentityJSON.init)
        return try AdminAPI.json(status: .ok, ["identities": list])
    }
    api.route(router, .adminUnlinkIdentity) { _, _, context in
        let handle = try AdminAPI.id(context, "userId")
        let id = try AdminAPI.id(context, "identityId")
        try await admin.unlinkIdentity(id, ofUser: handle, audit: RequestScope.audit)
        RequestScope.log(.identityUnlinked, user: handle, identity: id)
        return Response(status: .noContent)
    }
}


extension APIError {
    static let identityUnknown = APIError(status: 404, code: "identity_unknown", message: "This user has no identity with this id.")
}
