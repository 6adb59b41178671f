import COSECrypto
public import Foundation
import PasskeyMetadata
public import WebAuthnCore

/// The attestation policy from `PASSKEYD_ATTESTATION`, `PASSKEYD_TRUST_ROOTS_<FORMAT>`, `PASSKEYD_MDS_*`,
/// `PASSKEYD_AAGUID_*` and `PASSKEYD_ATTESTATION_CONVEYANCE`; roots and the metadata BLOB are loaded (and the BLOB
/// verified) now, so the service does not start with files that fail.
extension Settings {
    /// Attestation formats that carry certificate chains, hence take trust roots (`fmt` identifiers).
    public static let trustRootFormats = ["packed", "fido-u2f", "tpm", "android-key", "android-safetynet", "apple"]

    /// `PASSKEYD_TRUST_ROOTS_`: the fixed part of ``ConfigVariable/trustRoots``' names.
    public static let trustRootsPrefix = ConfigVariable.trustRoots.patternParts!.prefix

    /// A format's part of `PASSKEYD_TRUST_ROOTS_<FORMAT>`: `fido-u2f` is `FIDO_U2F`.
    static func trustRootsVariablePart(_ format: String) -> String {
        format.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    static func attestation(_ reader: Reader) throws(ConfigurationError) -> (AttestationPolicy, [String], MetadataSource?) {
        var warnings: [String] = []
        let name = try reader.choice(.attestation)
        guard let requirement = AttestationPolicy.Requirement(configurationName: name) else {
            preconditionFailure("PASSKEYD_ATTESTATION declares \(name), which AttestationPolicy.Requirement does not know")
        }
        var anchors: [String: TrustAnchors] = [:]
        let prefix = trustRootsPrefix
        for variable in reader.candidates(of: .trustRoots) {
            guard let path = reader.value(named: variable) else { continue }
            let format = variable.dropFirst(prefix.count).lowercased().replacingOccurrences(of: "_", with: "-")
            guard trustRootFormats.contains(format) else {
                throw ConfigurationError(
                    variable,
                    "no attestation format \"\(format)\" takes trust roots (\(trustRootFormats.map { prefix + trustRootsVariablePart($0) }.joined(separator: ", ")))"
                )
            }
            let certificates = try loadTrustRoots(variable, path: path)
            let now = Date()
            for certificate in certificates {
                if certificate.notAfter <= now {
                    warnings.append("\(variable): \(certificate.subject) expired at \(certificate.notAfter)")
                }
                if certificate.isCA == false {
                    warnings.append("\(variable): \(certificate.subject) is not a CA certificate")
                }
            }
            anchors[format] = TrustAnchors(certificates)
        }
        let (metadata, source) = try Self.metadata(reader)
        if requirement != .anyVerified, anchors.isEmpty, metadata == nil {
            throw ConfigurationError(
                .attestation,
                "\(requirement.configurationName) needs trust roots: set PASSKEYD_MDS_BLOB + PASSKEYD_MDS_ROOT and/or \(ConfigVariable.trustRoots.name) for at least one of \(trustRootFormats.joined(separator: ", "))")
        }
        // Under self-ok and trusted-required a `none` attestation is refused, so ask for one by default; under
        // trusted-chains the configured roots are only used when an attestation is asked for.
        let conveyance = try reader.optionalChoice(.attestationConveyance) ?? (requirement == .anyVerified ? "none" : "direct")
        if requirement == .selfOrTrusted || requirement == .trustedRequired, conveyance == "none" {
            throw ConfigurationError(
                .attestationConveyance, "none contradicts PASSKEYD_ATTESTATION=\(requirement.configurationName) (use direct or enterprise)")
        }
        var policy = AttestationPolicy(requirement: requirement, trustAnchors: anchors, conveyance: conveyance)
        policy.metadata = metadata
        policy.aaguidAllowList = try Self.aaguids(reader, .aaguidAllow).map(Set.init)
        policy.aaguidDenyList = Set(try Self.aaguids(reader, .aaguidDeny) ?? [])
        if let allow = policy.aaguidAllowList {
            guard !allow.isEmpty else { throw ConfigurationError(.aaguidAllow, "an empty allow-list would refuse every registration") }
            if requirement == .anyVerified || requirement == .trustedChains {
                warnings.append("PASSKEYD_AAGUID_ALLOW: with PASSKEYD_ATTESTATION=\(requirement.configurationName) an authenticator can claim any AAGUID; use trusted-required")
            }
            if !allow.isDisjoint(with: policy.aaguidDenyList) {
                warnings.append("PASSKEYD_AAGUID_ALLOW: some AAGUIDs are also denied; the deny-list wins")
            }
        }
        let known: Set<AuthenticatorStatus> = [
            .notFIDOCertified, .fidoCertified, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise,
            .userKeyPhysicalCompromise, .updateAvailable, .revoked, .selfAssertionSubmitted,
        ]
        var refused: Set<AuthenticatorStatus> = []
        for text in reader.listOrDefault(.mdsRefusedStatuses) {
            let status = AuthenticatorStatus(text.uppercased())
            if !known.contains(status) && !status.rawValue.hasPrefix("FIDO_CERTIFIED_") {
                warnings.append("PASSKEYD_MDS_REFUSED_STATUSES: \(status) is not an MDS3 status")
            }
            refused.insert(status)
        }
        policy.refusedStatuses = refused
        if reader.isSet(.mdsRefusedStatuses), metadata == nil {
            warnings.append("PASSKEYD_MDS_REFUSED_STATUSES: no PASSKEYD_MDS_BLOB, so no status is ever known")
        }
        return (policy, warnings, source)
    }

    /// Comma-separated AAGUIDs (UUID text); nil when unset.
    static func aaguids(_ reader: Reader, _ variable: ConfigVariable) throws(ConfigurationError) -> [AAGUID]? {
        guard let texts = reader.list(variable) else { return nil }
        var result: [AAGUID] = []
        for text in texts {
            guard let aaguid = AAGUID(text) else { throw ConfigurationError(variable, "\"\(text)\" is not a UUID") }
            result.append(aaguid)
        }
        return result
    }

    /// `PASSKEYD_MDS_BLOB` (a BLOB downloaded from the FIDO Metadata Service) and `PASSKEYD_MDS_ROOT` (PEM file(s) of
    /// the FIDO root, comma-separated): loaded and verified now; the service does not start with a BLOB that fails.
    static func metadata(_ reader: Reader) throws(ConfigurationError) -> (MetadataIndex?, MetadataSource?) {
        switch (reader.value(.mdsBlob), reader.list(.mdsRoot)) {
        case (nil, nil): return (nil, nil)
        case (nil, _?): throw ConfigurationError(.mdsRoot, "set PASSKEYD_MDS_BLOB too (the BLOB this root verifies)")
        case (_?, nil): throw ConfigurationError(.mdsBlob, "set PASSKEYD_MDS_ROOT too (the FIDO root the BLOB must chain to)")
        case (let blob?, let roots?):
            let source = MetadataSource(blobPath: blob, rootPEMPaths: roots)
            do {
                return (try MetadataLoader.load(blobPath: blob, rootPEMPaths: roots), source)
            } catch {
                throw ConfigurationError(.mdsBlob, "\(blob) does not verify: \(Self.metadataFailure(error))")
            }
        }
    }

    /// A PEM file, or a directory whose `*.pem`, `*.crt` and `*.cer` files (PEM) are read in name order.
    static func loadTrustRoots(_ variable: String, path: String) throws(ConfigurationError) -> [Certificate] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError(variable, "no file or directory at \(path)")
        }
        var files = [path]
        if isDirectory.boolValue {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ConfigurationError(variable, "cannot list \(path)")
            }
            let directory = URL(fileURLWithPath: path, isDirectory: true)
            files = names.filter { name in
                !name.hasPrefix(".") && ["pem", "crt", "cer"].contains(URL(fileURLWithPath: name).pathExtension.lowercased())
            }.sorted().map { directory.appendingPathComponent($0).path }
            guard !files.isEmpty else { throw ConfigurationError(variable, "\(path) holds no .pem, .crt or .cer file") }
        }
        do {
            let certificates = try TrustAnchors.loadPEMFiles(files).certificates
            guard !certificates.isEmpty else { throw ConfigurationError(variable, "\(path) holds no certificate") }
            return certificates
        } catch let error as ConfigurationError {
            throw error
        } catch let error as CertificateError {
            throw ConfigurationError(variable, "not PEM certificates: \(error.reason)")
        } catch {
            throw ConfigurationError(variable, "cannot read \(path)")
        }
    }
}
