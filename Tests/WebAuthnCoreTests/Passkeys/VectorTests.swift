import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel

/// Runs the real-authenticator and spec vectors in `shared/vectors` through the engine.
@Suite("shared/vectors")
struct VectorTests {
    /// Formats this engine does not verify yet: none (issue 4 added tpm, android-key, android-safetynet, apple).
    static let laterFormats: Set<String> = []

    /// Vectors whose source configured its relying party with a documented relaxation; the same relaxation is
    /// applied here (and only here).
    static let sourceRelaxations: [String: (reason: String, apply: @Sendable (inout RelyingParty) -> Void)] = [
        "swa-android-safetynet-cts-not-enforced": (
            "SimpleWebAuthn test with attestationSafetyNetEnforceCTSCheck=false",
            { $0.attestation.safetyNet.requireCTSProfileMatch = false }
        ),
    ]

    /// Relaxations the vectors' sources apply and this run applies too, printed with the counts.
    static let vectorConfiguration = [
        "tpm: allowTestTPMManufacturersUnsafe (the FIDO conformance TPM id:FFFFF1D0 and the W3C/java test TPM id:00000000 are not in the TCG registry; every source vector uses one of them or a registered vendor)",
    ]

    /// The relying party for a vector: as the source configured it, plus ``vectorConfiguration``.
    static func relyingParty(_ json: [String: Any]) throws -> RelyingParty {
        var rp = try Vectors.relyingParty(json)
        rp.attestation.allowTestTPMManufacturersUnsafe = true
        return rp
    }

    struct Outcome: CustomStringConvertible {
        var ran = 0, passed = 0
        var failures: [String] = []
        var skipped: [String] = []
        var description: String { "ran \(ran), passed \(passed), failed \(failures.count), skipped \(skipped.count)" }
    }

    /// Vectors whose chain OpenSSL 3 deliberately refuses: they run under the default policy (any verified
    /// attestation) and must verify with the trust reported as untrusted instead of trusted.
    static let untrustedByDesign: [String: String] = [
        "f2n-android-key":
            "FIDO conformance android-key data: the leaf's authorityKeyIdentifier (52:9A:…) differs from x5c[1]'s subjectKeyIdentifier (A3:D2:…), so OpenSSL does not accept x5c[1] as its issuer even trusted as a partial chain (py_webauthn refuses it the same way); the statement verifies, the chain is reported untrusted and refused under trusted-required",
        "yubico-java-securitykey-registration":
            "first-generation Security Key attestation certificate: its signature BIT STRING has non-zero unused bits, which OpenSSL 3 refuses (\"invalid bit string bits left\"); the attestation signature verifies, the chain is reported untrusted and refused under trusted-required",
    ]

    /// Why a vector is deliberately not run, or nil to run it.
    static func skipReason(_ json: [String: Any]) -> String? {
        let derived = json["derived"] as? [String: Any]
        let authData = derived?["auth_data"] as? [String: Any]
        let keyInfo = (authData?["credential_public_key_info"] ?? derived?["credential_public_key_info"]) as? [String: Any]
        if let alg = keyInfo?["alg_name"] as? String, alg.hasPrefix("ML-DSA") {
            return "\(alg): OpenSSL 3.0 has no ML-DSA"
        }
        if json["kind"] as? String == "registration", let fmt = derived?["fmt"] as? String, laterFormats.contains(fmt) {
            return "fmt \(fmt): android-safetynet is verified on the jws-mds branch of issue 4"
        }
        return nil
    }

    static func check(_ name: String, _ json: [String: Any], _ run: () throws -> Void, into outcome: inout Outcome) {
        if let reason = skipReason(json) {
            outcome.skipped.append("\(name): \(reason)")
            return
        }
        outcome.ran += 1
        let expect = json["expect"] as? String ?? "ok"
        do {
            try run()
            if expect == "ok" { outcome.passed += 1 } else { outcome.failures.append("\(name): accepted, expected \(expect)") }
        } catch let error as WebAuthnError {
            if expect == "ok" {
                outcome.failures.append("\(name): rejected \(String(reflecting: error))")
            } else if let codes = Vectors.expectedCodes[expect], !codes.contains(error.code) {
                outcome.failures.append("\(name): rejected with \(String(reflecting: error)), expected one of \(codes)")
            } else {
                outcome.passed += 1
            }
        } catch {
            if expect == "ok" { outcome.failures.append("\(name): \(error)") } else { outcome.passed += 1 }
        }
    }

    /// Runs one registration vector with `rp` at `now`.
    static func register(_ json: [String: Any], rp: RelyingParty, now: Date) throws -> VerifiedRegistration {
        let response: RegistrationResponseJSON
        do {
            response = try Vectors.decodeCredential(json, as: RegistrationResponseJSON.self)
        } catch {
            throw WebAuthnError(.malformedResponse, "\(error)")
        }
        let handle = Base64URL.decode(json["registered_user_handle"] as? String ?? "") ?? []
        let user = try UserEntity(id: handle.isEmpty ? [1] : handle, name: "user", displayName: "User")
        let state = RegistrationState(
            challenge: Base64URL.decode(json["challenge"] as? String ?? "") ?? [],
            user: user, userVerification: rp.userVerification == .required ? .required : .discouraged,
            algorithms: rp.algorithms.algorithms.map(\.rawValue), expiresAt: now.addingTimeInterval(300))
        return try rp.finishRegistration(response, state: state, now: now)
    }

    /// The formats of issue 4 implemented here.
    static let issue4Formats: Set<String> = ["tpm", "android-key", "apple"]

    @Test("tpm, android-key and apple vectors at today's clock: expired chains are refused as expired, others trusted")
    func todaysClock() throws {
        let now = Date()
        var expired: [String] = [], stillValid: [String] = [], failures: [String] = []
        for (name, json) in try Vectors.load("registration") {
            let derived = json["derived"] as? [String: Any]
            guard let fmt = derived?["fmt"] as? String, Self.issue4Formats.contains(fmt),
                json["expect"] as? String ?? "ok" == "ok", json["trust_anchors"] != nil,
                let expiry = Vectors.chainExpiry(json), Self.untrustedByDesign[name] == nil
            else { continue }
            let rp = try Self.relyingParty(json)
            do {
                let verified = try Self.register(json, rp: rp, now: now)
                if expiry <= now {
                    failures.append("\(name): accepted although a certificate expired at \(expiry)")
                } else if case .trusted = verified.attestationTrust {
                    stillValid.append(name)
                } else {
                    failures.append("\(name): not trusted today: \(verified.attestationTrust)")
                }
            } catch let error as WebAuthnError {
                if expiry <= now, error.code == .attestationCertificateExpired {
                    expired.append(name)
                } else {
                    failures.append("\(name): \(String(reflecting: error)) (chain valid until \(expiry))")
                }
            }
        }
        print("tpm/android-key/apple vectors at today's clock: \(expired.count) refused as expired, \(stillValid.count) still valid and trusted, \(failures.count) wrong")
        for line in failures { print("  FAILED \(line)") }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(expired.count >= 5)
        #expect(stillValid.count >= 3)
    }

    @Test("tpm vectors under the default policy: test TPM manufacturers are refused as unknown, registered vendors pass")
    func tpmManufacturersByDefault() throws {
        var refused: [String] = [], accepted: [String] = [], failures: [String] = []
        for (name, json) in try Vectors.load("registration") {
            guard (json["derived"] as? [String: Any])?["fmt"] as? String == "tpm", json["expect"] as? String ?? "ok" == "ok" else { continue }
            let rp = try Vectors.relyingParty(json)  // without vectorConfiguration
            #expect(rp.attestation.allowTestTPMManufacturersUnsafe == false)
            do {
                _ = try Self.register(json, rp: rp, now: Vectors.verificationTime(json))
                accepted.append(name)
            } catch let error as WebAuthnError where error.code == .tpmManufacturerUnknown {
                refused.append(name)
            } catch {
                failures.append("\(name): \(String(reflecting: error))")
            }
        }
        print("tpm vectors under the default policy: \(accepted.count) accepted (registered TPM vendors), \(refused.count) refused as tpm_manufacturer_unknown (test TPM ids)")
        for name in refused { print("  test TPM manufacturer: \(name)") }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(accepted.count >= 6)
        #expect(refused.count >= 10)
    }

    @Test("registration vectors get their expected verdict")
    func registrations() throws {
        var outcome = Outcome()
        for (name, json) in try Vectors.load("registration") {
            Self.check(name, json, {
                var rp = try Self.relyingParty(json)
                Self.sourceRelaxations[name]?.apply(&rp)
                let untrustedByDesign = Self.untrustedByDesign[name] != nil
                if untrustedByDesign { rp.attestation.requirement = .anyVerified }
                let verified = try Self.register(json, rp: rp, now: Vectors.verificationTime(json))
                if let expected = json["expected"] as? [String: Any] {
                    if let id = expected["credential_id"] as? String { #expect(Base64URL.encode(verified.credentialID) == id, "\(name)") }
                    if let fmt = expected["fmt"] as? String { #expect(verified.attestationFormat == fmt, "\(name)") }
                    if let key = expected["credential_public_key"] as? String { #expect(Base64URL.encode(verified.publicKey) == key, "\(name)") }
                }
                if untrustedByDesign {
                    guard case .untrusted = verified.attestationTrust else {
                        throw WebAuthnError(.attestationUntrusted, "expected an untrusted verdict, got \(verified.attestationTrust)")
                    }
                } else if json["trust_anchors"] != nil {
                    guard case .trusted = verified.attestationTrust else {
                        throw WebAuthnError(.attestationUntrusted, "expected a trusted chain, got \(verified.attestationTrust)")
                    }
                }
            }, into: &outcome)
        }
        print("registration vectors: \(outcome)")
        let byFormat = Dictionary(grouping: try Vectors.load("registration").compactMap { vector -> String? in
            guard Self.skipReason(vector.json) == nil else { return nil }
            return (vector.json["derived"] as? [String: Any])?["fmt"] as? String
        }, by: { $0 }).mapValues(\.count)
        print("  run per fmt: \(byFormat.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        for line in Self.vectorConfiguration { print("  configuration \(line)") }
        for (name, reason) in Self.untrustedByDesign { print("  untrusted by design \(name): \(reason)") }
        for (name, relaxation) in Self.sourceRelaxations { print("  relaxed as in its source \(name): \(relaxation.reason)") }
        for line in outcome.skipped { print("  skipped \(line)") }
        for line in outcome.failures { print("  FAILED \(line)") }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.joined(separator: "\n"))")
        #expect(outcome.ran > 50)
    }

    /// The response and ceremony state of a registration vector, for a relying party `rp`.
    static func registration(
        _ json: [String: Any], rp: RelyingParty, now: Date
    ) throws -> (RegistrationResponseJSON, RegistrationState) {
        let response = try Vectors.decodeCredential(json, as: RegistrationResponseJSON.self)
        let handle = Base64URL.decode(json["registered_user_handle"] as? String ?? "") ?? []
        let user = try UserEntity(id: handle.isEmpty ? [1] : handle, name: "user", displayName: "User")
        let state = RegistrationState(
            challenge: Base64URL.decode(json["challenge"] as? String ?? "") ?? [],
            user: user, userVerification: rp.userVerification == .required ? .required : .discouraged,
            algorithms: rp.algorithms.algorithms.map(\.rawValue), expiresAt: now.addingTimeInterval(300))
        return (response, state)
    }

    @Test("android-safetynet vectors at today's clock: the stale response is refused, and so is the expired chain")
    func safetyNetToday() throws {
        let today = Date()
        var names: [String] = []
        for (name, json) in try Vectors.load("registration") {
            guard (json["derived"] as? [String: Any])?["fmt"] as? String == "android-safetynet",
                json["expect"] as? String == "ok", json["trust_anchors"] != nil
            else { continue }
            var rp = try Vectors.relyingParty(json)
            Self.sourceRelaxations[name]?.apply(&rp)
            rp.attestation.safetyNet.skipTimestampCheckUnsafe = false
            let (response, state) = try Self.registration(json, rp: rp, now: today)
            #expect(throws: WebAuthnError(.safetyNetTimestampInvalid), "\(name)") {
                try rp.finishRegistration(response, state: state, now: today)
            }
            // With the freshness check off, the chain's expiry is what refuses it, under its own code.
            rp.attestation.safetyNet.skipTimestampCheckUnsafe = true
            #expect(throws: WebAuthnError(.attestationCertificateExpired), "\(name)") {
                try rp.finishRegistration(response, state: state, now: today)
            }
            names.append(name)
        }
        print("android-safetynet vectors refused at today's clock (stale timestamp, then expired chain): \(names.count): \(names.sorted())")
        #expect(names.count >= 3)
    }

    @Test("real android-safetynet vectors: another clientDataHash breaks the nonce, a foreign root breaks the chain")
    func safetyNetMutations() throws {
        var checked = 0
        for (name, json) in try Vectors.load("registration") {
            guard (json["derived"] as? [String: Any])?["fmt"] as? String == "android-safetynet",
                json["expect"] as? String == "ok", json["trust_anchors"] != nil
            else { continue }
            var rp = try Vectors.relyingParty(json)
            Self.sourceRelaxations[name]?.apply(&rp)
            let now = Vectors.verificationTime(json)
            var (response, state) = try Self.registration(json, rp: rp, now: now)
            _ = try rp.finishRegistration(response, state: state, now: now)

            // The same clientData with one extra member: challenge and origin still match, its hash does not.
            var clientData = try #require(Base64URL.decode(response.response.clientDataJSON))
            let brace = try #require(clientData.lastIndex(of: UInt8(ascii: "}")))
            clientData.replaceSubrange(brace...brace, with: Array(",\"extra\":1}".utf8))
            var changed = response
            changed.response.clientDataJSON = Base64URL.encode(clientData)
            #expect(throws: WebAuthnError(.safetyNetNonceMismatch), "\(name)") {
                try rp.finishRegistration(changed, state: state, now: now)
            }

            // trusted-required with a root the chain does not lead to.
            rp.attestation.trustAnchors = [
                "android-safetynet": try TrustAnchors.loadPEMFiles([Vectors.root.appendingPathComponent("roots/apple-webauthn-root-ca.pem").path])
            ]
            (response, state) = try Self.registration(json, rp: rp, now: now)
            #expect(throws: WebAuthnError(.attestationUntrusted), "\(name)") {
                try rp.finishRegistration(response, state: state, now: now)
            }
            checked += 1
        }
        #expect(checked >= 3)
    }

    @Test("authentication vectors get their expected verdict")
    func authentications() throws {
        var outcome = Outcome()
        for (name, json) in try Vectors.load("authentication") {
            Self.check(name, json, {
                let rp = try Vectors.relyingParty(json)
                let now = Vectors.verificationTime(json)
                let wire: AuthenticationResponseJSON
                do {
                    wire = try Vectors.decodeCredential(json, as: AuthenticationResponseJSON.self)
                } catch {
                    throw WebAuthnError(.malformedResponse, "\(error)")
                }
                let response = try UnverifiedAuthenticationResponse(wire)
                let registeredHandle = (json["registered_user_handle"] as? String).flatMap(Base64URL.decode)
                let ownerHandle = registeredHandle ?? response.userHandle ?? [0x01]
                let flags = ((json["derived"] as? [String: Any])?["auth_data"] as? [String: Any])?["flags_decoded"] as? [String: Bool]
                let record = CredentialRecord(
                    id: response.credentialID, userHandle: ownerHandle,
                    publicKey: Base64URL.decode(json["credential_public_key"] as? String ?? "") ?? [],
                    signCount: UInt32(json["sign_count"] as? Int ?? 0), backupEligible: flags?["BE"] ?? false,
                    backupState: flags?["BS"] ?? false, uvInitialized: false, transports: [], attestationFormat: "none")
                let state = AuthenticationState(
                    challenge: Base64URL.decode(json["challenge"] as? String ?? "") ?? [],
                    userVerification: rp.userVerification == .required ? .required : .discouraged,
                    allowCredentialIDs: [], userHandle: response.userHandle == nil ? ownerHandle : nil, appID: nil,
                    expiresAt: now.addingTimeInterval(300))
                let verified = try rp.finishAuthentication(response, state: state, credential: record, now: now)
                if let expected = json["expected"] as? [String: Any], let count = expected["new_counter"] as? Int {
                    #expect(verified.signCount == UInt32(count), "\(name)")
                }
            }, into: &outcome)
        }
        print("authentication vectors: \(outcome)")
        for line in outcome.skipped { print("  skipped \(line)") }
        for line in outcome.failures { print("  FAILED \(line)") }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.joined(separator: "\n"))")
        #expect(outcome.ran > 40)
    }
}
