import Hummingbird

/// The admin API under `/v1/admin` (registered only when an admin key is configured).
func addAdminRoutes(to router: Router<BasicRequestContext>, api: API) {
}
