import COSECrypto
public import Foundation
public import WebAuthnCore

/// The relying party from `PASSKEYD_RP_ID`, `PASSKEYD_RP_NAME`, `PASSKEYD_ORIGINS`, `PASSKEYD_USER_VERIFICATION`,
/// `PASSKEYD_CHALLENGE_TTL`, `PASSKEYD_ALGORITHMS` and `PASSKEYD_UNSAFE_POLICIES`, with its apps and related origins
/// (AssociationSettings.swift) and its attestation policy (AttestationSettings.swift).
extension Settings {
    /// `PASSKEYD_UNSAFE_POLICIES`: the named departures from W3C verification that the FIDO conformance tools
    /// expect, with what each one accepts. Never for production.
    public static let unsafePolicies: [(name: String, effect: String)] = [
        ("allow-missing-user-presence", "ceremonies with the UP flag clear are accepted (W3C §7.1 step 14, §7.2 step 16 refuse them)"),
        ("trust-last-certificate", "the last x5c certificate is trusted as an anchor (anyone can mint a chain that passes)"),
        ("test-tpm-manufacturers", "tpm AIK certificates with test manufacturer ids (id:FFFFF1D0, id:00000000) are accepted"),
        ("android-key-software-enforced", "android-key origin/purpose may be software-enforced (keys outside a TEE)"),
    ]

    /// The names `PASSKEYD_ALGORITHMS` accepts besides `RS1-unsafe`: every supported COSE algorithm but RS1.
    static let algorithmNames = COSEAlgorithm.allSupported.filter { $0 != .rs1 }.map(\.name)

    /// The relying party, its apps and related origins, and where its metadata comes from.
    static func relyingParty(
        _ reader: Reader, warnings: inout [String]
    ) throws(ConfigurationError) -> (relyingParty: RelyingParty, association: AssociationSettings, metadataSource: MetadataSource?) {
        let rpID = reader.text(.rpID)
        try validateRPID(rpID)
        let rpName = reader.text(.rpName)
        guard rpName.utf8.count <= 256, !rpName.contains(where: { $0.isNewline }) else {
            throw ConfigurationError(.rpName, "at most 256 bytes on one line")
        }
        let origins = reader.listOrDefault(.origins)
        guard !origins.isEmpty else { throw ConfigurationError(.origins, "at least one origin is required") }
        for origin in origins { warnings += try validateOrigin(origin, rpID: rpID) }
        let association = try AssociationSettings.load(reader, rpID: rpID, origins: origins, warnings: &warnings)

        var rp = RelyingParty(id: rpID, name: rpName, allowedOrigins: Set(origins + association.nativeOrigins))
        switch try reader.choice(.userVerification) {
        case "required": rp.userVerification = .required
        case "preferred-unsafe": rp.userVerification = .preferredUnsafe
        default: rp.userVerification = .discouragedUnsafe
        }
        rp.challengeTimeout = .seconds(try reader.integer(.challengeTTL))
        rp.algorithms = try algorithms(reader.listOrDefault(.algorithms))
        let (attestation, attestationWarnings, metadataSource) = try Self.attestation(reader)
        rp.attestation = attestation
        warnings += attestationWarnings
        for name in reader.list(.unsafePolicies) ?? [] {
            guard let policy = unsafePolicies.first(where: { $0.name == name.lowercased() }) else {
                throw ConfigurationError(
                    .unsafePolicies, "unknown policy \"\(name)\" (\(unsafePolicies.map(\.name).joined(separator: ", ")))")
            }
            switch policy.name {
            case "allow-missing-user-presence": rp.allowMissingUserPresenceUnsafe = true
            case "trust-last-certificate": rp.attestation.trustLastCertificateUnsafe = true
            case "test-tpm-manufacturers": rp.attestation.allowTestTPMManufacturersUnsafe = true
            default: rp.attestation.androidKeyAllowSoftwareEnforcedUnsafe = true
            }
            warnings.append("PASSKEYD_UNSAFE_POLICIES: \(policy.name) is on: \(policy.effect); for conformance testing only")
        }
        return (rp, association, metadataSource)
    }

    /// A registrable domain (or `localhost`): lower-case labels, no scheme, port or path.
    static func validateRPID(_ id: String) throws(ConfigurationError) {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        let valid = id.utf8.count <= 253 && labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
        }
        guard valid else {
            throw ConfigurationError(.rpID, "\"\(id)\" is not a lower-case domain name (e.g. example.com; no scheme, port or path)")
        }
    }

    /// Web origins must be exactly `scheme://host[:port]`; native-app origins (`android:apk-key-hash:…`,
    /// `ios:bundle-id:…`, …) are opaque strings. Returns warnings.
    static func validateOrigin(_ origin: String, rpID: String) throws(ConfigurationError) -> [String] {
        guard !origin.contains(where: { $0.isWhitespace || $0.isNewline }), origin.contains(":") else {
            throw ConfigurationError(.origins, "\"\(origin)\" is not an origin (https://host[:port] or a native-app origin)")
        }
        let lowered = origin.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { return [] }
        guard origin == lowered, let components = URLComponents(string: origin), let scheme = components.scheme,
            let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil,
            components.fragment == nil, components.user == nil, components.password == nil, !origin.hasSuffix(":")
        else {
            throw ConfigurationError(.origins, "\"\(origin)\" must be exactly scheme://host[:port] in lower case (no path, not even a trailing /)")
        }
        if let port = components.port, port == (scheme == "https" ? 443 : 80) {
            throw ConfigurationError(.origins, "\"\(origin)\": omit the default port (browsers send the origin without it)")
        }
        var warnings: [String] = []
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bareHost != rpID, !bareHost.hasSuffix("." + rpID) {
            warnings.append(
                "PASSKEYD_ORIGINS: \(origin) is not \(rpID) or a subdomain of it: browsers accept it only as a related origin, listed at https://\(rpID)/.well-known/webauthn (passkeyd serves it; that path of the RP's domain must reach passkeyd)")
        }
        if scheme == "http", !["localhost", "127.0.0.1", "::1"].contains(bareHost), !bareHost.hasSuffix(".localhost") {
            warnings.append("PASSKEYD_ORIGINS: \(origin) is plain http; browsers allow WebAuthn over http only on localhost")
        }
        return warnings
    }

    /// COSE algorithm names, most preferred first. RS1 only as `RS1-unsafe`.
    static func algorithms(_ names: [String]) throws(ConfigurationError) -> AlgorithmPolicy {
        guard !names.isEmpty else { throw ConfigurationError(.algorithms, "at least one algorithm is required") }
        let known = COSEAlgorithm.allSupported.filter { $0 != .rs1 }
        var chosen: [COSEAlgorithm] = []
        var includesRS1 = false
        for name in names {
            let algorithm: COSEAlgorithm
            if name.lowercased() == "rs1-unsafe" {
                algorithm = .rs1
                includesRS1 = true
            } else if name.lowercased() == "rs1" {
                throw ConfigurationError(.algorithms, "RS1 (SHA-1) signatures are forgeable in principle; write RS1-unsafe to accept them anyway")
            } else if let match = known.first(where: { $0.name.lowercased() == name.lowercased() }) {
                algorithm = match
            } else {
                throw ConfigurationError(.algorithms, "unknown algorithm \"\(name)\" (one of \(algorithmNames.joined(separator: ", ")), RS1-unsafe)")
            }
            guard !chosen.contains(algorithm) else { throw ConfigurationError(.algorithms, "\(algorithm.name) is listed twice") }
            chosen.append(algorithm)
        }
        return includesRS1 ? .unsafeIncludingRS1(chosen) : AlgorithmPolicy(chosen)
    }
}
