import COSECrypto
import Foundation
import WebAuthnCore
import WebAuthnModel

/// Locates `shared/vectors` beside the repository (`../shared/vectors`), or `PASSKEYD_VECTORS`.
enum Vectors {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PASSKEYD_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        // Tests/WebAuthnCoreTests/Passkeys/VectorSupport.swift → repository root → ../shared/vectors
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    static func load(_ kind: String) throws -> [(name: String, json: [String: Any])] {
        let directory = root.appendingPathComponent(kind)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try files.map { file in
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw VectorError.unreadable(file)
            }
            return (String(file.dropLast(5)), json)
        }
    }

    enum VectorError: Error { case unreadable(String), missing(String) }

    /// The vector's `verification_time`; for vectors without one, the time inside every x5c certificate's
    /// validity at which the collector built the chain (`derived.x5c_chains_to[].at` "inside x5c validity (…)");
    /// otherwise now.
    static func verificationTime(_ json: [String: Any]) -> Date {
        guard let time = json["verification_time"] as? [String: Any] else {
            return chainBuildTime(json) ?? Date()
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        for key in ["source_fakes_clock", "suggested_check_time"] {
            if let text = time[key] as? String, let date = iso.date(from: text) ?? plain.date(from: text) { return date }
        }
        if let text = time["source_sets_x509_time"] as? String {
            // "datetime(2026,4,26,0,0,0)"
            let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            if numbers.count >= 3 {
                var components = DateComponents()
                components.year = numbers[0]
                components.month = numbers[1]
                components.day = numbers[2]
                components.timeZone = TimeZone(identifier: "UTC")
                if let date = Calendar(identifier: .gregorian).date(from: components) { return date }
            }
        }
        return Date()
    }

    /// `derived.x5c_chains_to[].at` when it reads "inside x5c validity (<ISO 8601>)".
    static func chainBuildTime(_ json: [String: Any]) -> Date? {
        let chains = (json["derived"] as? [String: Any])?["x5c_chains_to"] as? [[String: Any]] ?? []
        for chain in chains {
            guard let at = chain["at"] as? String, at.hasPrefix("inside x5c validity ("), at.hasSuffix(")") else { continue }
            let text = String(at.dropFirst("inside x5c validity (".count).dropLast())
            if let date = ISO8601DateFormatter().date(from: text) { return date }
        }
        return nil
    }

    /// The latest time every x5c certificate is still valid (min notAfter), from `derived.x5c_validity`.
    static func chainExpiry(_ json: [String: Any]) -> Date? {
        let validity = (json["derived"] as? [String: Any])?["x5c_validity"] as? [[String: Any]] ?? []
        let ends = validity.compactMap { ($0["not_after"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } }
        return ends.min()
    }

    static func origins(_ json: [String: Any]) -> Set<String> {
        if let list = json["origin"] as? [String] { return Set(list) }
        if let one = json["origin"] as? String { return [one] }
        return []
    }

    /// A relying party configured the way the vector's source configured its RP.
    static func relyingParty(_ json: [String: Any]) throws -> RelyingParty {
        var rp = RelyingParty(id: json["rp_id"] as? String ?? "", name: "vectors", allowedOrigins: origins(json))
        rp.userVerification = (json["require_user_verification"] as? Bool ?? false) ? .required : .discouragedUnsafe
        rp.allowMissingUserPresenceUnsafe = (json["require_user_presence"] as? Bool) == false
        if json["allow_cross_origin"] as? Bool == true {
            rp.crossOrigin = .allow(topOrigins: Set(json["top_origins"] as? [String] ?? []))
        }
        rp.algorithms = .unsafeIncludingRS1(AlgorithmPolicy.allModern.algorithms + [.rs1])
        if let anchors = json["trust_anchors"] as? [String: [String]] {
            var byFormat: [String: TrustAnchors] = [:]
            var partial = false
            for (format, entries) in anchors {
                var paths: [String] = []
                for entry in entries {
                    if entry.hasPrefix("x5c:last") { partial = true; continue }
                    let path = String(entry.split(separator: " ").first ?? "")
                    paths.append(root.appendingPathComponent(path).path)
                }
                byFormat[format] = try TrustAnchors.loadPEMFiles(paths)
            }
            rp.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: byFormat)
            rp.attestation.trustLastCertificateUnsafe = partial
        }
        if (json["verification_time"] as? [String: Any])?["source_disables_safetynet_timestamp_check"] as? Bool == true {
            rp.attestation.safetyNet.skipTimestampCheckUnsafe = true
        }
        return rp
    }

    static func decodeCredential<T: Decodable>(_ json: [String: Any], as type: T.Type) throws -> T {
        guard let credential = json["credential"] else { throw VectorError.missing("credential") }
        return try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: credential))
    }

    /// Expected failure reasons in the vectors, mapped to the code this engine must give.
    static let expectedCodes: [String: Set<WebAuthnError.Code>] = [
        "challenge mismatch": [.challengeMismatch],
        "origin mismatch": [.originNotAllowed],
        "rpIdHash mismatch": [.rpIDHashMismatch],
        "bad signature": [.signatureInvalid],
        "user verification required but UV flag not set": [.userNotVerified],
        "user not present": [.userNotPresent],
        "sign counter did not increase (possible cloned authenticator)": [.signCountRegressed],
        "crossOrigin true but RP does not allow cross-origin": [.crossOriginNotAllowed],
        "rawId differs from the credential ID in authData": [.credentialIDMismatch],
        "stored credential public key is not a valid COSE key": [.storedPublicKeyInvalid],
        "malformed authenticatorData": [.malformedAuthenticatorData],
        "malformed clientDataJSON": [.malformedClientData, .malformedResponse],
        "malformed attestationObject": [.malformedAttestationObject, .malformedResponse, .malformedAuthenticatorData],
        "unexpected tokenBinding status": [.tokenBindingInvalid],
        "attestation chain does not verify to the configured trust anchor": [.attestationUntrusted],
        "unsupported or malformed attestation fmt": [.unsupportedAttestationFormat, .malformedAttestationObject],
        "id-fido-gen-ce-aaguid extension does not match authData AAGUID": [.attestationAAGUIDMismatch],
        "SafetyNet ctsProfileMatch is false": [.safetyNetCTSProfileMismatch],
        "SafetyNet leaf certificate hostname is not attest.android.com": [.safetyNetHostnameMismatch],
        "android-key authorization lists empty (fails §8.4 origin/purpose checks)": [.androidKeyOriginInvalid],
    ]
}
