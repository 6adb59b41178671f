import AsyncHTTPClient
import IdentityCore
import NIOCore
import PasskeyApp
import PasskeyStore
import ProviderKeys

/// The ID-token use case from ``IdentitySettings``: each provider's key source, the one HTTP client they share
/// (created only when one needs the network; redirects are not followed, since a JWKS URL is exact), and Sign in
/// with Apple's code exchange. Nothing when no provider is configured.
struct IdentityAssembly {
    var service: IdentityService?
    var appleCodeExchange: AppleCodeExchange?
    var httpClient: HTTPClient?

    init(settings: IdentitySettings, store: some ApplicationStore, dependencies: ApplicationDependencies) throws {
        guard !settings.providers.isEmpty else { return }
        let logger = dependencies.logger
        var keyConfiguration = RemoteKeySource.Configuration()
        keyConfiguration.minRefetchInterval = settings.refetchInterval
        var created: HTTPClient?
        func client() -> HTTPClient {
            if let created { return created }
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            created = client
            return client
        }
        do {
            var providers: [IdentityProvider] = []
            for provider in settings.providers {
                let keys: any ProviderKeySource
                if let override = dependencies.providerKeys {
                    keys = try override(provider)
                } else {
                    switch provider.keys {
                    case .url(let url):
                        keys = try RemoteKeySource(url: url, httpClient: client(), configuration: keyConfiguration, logger: logger)
                    case .file(let path):
                        keys = try FileKeySource(path: path, minReloadInterval: settings.refetchInterval, logger: logger)
                    case .discovery(let issuer):
                        keys = DiscoveryKeySource(
                            discovery: try OIDCDiscovery(issuer: issuer), httpClient: client(), configuration: keyConfiguration, logger: logger)
                    }
                }
                providers.append(IdentityProvider(profile: provider.profile, keys: keys))
            }
            // Sign in with Apple's authorization code: redeemed for a refresh token, kept sealed, revoked by the
            // drain when its user or identity is deleted.
            if let apple = settings.appleCodeExchange {
                let endpoint = try AppleTokenClient(
                    tokenURL: apple.tokenURL, revokeURL: apple.revokeURL, httpClient: client(), timeout: 5, logger: logger)
                appleCodeExchange = try AppleCodeExchange(
                    clientSecret: try AppleClientSecret(teamID: apple.teamID, keyID: apple.keyID, privateKey: apple.privateKey),
                    endpoint: endpoint, tokens: store, keyEncryptionKey: apple.keyEncryptionKey)
            }
            service = IdentityService(
                providers: providers, ceremonies: store, identities: store, sessionTimeout: settings.sessionTimeout,
                appleCodeExchange: appleCodeExchange, now: dependencies.now)
            httpClient = created
        } catch {
            try? created?.syncShutdown()
            throw error
        }
    }
}
