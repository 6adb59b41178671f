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
    router.get("/v1/admin/users/:userId/identities") { request, context in
        await api.handle(request, context, .adminUserIdentities) { _, context in
            let list = try await admin.identities(ofUser: try AdminAPI.id(context, "userId")).map(IdentityJSON.init)
            return try AdminAPI.json(status: .ok, ["identities": list])
        }
    }
    router.delete("/v1/admin/users/:userId/identities/:identityId") { request, context in
        await api.handle(request, context, .adminUnlinkIdentity) { _, context in
            let handle = try AdminAPI.id(context, "userId")
            let id = try AdminAPI.id(context, "identityId")
            try await admin.unlinkIdentity(id, ofUser: handle, audit: RequestScope.audit)
            RequestScope.log(.identityUnlinked, user: handle, identity: id)
            return Response(status: .noContent)
        }
    }
}

extension Operation {
    static let adminUserIdentities = Operation(name: "admin_user_identities", access: .admin)
    static let adminUnlinkIdentity = Operation(name: "admin_unlink_identity", access: .admin)
}

extension APIError {
    static let identityUnknown = APIError(status: 404, code: "identity_unknown", message: "This user has no identity with this id.")
}
