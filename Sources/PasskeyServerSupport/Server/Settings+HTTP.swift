// The executable's assembly library re-exports the settings, so `import PasskeyServerSupport` brings `Settings`.
@_exported public import PasskeySettings
public import PasskeyHTTP

/// The settings mapped onto the HTTP layer's types (PasskeySettings knows no HTTP).
extension Settings {
    /// The HTTP layer's settings (keys, limits, the `/.well-known/` documents, self-service rules); the executable
    /// adds the metrics factory and exporter.
    public var http: HTTPConfiguration {
        var http = HTTPConfiguration(
            apiKeys: apiKeys, adminKeys: adminKeys, conformanceBinding: fidoConformance, demoPage: demoPage,
            rateLimits: RateLimits(rateLimits), wellKnown: WellKnownDocuments(association))
        http.selfService = upgrades.selfService
        http.extensionLimits = upgrades.extensionLimits
        return http
    }

    /// The HTTP server's connection limits (`PASSKEYD_HTTP_*`).
    public var httpServerLimits: ServerLimits {
        ServerLimits(idleTimeout: serverLimits.idleTimeout, readTimeout: serverLimits.readTimeout, maxHeaderBytes: serverLimits.maxHeaderBytes)
    }
}

extension RateLimit {
    /// A configured rate limit.
    public init(_ setting: RateLimitSetting) {
        self.init(perSecond: setting.perSecond, burst: setting.burst)
    }
}

extension RateLimits {
    /// The configured rate limits (the HTTP layer's own bound on tracked keys stays as it is).
    public init(_ settings: RateLimitSettings) {
        self.init(
            perClient: settings.perClient.map(RateLimit.init), perAPIKey: settings.perAPIKey.map(RateLimit.init),
            perUser: settings.perUser.map(RateLimit.init), admin: settings.admin.map(RateLimit.init),
            metrics: settings.metrics.map(RateLimit.init), clientAddressHeader: settings.clientAddressHeader,
            trustedProxyHops: settings.trustedProxyHops)
    }
}

extension WellKnownDocuments {
    /// The documents of the configured apps and related origins (checked by PasskeySettings).
    public init(_ association: AssociationSettings) {
        self.init(
            appleAppIDs: association.appleAppIDs,
            androidApps: association.androidApps.map { AndroidApp(packageName: $0.packageName, fingerprints: $0.fingerprints) },
            relatedOrigins: association.relatedOrigins)
    }
}
