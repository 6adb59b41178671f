import CBORCodec
import COSECrypto
import Foundation

/// Everything an attestation statement format's verification procedure receives (§6.5.2 "attStmt, authenticatorData, clientDataHash").
struct AttestationInput {
    let statement: CBORValue
    let authenticatorData: AuthenticatorData
    let attestedCredential: AttestedCredentialData
    let clientDataHash: [UInt8]
    /// The credential public key, already validated.
    let credentialKey: PublicKey
    /// The relying party's attestation policy (format-specific options such as unsafe relaxations live here).
    let policy: AttestationPolicy
    /// The verification time (certificate validity, timestamps inside statements).
    let time: Date
}

/// What a format's verification procedure returns: the attestation type and its trust path.
struct AttestationOutcome {
    let type: AttestationType
    /// x5c, leaf first (empty for none/self).
    let certificates: [Certificate]
}

/// One attestation statement format (WebAuthn §8). Each lives in its own file and checks its spec steps in order.
protocol AttestationFormat {
    /// The `fmt` identifier (matched case-sensitively).
    static var identifier: String { get }
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome
}

enum AttestationFormats {
    /// Formats this engine verifies, by identifier.
    static let all: [String: any AttestationFormat.Type] = [
        NoneAttestation.identifier: NoneAttestation.self,
        PackedAttestation.identifier: PackedAttestation.self,
        FIDOU2FAttestation.identifier: FIDOU2FAttestation.self,
        AndroidSafetyNetAttestation.identifier: AndroidSafetyNetAttestation.self,
        // tpm / android-key / apple (issue 4)
        TPMAttestation.identifier: TPMAttestation.self,
        AndroidKeyAttestation.identifier: AndroidKeyAttestation.self,
        AppleAttestation.identifier: AppleAttestation.self,
    ]
}

/// Helpers shared by formats that carry certificates.
enum AttestationStatementReader {
    /// The statement's entries, requiring a map.
    static func map(_ statement: CBORValue) throws(WebAuthnError) -> [CBORMapEntry] {
        guard let entries = statement.mapEntries else {
            throw WebAuthnError(.malformedAttestationStatement, "attStmt is not a map")
        }
        return entries
    }

    /// `x5c`: a non-empty array of DER certificates, parsed.
    static func certificates(_ value: CBORValue?) throws(WebAuthnError) -> [Certificate]? {
        guard let value else { return nil }
        guard let array = value.arrayValue, !array.isEmpty, array.count <= 8 else {
            throw WebAuthnError(.malformedAttestationStatement, "x5c must be a non-empty array of at most 8 certificates")
        }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(array.count)
        for item in array {
            guard let der = item.bytesValue, !der.isEmpty else {
                throw WebAuthnError(.malformedAttestationStatement, "x5c entry is not a byte string")
            }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                throw WebAuthnError(.attestationCertificateInvalid, "x5c certificate does not parse: \(error)")
            }
        }
        return certificates
    }

    /// `sig`: a non-empty byte string.
    static func signature(_ value: CBORValue?) throws(WebAuthnError) -> [UInt8] {
        guard let sig = value?.bytesValue, !sig.isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "sig is missing or not a non-empty byte string")
        }
        return sig
    }

    /// `alg`: a COSE algorithm identifier (an integer).
    static func algorithm(_ value: CBORValue?) throws(WebAuthnError) -> COSEAlgorithm {
        guard let raw = value?.intValue, let int = Int(exactly: raw) else {
            throw WebAuthnError(.malformedAttestationStatement, "alg is missing or not an integer")
        }
        return COSEAlgorithm(rawValue: int)
    }

    /// Verifies `signature` over `message` with `key`, mapping algorithm/key mismatches to their own code.
    static func verify(
        signature: [UInt8], message: [UInt8], key: PublicKey, algorithm: COSEAlgorithm, what: String
    ) throws(WebAuthnError) {
        let valid: Bool
        do {
            valid = try key.verify(signature: signature, message: message, algorithm: algorithm)
        } catch {
            throw WebAuthnError(.attestationAlgorithmMismatch, "\(what): alg \(algorithm) cannot be used with this key: \(error)")
        }
        guard valid else {
            throw WebAuthnError(.attestationSignatureInvalid, "\(what): signature does not verify")
        }
    }
}
