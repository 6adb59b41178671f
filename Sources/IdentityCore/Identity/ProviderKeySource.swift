public import JOSE

/// Where a provider's signing keys come from (a JWKS URL, a discovery document, a file). Implementations live in the
/// ProviderKeys module, the only code that touches the network; the core and the HTTP layer know only this protocol
/// and get keys as a value.
public protocol ProviderKeySource: Sendable {
    /// The provider's current key set, for a token whose header names `keyID` (`nil`: no `kid`).
    ///
    /// A cached set is returned while it is fresh. When `keyID` is not in it, the source refetches, at most once per
    /// its minimum refetch interval (so a flood of made-up `kid`s cannot hammer the provider), and returns whatever it
    /// then has; the verifier decides that the key is unknown.
    /// - Throws: ``ProviderKeyError`` when no key set can be had at all (never fetched successfully, or too stale).
    func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet
}

/// No key set is available for a provider: the sign-in cannot be verified (503 `provider_unavailable`), never
/// accepted.
public struct ProviderKeyError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "provider keys unavailable: \(reason)" }
}

/// A key source over a fixed set (tests, and configurations that pin keys in code).
public struct StaticKeySource: ProviderKeySource {
    public let set: JWKSet
    public init(_ set: JWKSet) { self.set = set }
    public func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet { set }
}
