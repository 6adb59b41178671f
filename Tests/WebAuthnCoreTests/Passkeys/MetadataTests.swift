import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// FIDO Metadata Service v3 BLOB verification and its use in §7.1 steps 23–24.
@Suite("FIDO metadata (MDS3)")
struct MetadataTests {
    static let mds: TestMetadataService = {
        do { return try TestMetadataService() } catch { fatalError("\(error)") }
    }()
    static let softAAGUID = AAGUID(bytes: Array(repeating: 0x5A, count: 16))!

    static func index(_ entries: [TestMetadataService.Entry]) throws -> MetadataIndex {
        try MetadataBLOB.verify(try mds.blob(entries: entries), root: mds.trustAnchors, time: Fixture.now)
    }

    static func entry(
        statuses: [AuthenticatorStatus] = [.fidoCertified], roots: [Certificate] = [Fixture.ca.root]
    ) -> TestMetadataService.Entry {
        var entry = TestMetadataService.Entry(aaguid: softAAGUID)
        entry.statuses = statuses
        entry.attestationRootCertificates = roots
        return entry
    }

    static func rp(_ index: MetadataIndex, requirement: AttestationPolicy.Requirement = .trustedRequired) -> RelyingParty {
        Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: requirement, trustAnchors: [:])
            $0.attestation.metadata = index
        }
    }

    @Test("a BLOB signed under the configured root verifies and is indexed by AAGUID and key identifier")
    func verifyAndIndex() throws {
        var u2f = TestMetadataService.Entry(aaguid: nil)
        u2f.attestationCertificateKeyIdentifiers = ["ABCDEF0123456789abcdef0123456789abcdef01"]
        u2f.description = "U2F key"
        let index = try Self.index([Self.entry(), u2f])
        #expect(index.serialNumber == 1 && index.entries.count == 2)
        #expect(index.entry(aaguid: Self.softAAGUID)?.description == "passkeyd test authenticator")
        #expect(index.entry(aaguid: Self.softAAGUID)?.attestationRootCertificates == [Fixture.ca.root])
        #expect(index.entry(keyIdentifier: "abcdef0123456789ABCDEF0123456789ABCDEF01")?.description == "U2F key")
        #expect(index.entry(aaguid: AAGUID(bytes: Array(repeating: 1, count: 16))!) == nil)
        // Trailing newline as written by curl/editors is fine.
        _ = try MetadataBLOB.verify(try Self.mds.blob(entries: []) + [0x0a], root: Self.mds.trustAnchors, time: Fixture.now)
    }

    @Test("a tampered BLOB signature, or a BLOB signed by another key, is refused")
    func tampered() throws {
        let blob = try Self.mds.blob(entries: [Self.entry()], corruptSignature: true)
        #expect(throws: WebAuthnError(.metadataSignatureInvalid)) {
            try MetadataBLOB.verify(blob, root: Self.mds.trustAnchors, time: Fixture.now)
        }
        let forged = try Self.mds.blob(entries: [Self.entry()], signingKey: PrivateKey.generate(for: .es256))
        #expect(throws: WebAuthnError(.metadataSignatureInvalid)) {
            try MetadataBLOB.verify(forged, root: Self.mds.trustAnchors, time: Fixture.now)
        }
        // A payload swapped under the original signature.
        let good = String(decoding: try Self.mds.blob(entries: [Self.entry()]), as: UTF8.self).split(separator: ".").map(String.init)
        let other = String(decoding: try Self.mds.blob(entries: [], number: 2), as: UTF8.self).split(separator: ".").map(String.init)
        let swapped = Array([good[0], other[1], good[2]].joined(separator: ".").utf8)
        #expect(throws: WebAuthnError(.metadataSignatureInvalid)) {
            try MetadataBLOB.verify(swapped, root: Self.mds.trustAnchors, time: Fixture.now)
        }
    }

    @Test("the BLOB chain must reach the configured root at the given time")
    func chain() throws {
        let blob = try Self.mds.blob(entries: [Self.entry()])
        #expect(throws: WebAuthnError(.metadataUntrusted)) {
            try MetadataBLOB.verify(blob, root: Fixture.ca.trustAnchors, time: Fixture.now)
        }
        // After the signing certificate's notAfter (2043).
        #expect(throws: WebAuthnError(.metadataUntrusted)) {
            try MetadataBLOB.verify(blob, root: Self.mds.trustAnchors, time: Date(timeIntervalSince1970: 2_400_000_000))
        }
    }

    @Test("a BLOB past nextUpdate is expired")
    func expired() throws {
        let blob = try Self.mds.blob(entries: [Self.entry()], nextUpdate: "2027-01-14")
        #expect(throws: WebAuthnError(.metadataExpired)) {
            try MetadataBLOB.verify(blob, root: Self.mds.trustAnchors, time: Fixture.now)  // 2027-01-15
        }
        // Valid through the end of the nextUpdate day.
        _ = try MetadataBLOB.verify(
            try Self.mds.blob(entries: [], nextUpdate: "2027-01-15"), root: Self.mds.trustAnchors, time: Fixture.now)
        let badDate = try Self.mds.blob(entries: [], nextUpdate: "soon")
        #expect(throws: WebAuthnError(.metadataMalformed)) { try MetadataBLOB.verify(badDate, root: Self.mds.trustAnchors, time: Fixture.now) }
    }

    @Test("garbage is malformed")
    func malformed() throws {
        #expect(throws: WebAuthnError(.metadataMalformed)) {
            try MetadataBLOB.verify(Array("<html>".utf8), root: Self.mds.trustAnchors, time: Fixture.now)
        }
    }

    @Test("attestationRootCertificates make a chain trusted; the verdict carries description and icon")
    func metadataAnchors() throws {
        let index = try Self.index([Self.entry()])
        let verified = try Fixture.register(rp: Self.rp(index)) { $0.attestation = .packedFull(Fixture.ca) }
        #expect(verified.attestationTrust == .trusted(anchorSubject: "passkeyd test attestation root"))
        #expect(verified.attestationVerdict.trustAnchorSource == .metadata)
        #expect(verified.attestationVerdict.authenticatorDescription == "passkeyd test authenticator")
        #expect(verified.attestationVerdict.authenticatorIcon == "data:image/png;base64,iVBORw0KGgo=")
        #expect(verified.attestationVerdict.metadataStatuses == [.fidoCertified])
        // Without the metadata roots the same chain is untrusted.
        let noRoots = try Self.index([Self.entry(roots: [])])
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: Self.rp(noRoots)) { $0.attestation = .packedFull(Fixture.ca) }
        // Another authenticator's roots do not help.
        var otherEntry = Self.entry()
        otherEntry.aaguid = AAGUID(bytes: Array(repeating: 0x11, count: 16))
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: Self.rp(try Self.index([otherEntry]))) {
            $0.attestation = .packedFull(Fixture.ca)
        }
    }

    @Test("a revoked or compromised AAGUID is refused, under every requirement and every attestation")
    func revoked() throws {
        for status in [AuthenticatorStatus.revoked, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise, .userKeyPhysicalCompromise] {
            let index = try Self.index([Self.entry(statuses: [.fidoCertified, status])])
            try Fixture.expectRegistrationFailure(.authenticatorStatusRefused, rp: Self.rp(index)) { $0.attestation = .packedFull(Fixture.ca) }
            try Fixture.expectRegistrationFailure(.authenticatorStatusRefused, rp: Self.rp(index, requirement: .anyVerified)) {
                $0.attestation = .none
            }
        }
        // Statuses outside the refused list pass.
        let updatable = try Self.index([Self.entry(statuses: [.fidoCertified, .updateAvailable])])
        _ = try Fixture.register(rp: Self.rp(updatable)) { $0.attestation = .packedFull(Fixture.ca) }
        // The list is configurable.
        var lenient = Self.rp(try Self.index([Self.entry(statuses: [.userVerificationBypass])]))
        lenient.attestation.refusedStatuses = [.revoked]
        _ = try Fixture.register(rp: lenient) { $0.attestation = .packedFull(Fixture.ca) }
    }

    @Test("U2F authenticators are found by attestation certificate key identifier")
    func u2fKeyIdentifier() throws {
        let plain = Fixture.relyingParty()
        let (response, state, _) = try Fixture.registration(rp: plain) { $0.attestation = .fidoU2F(Fixture.ca) }
        let first = try plain.finishRegistration(response, state: state, now: Fixture.now)
        let leaf = try Certificate(derEncoded: first.attestationCertificates[0])
        // The identifier is SHA-1 of the subjectPublicKey bits (the uncompressed EC point).
        let point = try #require(try leaf.publicKey().ecUncompressedPoint)
        let expected = Digest.hash(.sha1, point).map { String(format: "%02x", $0) }.joined()
        #expect(leaf.attestationKeyIdentifier == expected)

        var entry = TestMetadataService.Entry(aaguid: nil)
        entry.attestationCertificateKeyIdentifiers = [expected.uppercased()]
        entry.attestationRootCertificates = [Fixture.ca.root]
        entry.description = "U2F test key"
        let trusted = try Self.rp(try Self.index([entry])).finishRegistration(response, state: state, now: Fixture.now)
        #expect(trusted.attestationVerdict.authenticatorDescription == "U2F test key")
        #expect(trusted.attestationVerdict.trustAnchorSource == .metadata)

        entry.statuses = [.attestationKeyCompromise]
        #expect(throws: WebAuthnError(.authenticatorStatusRefused)) {
            try Self.rp(try Self.index([entry])).finishRegistration(response, state: state, now: Fixture.now)
        }
    }
}
