import Foundation
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

@Suite("Stored attestation verdict")
struct StoredAttestationTests {
    @Test("the authenticator description from FIDO metadata is stored with the verdict")
    func metadataDescription() throws {
        let ca = try TestAttestationCA()
        let mds = try TestMetadataService()
        var entry = TestMetadataService.Entry(aaguid: AAGUID(bytes: Array(repeating: 0x5A, count: 16)))
        entry.description = "passkeyd Test Key 5"
        entry.attestationRootCertificates = [ca.root]
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var rp = Registrations.rp
        rp.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: [:])
        rp.attestation.metadata = try MetadataBLOB.verify(mds.blob(entries: [entry]), root: mds.trustAnchors, time: now)
        let user = try UserEntity(id: [7, 7, 7], name: "mds", displayName: "MDS")
        let (options, state) = rp.beginRegistration(user: user, excludeCredentials: [], now: now)
        var knobs = RegistrationKnobs(origin: Registrations.origin)
        knobs.attestation = .packedFull(ca)
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        let stored = StoredAttestation(try rp.finishRegistration(response, state: state, now: now))
        #expect(stored.trust == "trusted" && stored.trustAnchor == "passkeyd test attestation root")
        #expect(stored.authenticatorDescription == "passkeyd Test Key 5")
        // Without metadata there is no description.
        let plain = try Registrations.make(handle: [8], name: "plain")
        #expect(StoredAttestation(plain).authenticatorDescription == nil)
    }
}
