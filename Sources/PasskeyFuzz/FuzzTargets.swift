import CBORCodec
import COSECrypto
import Foundation
@_spi(Fuzzing) import WebAuthnCore
import WebAuthnModel

/// The fuzz targets. Each takes arbitrary bytes and must only ever throw the typed errors of the code under test
/// (which it swallows); a trap, an address-sanitizer report, a leak or a hang is a finding. A few targets also
/// check properties the code documents (a stable CBOR re-encoding, a base64 round trip, the assertion reader's
/// two paths agreeing) and stop the process with ``violation(_:_:)`` when one does not hold.
enum FuzzTarget: String, CaseIterable, Sendable {
    case cbor
    case authdata
    case coseKey = "cose-key"
    case attestation
    case json
    case base64
    case jws
    case idToken = "idtoken"
    case appStore = "appstore"
    case appAttest = "appattest"
    case sealed

    /// Runs one input.
    /// - Returns: whether the input was accepted (decoded, imported, verified) by the code under test.
    @discardableResult
    func run(_ input: [UInt8]) -> Bool {
        switch self {
        case .cbor: FuzzTarget.cbor(input)
        case .authdata: FuzzTarget.authenticatorData(input)
        case .coseKey: FuzzTarget.coseKey(input)
        case .attestation: FuzzTarget.attestation(input)
        case .json: FuzzTarget.json(input)
        case .base64: FuzzTarget.base64(input)
        case .jws: FuzzTarget.jws(input)
        case .idToken: FuzzTarget.idToken(input)
        case .appStore: FuzzTarget.appStore(input)
        case .appAttest: FuzzTarget.appAttest(input)
        case .sealed: FuzzTarget.sealed(input)
        }
    }

    /// A documented property does not hold: report it and stop, so the fuzzer records the input.
    static func violation(_ target: FuzzTarget, _ message: String) -> Never {
        fatalError("passkeyd-fuzz \(target.rawValue): \(message)")
    }

    // MARK: cbor

    /// Limit sets the service decodes with: default, COSE key, attestation object, authenticator extensions.
    static let cborLimits: [CBORLimits] = [
        .default,
        .coseKey,
        CBORLimits(maxInputBytes: 65536, maxDepth: 8, maxItems: 1024, maxStringBytes: 32768),
        CBORLimits(maxInputBytes: 16384, maxDepth: 8, maxItems: 512, maxStringBytes: 8192),
        CBORLimits(maxDepth: 3, maxItems: 10, maxStringBytes: 8, allowIndefiniteLength: false, requireMinimalIntegers: true),
    ]

    /// `CBORDecoder.decode`/`decodePrefix` under each limit set; what decodes must re-encode stably.
    static func cbor(_ input: [UInt8]) -> Bool {
        var accepted = false
        for limits in cborLimits {
            let value: CBORValue
            do {
                value = try CBORDecoder.decode(input, limits: limits)
            } catch {
                _ = error.code
                continue
            }
            accepted = true
            let encoded = CBOREncoder.encode(value)
            let again: CBORValue
            do {
                again = try CBORDecoder.decode(encoded)
            } catch {
                violation(.cbor, "re-encoding of a decoded item does not decode: \(error)")
            }
            guard CBOREncoder.encode(again) == encoded else {
                violation(.cbor, "unstable re-encoding")
            }
            _ = CBOREncoder.encode(value, indefiniteLengthMaps: true)
        }
        do {
            let (_, length) = try CBORDecoder.decodePrefix(input[...], limits: .default)
            guard length > 0, length <= input.count else { violation(.cbor, "decodePrefix length \(length) of \(input.count)") }
        } catch {
            _ = error.code
        }
        return accepted
    }

    // MARK: authdata

    /// `AuthenticatorData(bytes:)`, then the attested credential's COSE key and the flag checks, as both ceremonies do.
    static func authenticatorData(_ input: [UInt8]) -> Bool {
        let data: AuthenticatorData
        do {
            data = try AuthenticatorData(bytes: input)
        } catch {
            _ = error.code
            return false
        }
        _ = data.rpIDHash
        if let attested = data.attestedCredentialData {
            do {
                let key = try PublicKey(cose: attested.publicKey)
                _ = key.coseKey()
            } catch {
                _ = error.code
            }
            do {
                _ = try PublicKey(coseBytes: attested.publicKeyBytes)
            } catch {
                _ = error.code
            }
        }
        return true
    }

    // MARK: cose-key

    static let message = Array("passkeyd-fuzz".utf8)

    /// `PublicKey(coseBytes:)`; an imported key is exported again, re-imported, and asked to verify a signature.
    static func coseKey(_ input: [UInt8]) -> Bool {
        let key: PublicKey
        do {
            key = try PublicKey(coseBytes: input)
        } catch {
            _ = error.code
            return false
        }
        let exported = CBOREncoder.encode(key.coseKey())
        do {
            let again = try PublicKey(coseBytes: exported)
            guard again.isEqual(to: key) else { violation(.coseKey, "exported COSE key imports as a different key") }
        } catch {
            violation(.coseKey, "exported COSE key does not import: \(error)")
        }
        _ = key.spkiDER()
        _ = key.ecUncompressedPoint
        _ = key.rsaPublicComponents
        // The input's tail doubles as a signature.
        do {
            _ = try key.verify(signature: Array(input.suffix(72)), message: message)
        } catch {
            _ = error.code
        }
        return true
    }

    // MARK: attestation

    /// The relying party of the attestation target: every format accepted, test TPM manufacturers allowed, the
    /// SafetyNet time window and ctsProfileMatch off, and the vectors' roots (when `PASSKEYD_FUZZ_ROOTS` names a
    /// directory of PEM files) trusted for every format, so that valid vectors get as far as chain building.
    static let relyingParty: RelyingParty = {
        var rp = RelyingParty(id: "example.org", name: "fuzz", allowedOrigins: ["https://example.org"])
        var policy = AttestationPolicy.default
        policy.allowTestTPMManufacturersUnsafe = true
        policy.androidKeyAllowSoftwareEnforcedUnsafe = true
        policy.safetyNet.requireCTSProfileMatch = false
        policy.safetyNet.skipTimestampCheckUnsafe = true
        if let directory = ProcessInfo.processInfo.environment["PASSKEYD_FUZZ_ROOTS"],
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        {
            let paths = names.filter { $0.hasSuffix(".pem") }.sorted().map { directory + "/" + $0 }
            if let anchors = try? TrustAnchors.loadPEMFiles(paths) {
                for format in ["packed", "fido-u2f", "android-key", "android-safetynet", "tpm", "apple"] {
                    policy.trustAnchors[format] = anchors
                }
            }
        }
        rp.attestation = policy
        rp.keyPolicy = COSEKeyPolicy.unsafeAllowingSmallRSAKeys(minimumBits: 1024)
        return rp
    }()

    /// A fixed verification time (2024-01-01T00:00:00Z).
    static let verificationTime = Date(timeIntervalSince1970: 1_704_067_200)

    /// Input: clientDataHash (32 bytes) ‖ attestation object. The seeds carry each vector's own hash, so the
    /// statement signatures verify and mutations explore what follows them.
    static func attestation(_ input: [UInt8]) -> Bool {
        guard input.count > 32 else { return false }
        let clientDataHash = Array(input[0..<32])
        do {
            _ = try relyingParty.verifyAttestationStatement(
                Array(input[32...]), clientDataHash: clientDataHash, now: verificationTime)
            return true
        } catch {
            _ = error.code
            return false
        }
    }

    // MARK: json

    /// A collection without contiguous storage, to send a body down the general (non-plain) reading path.
    struct Scattered: Collection {
        let base: [UInt8]
        var startIndex: Int { base.startIndex }
        var endIndex: Int { base.endIndex }
        func index(after index: Int) -> Int { index + 1 }
        subscript(position: Int) -> UInt8 { base[position] }
    }

    /// `JSONReader`, `JSONRawObject`, the response readers, and `CollectedClientData`. Checks what the code
    /// documents: the raw reader never accepts what the strict reader refuses, and the assertion reader's plain
    /// and general paths give the same result or the same error code.
    static func json(_ input: [UInt8]) -> Bool {
        var strict: Result<JSONValue, JSONReader.Failure>
        do {
            strict = .success(try JSONReader.parse(input))
        } catch {
            strict = .failure(error)
        }
        input.withUnsafeBufferPointer { buffer in
            do {
                if let object = try JSONRawObject.parse(buffer) {
                    guard case .success(.object) = strict else {
                        violation(.json, "JSONRawObject accepted an object that JSONReader does not read as one")
                    }
                    _ = object.member("response", in: buffer)
                }
            } catch {
                if case .success = strict {
                    violation(.json, "JSONRawObject refused valid JSON: \(error)")
                }
            }
        }
        if case .success(let value) = strict {
            do {
                _ = try RegistrationResponseJSON(json: value)
            } catch {
                _ = error.reason
            }
        }
        do {
            _ = try RegistrationResponseJSON(jsonBytes: input)
        } catch {
            _ = error.reason
        }
        do {
            _ = try AuthenticationResponseJSON(jsonBytes: input)
        } catch {
            _ = error.reason
        }
        var plain: Result<UnverifiedAuthenticationResponse, WebAuthnError>
        do {
            plain = .success(try UnverifiedAuthenticationResponse(jsonBytes: input))
        } catch {
            plain = .failure(error)
        }
        var general: Result<UnverifiedAuthenticationResponse, WebAuthnError>
        do {
            general = .success(try UnverifiedAuthenticationResponse(jsonBytes: Scattered(base: input)))
        } catch {
            general = .failure(error)
        }
        switch (plain, general) {
        case (.success(let a), .success(let b)):
            guard a.credentialID == b.credentialID, a.userHandle == b.userHandle, a.challenge == b.challenge else {
                violation(.json, "the assertion reader's two paths read different values")
            }
        case (.failure(let a), .failure(let b)):
            guard a.code == b.code else {
                violation(.json, "the assertion reader's two paths fail differently: \(a.debugDescription) / \(b.debugDescription)")
            }
        case (.success, .failure(let error)), (.failure(let error), .success):
            violation(.json, "only one of the assertion reader's paths accepts the body: \(error.debugDescription)")
        }
        do {
            let clientData = try CollectedClientData(json: input)
            _ = clientData.challengeBytes
        } catch {
            _ = error.code
        }
        if case .success = strict { return true }
        return false
    }

    // MARK: base64

    /// `Base64URL.decode` (both alphabets, optional padding), `decodeStrict`, and Foundation's
    /// `Data(base64Encoded:)` (the JWS `x5c` entries). Whatever decodes must encode back to the same bytes.
    static func base64(_ input: [UInt8]) -> Bool {
        let decoded = input.withUnsafeBufferPointer { Base64URL.decode(utf8: $0) }
        if let decoded {
            guard Base64URL.decode(Base64URL.encode(decoded)) == decoded else {
                violation(.base64, "decode(encode(bytes)) != bytes")
            }
        }
        let text = String(decoding: input, as: UTF8.self)
        let viaString = Base64URL.decode(text)
        if String(validating: input, as: UTF8.self) != nil, viaString != decoded {
            violation(.base64, "decode(String) and decode(utf8:) disagree")
        }
        if let strict = Base64URL.decodeStrict(text) {
            guard strict == viaString else { violation(.base64, "decodeStrict accepted what decode reads differently") }
        }
        _ = Data(base64Encoded: text)
        return decoded != nil
    }

    // MARK: jws

    /// `JWS(compact:)`, then its signature check and (with the roots, if any) its chain.
    static func jws(_ input: [UInt8]) -> Bool {
        let jws: JWS
        do {
            jws = try JWS(compact: input)
        } catch {
            _ = error.code
            return false
        }
        _ = jws.leaf
        var verified = false
        do {
            try jws.verifySignature()
            verified = true
        } catch {
            _ = error.code
        }
        if let anchors = relyingParty.attestation.trustAnchors["android-safetynet"] {
            do {
                _ = try jws.verifyChain(anchors: anchors, time: verificationTime)
            } catch {
                _ = error.code
            }
        }
        return verified
    }
}
