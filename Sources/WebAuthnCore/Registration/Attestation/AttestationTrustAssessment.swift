import COSECrypto
import Foundation

/// §7.1 steps 23–24: decide whether the attestation is acceptable under the policy.
enum AttestationTrustAssessment {
    static func assess(
        _ outcome: AttestationOutcome, format: String, policy: AttestationPolicy, time: Date
    ) throws(WebAuthnError) -> AttestationTrust {
        let trustedRequired = policy.requirement == .trustedRequired
        switch outcome.type {
        case .none:
            if trustedRequired { throw WebAuthnError(.attestationNotAllowed, "no attestation, policy requires a trusted chain") }
            return .none
        case .self:
            if trustedRequired { throw WebAuthnError(.attestationNotAllowed, "self attestation, policy requires a trusted chain") }
            return .selfAttested
        case .basic, .attestationCA, .anonymizationCA:
            break
        }
        guard let leaf = outcome.certificates.first else {
            throw WebAuthnError(.attestationUntrusted, "attestation type \(outcome.type) without certificates")
        }
        var anchors = policy.trustAnchors[format]?.certificates ?? []
        var intermediates = Array(outcome.certificates.dropFirst())
        if policy.trustLastCertificateUnsafe, outcome.certificates.count > 1, let last = outcome.certificates.last {
            anchors.append(last)
            intermediates.removeLast()
        }
        guard !anchors.isEmpty else {
            if trustedRequired { throw WebAuthnError(.attestationUntrusted, "no trust anchors configured for \(format)") }
            return .untrusted(reason: "no trust anchors configured for \(format)")
        }
        do {
            var options = ChainVerificationOptions(time: time, allowPartialChain: policy.trustLastCertificateUnsafe)
            options.maxDepth = 8
            let chain = try ChainVerifier.verify(
                leaf: leaf, intermediates: intermediates, anchors: TrustAnchors(anchors), options: options)
            let anchor = chain.last.map { $0.subject.values("CN").first ?? "" } ?? ""
            return .trusted(anchorSubject: anchor)
        } catch {
            guard trustedRequired else { return .untrusted(reason: "\(error)") }
            switch error.code {
            case .chainExpired, .chainNotYetValid:
                throw WebAuthnError(.attestationCertificateExpired, "attestation chain: \(error)")
            default:
                throw WebAuthnError(.attestationUntrusted, "attestation chain: \(error)")
            }
        }
    }
}
