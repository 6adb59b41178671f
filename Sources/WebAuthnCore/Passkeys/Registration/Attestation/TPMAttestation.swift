import CBORCodec
import COSECrypto

/// §8.3 TPM attestation: a TPM-generated TPMS_ATTEST (`certInfo`) certifying the credential key (`pubArea`),
/// signed by an attestation identity key (AIK) whose certificate leads `x5c`.
///
/// Decision on RS1: `alg` may be RS1 (RSASSA-PKCS1-v1_5 with SHA-1) for the certInfo signature whatever the
/// relying party's ``AlgorithmPolicy`` says, because the TPMs in millions of Windows machines sign with it and
/// the forgery cost of a SHA-1 collision against a TPM-generated, magic-prefixed structure is not a practical
/// attack on registration. The credential key's own algorithm is still governed by ``AlgorithmPolicy`` (which
/// excludes RS1 unless built with ``AlgorithmPolicy/unsafeIncludingRS1(_:)``).
enum TPMAttestation: AttestationFormat {
    static let identifier = "tpm"
    /// tcg-kp-AIKCertificate.
    static let aikCertificateEKU = "2.23.133.8.3"
    /// tcg-at-tpmManufacturer, tcg-at-tpmModel, tcg-at-tpmVersion.
    static let manufacturerOID = "2.23.133.2.1", modelOID = "2.23.133.2.2", versionOID = "2.23.133.2.3"

    /// The TCG TPM Vendor ID Registry (version 1.02 plus later assignments), as `id:` + 8 hex digits.
    static let registeredManufacturers: Set<String> = [
        "414D4400",  // AMD
        "414E5400",  // Ant Group
        "41544D4C",  // Atmel
        "4252434D",  // Broadcom
        "4353434F",  // Cisco
        "464C5953",  // Flyslice Technologies
        "474F4F47",  // Google
        "48504500",  // HPE
        "48504900",  // HP Inc.
        "48495349",  // Huawei (HiSilicon)
        "49424D00",  // IBM
        "49465800",  // Infineon
        "494E5443",  // Intel
        "4C454E00",  // Lenovo
        "4D534654",  // Microsoft
        "4E534D20",  // National Semiconductor
        "4E545A00",  // Nationz
        "4E534700",  // NSING
        "4E544300",  // Nuvoton Technology
        "51434F4D",  // Qualcomm
        "524F4343",  // Fuzhou Rockchip
        "5345414C",  // Wisekey (SEAL)
        "53454345",  // SecEdge
        "534D534E",  // Samsung
        "534D5343",  // SMSC
        "534E5300",  // Sinosun
        "53544D20",  // ST Microelectronics
        "54584E00",  // Texas Instruments
        "57454300",  // Winbond
    ]
    /// Test TPM ids, accepted only with ``AttestationPolicy/allowTestTPMManufacturersUnsafe``: the FIDO
    /// conformance tools' and the W3C test vectors' (and java-webauthn-server's test authenticator's).
    static let testManufacturers: Set<String> = ["FFFFF1D0", "00000000"]

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it
        //  to extract the contained fields."
        _ = try AttestationStatementReader.map(input.statement)
        guard let ver = input.statement[text: "ver"]?.textValue else {
            throw WebAuthnError(.malformedAttestationStatement, "tpm ver is missing or not text")
        }
        // "ver: The version of the TPM specification to which the signature conforms." (must be "2.0")
        guard ver == "2.0" else {
            throw WebAuthnError(.tpmVersionUnsupported, "tpm ver \(ver.debugDescription)")
        }
        let alg = try AttestationStatementReader.algorithm(input.statement[text: "alg"])
        let sig = try AttestationStatementReader.signature(input.statement[text: "sig"])
        guard let certInfoBytes = input.statement[text: "certInfo"]?.bytesValue, !certInfoBytes.isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "tpm certInfo is missing or not bytes")
        }
        guard let pubAreaBytes = input.statement[text: "pubArea"]?.bytesValue, !pubAreaBytes.isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "tpm pubArea is missing or not bytes")
        }

        // "Verify that the public key specified by the parameters and unique fields of pubArea is identical to the
        //  credentialPublicKey in the attestedCredentialData in authenticatorData."
        let pubArea: TPMTPublic
        do {
            pubArea = try TPMTPublic(pubAreaBytes)
        } catch {
            throw WebAuthnError(.tpmPubAreaInvalid, error.reason)
        }
        try checkPubAreaMatches(pubArea, key: input.credentialKey)

        // "Concatenate authenticatorData and clientDataHash to form attToBeSigned."
        let attToBeSigned = input.authenticatorData.bytes + input.clientDataHash

        // "Validate that certInfo is valid:"
        let certInfo: TPMSAttest
        do {
            certInfo = try TPMSAttest(certInfoBytes)
        } catch {
            throw WebAuthnError(.tpmCertInfoInvalid, error.reason)
        }
        // "Verify that magic is set to TPM_GENERATED_VALUE."
        guard certInfo.magic == TPMSAttest.generatedValue else {
            throw WebAuthnError(.tpmMagicInvalid, "certInfo.magic 0x\(String(certInfo.magic, radix: 16))")
        }
        // "Verify that type is set to TPM_ST_ATTEST_CERTIFY."
        guard certInfo.type == TPMSAttest.attestCertify else {
            throw WebAuthnError(.tpmAttestTypeInvalid, "certInfo.type 0x\(String(certInfo.type, radix: 16))")
        }
        // "Verify that extraData is set to the hash of attToBeSigned using the hash algorithm employed in "alg"."
        guard let hash = alg.hashAlgorithm else {
            throw WebAuthnError(.attestationAlgorithmMismatch, "tpm alg \(alg) has no hash algorithm")
        }
        guard constantTimeEquals(certInfo.extraData, Digest.hash(hash, attToBeSigned)) else {
            throw WebAuthnError(.tpmExtraDataMismatch, "certInfo.extraData is not \(hash)(attToBeSigned)")
        }
        // "Verify that attested contains a TPMS_CERTIFY_INFO structure ... whose name field contains a valid Name
        //  for pubArea, as computed using the procedure specified in [TPMv2-Part1] section 16 using the nameAlg in
        //  the pubArea." Name = nameAlg (UINT16) ‖ H_nameAlg(pubArea).
        guard let nameHash = TPMAlgorithm.hash(pubArea.nameAlg) else {
            throw WebAuthnError(.tpmPubAreaInvalid, "pubArea.nameAlg 0x\(String(pubArea.nameAlg, radix: 16)) is not a hash")
        }
        let expectedName = [UInt8(pubArea.nameAlg >> 8), UInt8(pubArea.nameAlg & 0xFF)] + Digest.hash(nameHash, pubAreaBytes)
        guard certInfo.attestedName == expectedName else {
            throw WebAuthnError(.tpmAttestedNameMismatch, "certInfo.attested.name is not the Name of pubArea")
        }
        // "Verify that x5c is present."
        guard let certificates = try AttestationStatementReader.certificates(input.statement[text: "x5c"]) else {
            throw WebAuthnError(.malformedAttestationStatement, "tpm x5c is missing")
        }
        // "Note that the remaining fields in the "Standard Attestation Structure" ... i.e., qualifiedSigner,
        //  clockInfo and firmwareVersion are ignored."
        // "Verify the sig is a valid signature over certInfo using the attestation public key in aikCert with the
        //  algorithm specified in alg." (RS1 accepted here: see the type's documentation.)
        let aikCert = certificates[0]
        let aikKey: PublicKey
        do {
            aikKey = try aikCert.publicKey()
        } catch {
            throw WebAuthnError(.attestationCertificateInvalid, "AIK certificate key: \(error)")
        }
        try AttestationStatementReader.verify(
            signature: sig, message: certInfoBytes, key: aikKey, algorithm: alg, what: "tpm certInfo")
        // "Verify that aikCert meets the requirements in § 8.3.1."
        try checkCertificateRequirements(aikCert, policy: input.policy)
        // "If aikCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid) verify that the
        //  value of this extension matches the aaguid in authenticatorData."
        try PackedAttestation.checkAAGUIDExtension(aikCert, aaguid: input.attestedCredential.aaguid)
        // "If successful, return implementation-specific values representing attestation type AttCA and
        //  attestation trust path x5c."
        return AttestationOutcome(type: .attestationCA, certificates: certificates)
    }

    /// pubArea's `parameters` and `unique` against the credential public key.
    static func checkPubAreaMatches(_ pubArea: TPMTPublic, key: PublicKey) throws(WebAuthnError) {
        switch (pubArea.parameters, pubArea.unique) {
        case (.rsa(let keyBits, let exponent), .rsa(let modulus)):
            guard let (keyModulus, keyExponent) = key.rsaPublicComponents else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea is RSA, the credential key is \(key.keyTypeName)")
            }
            // exponent 0 means the default exponent 2^16 + 1.
            let effectiveExponent = exponent == 0 ? 65537 : exponent
            let exponentBytes: [UInt8] = [
                UInt8(effectiveExponent >> 24), UInt8(effectiveExponent >> 16 & 0xFF),
                UInt8(effectiveExponent >> 8 & 0xFF), UInt8(effectiveExponent & 0xFF),
            ]
            guard exponentBytes.strippingLeadingZeros.elementsEqual(keyExponent.strippingLeadingZeros) else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea exponent differs from the credential key's")
            }
            let stripped = keyModulus.strippingLeadingZeros
            let bits = stripped.first.map { (stripped.count - 1) * 8 + (8 - $0.leadingZeroBitCount) } ?? 0
            guard Int(keyBits) == bits else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea keyBits \(keyBits), credential modulus \(bits) bits")
            }
            guard modulus.strippingLeadingZeros.elementsEqual(stripped) else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea unique (modulus) differs from the credential key's")
            }
        case (.ecc(let curveID), .ecc(let x, let y)):
            guard key.keyTypeName.hasPrefix("EC2"), let point = key.ecUncompressedPoint, point.count > 1 else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea is ECC, the credential key is \(key.keyTypeName)")
            }
            let size = (point.count - 1) / 2
            let keyCurve: UInt16? =
                switch size {
                case 32: TPMECCCurve.nistP256
                case 48: TPMECCCurve.nistP384
                case 66: TPMECCCurve.nistP521
                default: nil
                }
            guard keyCurve == curveID else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea curveID 0x\(String(curveID, radix: 16)) differs from the credential key's curve")
            }
            // Coordinates compared as integers: a leading zero octet (as some TPM stacks emit) does not change the point.
            let keyX = Array(point[1...size]), keyY = Array(point[(size + 1)...])
            guard x.count <= size + 1, y.count <= size + 1,
                x.strippingLeadingZeros.elementsEqual(keyX.strippingLeadingZeros),
                y.strippingLeadingZeros.elementsEqual(keyY.strippingLeadingZeros)
            else {
                throw WebAuthnError(.tpmPubAreaKeyMismatch, "pubArea unique (x, y) differs from the credential key's")
            }
        default:
            throw WebAuthnError(.tpmPubAreaInvalid, "pubArea parameters and unique disagree")
        }
    }

    /// §8.3.1 TPM attestation statement certificate requirements.
    static func checkCertificateRequirements(_ certificate: Certificate, policy: AttestationPolicy) throws(WebAuthnError) {
        // "Version MUST be set to 3."
        guard certificate.version == 3 else {
            throw WebAuthnError(.tpmAIKVersionInvalid, "AIK certificate version \(certificate.version)")
        }
        // "Subject field MUST be set to empty."
        guard certificate.subject.isEmpty else {
            throw WebAuthnError(.tpmAIKSubjectNotEmpty, "AIK certificate subject \(certificate.subject)")
        }
        // "The Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile] section 3.2.9."
        // (a directoryName with tcg-at-tpmManufacturer, tcg-at-tpmModel and tcg-at-tpmVersion)
        let attributes = certificate.subjectAlternativeNameDirectoryNames.flatMap(\.attributes)
        func value(_ oid: String) -> String? { attributes.first { $0.oid == oid }?.value }
        guard let manufacturer = value(manufacturerOID), let model = value(modelOID), let version = value(versionOID),
            !model.isEmpty, !version.isEmpty
        else {
            throw WebAuthnError(.tpmAIKSubjectAltNameInvalid, "AIK certificate subjectAltName lacks TPM manufacturer/model/version")
        }
        guard manufacturer.utf8.count == 11, manufacturer.hasPrefix("id:") else {
            throw WebAuthnError(.tpmAIKSubjectAltNameInvalid, "TPM manufacturer \(manufacturer.debugDescription) is not id:XXXXXXXX")
        }
        let vendor = String(manufacturer.dropFirst(3)).uppercased()
        let known = registeredManufacturers.contains(vendor)
            || (policy.allowTestTPMManufacturersUnsafe && testManufacturers.contains(vendor))
        guard known else {
            throw WebAuthnError(.tpmManufacturerUnknown, "TPM manufacturer \(manufacturer) is not in the TCG vendor ID registry")
        }
        // "The Extended Key Usage extension MUST contain the OID 2.23.133.8.3 ("joint-iso-itu-t(2) internationalorganizations(23) 133 tcg-kp(8) tcg-kp-AIKCertificate(3)")."
        guard certificate.extendedKeyUsage.contains(aikCertificateEKU) else {
            throw WebAuthnError(.tpmAIKExtendedKeyUsageMissing, "AIK certificate EKU \(certificate.extendedKeyUsage)")
        }
        // "The Basic Constraints extension MUST have the CA component set to false."
        guard certificate.isCA != true else {
            throw WebAuthnError(.tpmAIKIsCA, "AIK certificate is a CA certificate")
        }
    }
}
