import COSECrypto
import Foundation

/// What steps 23–24 established, beyond the format's own outcome.
struct AttestationAssessment {
    let trust: AttestationTrust
    let anchorSource: TrustAnchorSource?
    let metadata: MetadataEntry?
}

/// §7.1 steps 23–24: decide whether the attestation is acceptable under the policy.
enum AttestationTrustAssessment {
    static func assess(
        _ outcome: AttestationOutcome, format: String, aaguid aaguidBytes: [UInt8], policy: AttestationPolicy, time: Date
    ) throws(WebAuthnError) -> AttestationAssessment {
        let aaguid = AAGUID(bytes: aaguidBytes)

        // The relying party's own AAGUID lists come first: a denied model is refused whatever it proves.
        if let aaguid, policy.aaguidDenyList.contains(aaguid) {
            throw WebAuthnError(.aaguidDenied, "AAGUID \(aaguid) is on the deny-list")
        }
        if let allowed = policy.aaguidAllowList, !(aaguid.map(allowed.contains) ?? false) {
            throw WebAuthnError(.aaguidNotAllowed, "AAGUID \(aaguid?.description ?? "?") is not on the allow-list")
        }

        // Step 23: "Obtain a list of acceptable trust anchors (i.e. attestation root certificates) for that
        // attestation type and attestation statement format fmt, from a trusted source or from policy. For
        // example, the FIDO Metadata Service provides one way to obtain such information, using the aaguid."
        let entry = policy.metadata?.entry(aaguid: aaguid, leaf: outcome.certificates.first)
        if let entry, let status = entry.firstStatus(in: policy.refusedStatuses) {
            throw WebAuthnError(.authenticatorStatusRefused, "metadata status \(status) for \(aaguid?.description ?? "U2F key")")
        }

        // Step 24: "Assess the attestation trustworthiness using the outputs of the verification procedure".
        func result(_ trust: AttestationTrust, _ source: TrustAnchorSource? = nil) -> AttestationAssessment {
            AttestationAssessment(trust: trust, anchorSource: source, metadata: entry)
        }
        switch outcome.type {
        case .none:
            // "If no attestation was provided, verify that None attestation is acceptable under Relying Party policy."
            if policy.requirement.refusesNone {
                throw WebAuthnError(.attestationNotAllowed, "no attestation, policy \(policy.requirement.configurationName)")
            }
            return result(.none)
        case .self:
            // "If self attestation was used, verify that self attestation is acceptable under Relying Party policy."
            if policy.requirement == .trustedRequired {
                throw WebAuthnError(.attestationNotAllowed, "self attestation, policy requires a trusted chain")
            }
            return result(.selfAttested)
        case .basic, .attestationCA, .anonymizationCA:
            break
        }
        // "Otherwise, use the X.509 certificates returned as the attestation trust path from the verification
        // procedure to verify that the attestation public key either correctly chains up to an acceptable root
        // certificate, or is itself an acceptable certificate."
        let mustTrust = policy.requirement != .anyVerified
        guard let leaf = outcome.certificates.first else {
            throw WebAuthnError(.attestationUntrusted, "attestation type \(outcome.type) without certificates")
        }
        let configured = policy.trustAnchors[format]?.certificates ?? []
        let fromMetadata = entry?.attestationRootCertificates ?? []
        var anchors = configured + fromMetadata
        var intermediates = Array(outcome.certificates.dropFirst())
        if policy.trustLastCertificateUnsafe, outcome.certificates.count > 1, let last = outcome.certificates.last {
            anchors.append(last)
            intermediates.removeLast()
        }
        guard !anchors.isEmpty else {
            if mustTrust { throw WebAuthnError(.attestationUntrusted, "no trust anchors configured for \(format)") }
            return result(.untrusted(reason: "no trust anchors configured for \(format)"))
        }
        do {
            var options = ChainVerificationOptions(time: time, allowPartialChain: policy.trustLastCertificateUnsafe)
            options.maxDepth = 8
            let chain = try ChainVerifier.verify(
                leaf: leaf, intermediates: intermediates, anchors: TrustAnchors(anchors), options: options)
            let anchorCertificate = chain.last
            let anchor = anchorCertificate.map { $0.subject.values("CN").first ?? "" } ?? ""
            var source = TrustAnchorSource.configured
            if let anchorCertificate, !configured.contains(anchorCertificate), fromMetadata.contains(anchorCertificate) {
                source = .metadata
            }
            return result(.trusted(anchorSubject: anchor), source)
        } catch {
            guard mustTrust else { return result(.untrusted(reason: "\(error)")) }
            switch error.code {
            case .chainExpired, .chainNotYetValid:
                throw WebAuthnError(.attestationCertificateExpired, "attestation chain: \(error)")
            default:
                throw WebAuthnError(.attestationUntrusted, "attestation chain: \(error)")
            }
        }
    }
}
