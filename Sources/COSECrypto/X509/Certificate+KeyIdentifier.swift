internal import COpenSSL

extension Certificate {
    /// The contents of the subjectPublicKey BIT STRING (for an EC key, the uncompressed point `04 ‖ x ‖ y`),
    /// read with `X509_get0_pubkey_bitstr`.
    public var subjectPublicKeyBits: [UInt8] {
        guard let bits = unsafe X509_get0_pubkey_bitstr(x509) else { return [] }
        let length = Int(unsafe ASN1_STRING_length(bits))
        guard length > 0, let data = unsafe ASN1_STRING_get0_data(bits) else { return [] }
        let copy = unsafe Array(UnsafeBufferPointer(start: data, count: length))
        return withExtendedLifetime(self) { copy }
    }

    /// The FIDO attestation certificate key identifier: lowercase hex of SHA-1 over ``subjectPublicKeyBits``
    /// (RFC 5280 §4.2.1.2 method 1), as FIDO Metadata lists it in `attestationCertificateKeyIdentifiers`.
    public var attestationKeyIdentifier: String {
        Digest.hash(.sha1, subjectPublicKeyBits).map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]], as: UTF8.self)
        }.joined()
    }
}
