internal import COpenSSL

// The only place where the X.509 code reaches into the key types owned by the keys/signatures half of
// COSECrypto. Each closure borrows the key's EVP_PKEY for the duration of the call; the key object stays alive
// (and keeps ownership) throughout.

extension PublicKey {
    /// Borrows the EVP_PKEY (not owned by the closure; do not free or store it).
    internal func withX509EVPPKey<R>(
        _ body: (OpaquePointer) throws(CertificateError) -> R
    ) throws(CertificateError) -> R {
        try withExtendedLifetime(self) { () throws(CertificateError) -> R in try unsafe body(pkey) }
    }
}

extension PrivateKey {
    /// Borrows the EVP_PKEY (not owned by the closure; do not free or store it).
    internal func withX509EVPPKey<R>(
        _ body: (OpaquePointer) throws(CertificateError) -> R
    ) throws(CertificateError) -> R {
        try withExtendedLifetime(self) { () throws(CertificateError) -> R in try unsafe body(pkey) }
    }
}
