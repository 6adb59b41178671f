import Hummingbird

/// `GET /openapi.json`: the OpenAPI document kept in the repository (`Sources/PasskeyHTTP/Resources/openapi.json`).
func addOpenAPIRoute(to router: Router<BasicRequestContext>) {
}
