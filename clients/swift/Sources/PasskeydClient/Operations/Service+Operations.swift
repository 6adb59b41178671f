// The service's probes, metrics and public documents (no credential).

extension PasskeydClient {
    /// The process is up.
    public func getHealth() async throws -> Health {
        try await call(.getHealth)
    }

    /// Ready to serve (its store reachable); not ready is a 503 ``PasskeydError``, never retried.
    public func getReadiness() async throws -> Readiness {
        try await call(.getReadiness)
    }

    /// The Prometheus metrics, as text.
    public func getMetrics() async throws -> String {
        let answer = try await send(.getMetrics, try request(.getMetrics))
        return String(decoding: answer.body, as: UTF8.self)
    }

    /// The OpenAPI document the server serves (without the admin operations when no admin key is configured).
    public func getOpenAPIDocument() async throws -> JSONValue {
        try await call(.getOpenAPIDocument)
    }

    /// `/.well-known/apple-app-site-association` (webcredentials, applinks), as passkeyd serves it.
    public func getAppleAppSiteAssociation() async throws -> JSONValue {
        try await call(.getAppleAppSiteAssociation)
    }

    /// `/.well-known/assetlinks.json`: the Android apps that may use the passkeys.
    public func getAssetLinks() async throws -> [AssetLink] {
        try await call(.getAssetLinks)
    }

    /// `/.well-known/webauthn`: the related origins.
    public func getRelatedOrigins() async throws -> RelatedOrigins {
        try await call(.getRelatedOrigins)
    }
}
