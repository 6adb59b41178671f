import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

@Suite("FIDO metadata through the API")
struct MetadataHTTPTests {
    @Test("metadata names the authenticator in the reply; a replaced BLOB that revokes it refuses the next registration")
    func describedThenRevoked() async throws {
        let ca = try TestAttestationCA(name: "metadata vendor root")
        let mds = try TestMetadataService()
        let aaguid = AAGUID(bytes: Array(repeating: 0x5A, count: 16))  // the software authenticator's default
        var entry = TestMetadataService.Entry(aaguid: aaguid)
        entry.description = "passkeyd Test Key 7"
        entry.attestationRootCertificates = [ca.root]
        var revoked = entry
        revoked.statuses = [.fidoCertified, .revoked]
        let (described, revokedEntry) = (entry, revoked)
        let now = Date()
        // Trusted-required with the BLOB as the only source of roots, loaded at start as PASSKEYD_MDS_BLOB is.
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_ADMIN_KEYS": "metadata-test-admin-key", "PASSKEYD_ATTESTATION": "trusted-required",
            "PASSKEYD_MDS_BLOB": try TestFiles.write(try mds.blob(entries: [described], number: 1), name: "blob.jwt"),
            "PASSKEYD_MDS_ROOT": try TestFiles.pem(mds.trustAnchors.certificates),
        ])
        let store = TestPasskeyd.store(for: settings)
        let passkeyd = try await TestPasskeyd.build(settings, store: store)
        let service = passkeyd.ceremonies
        let admin: HTTPFields = [.authorization: "Bearer metadata-test-admin-key"]
        let app = passkeyd.http
        try await app.test(.router) { client in
            let (first, credential) = try await Flow.register(client, name: "mia") { $0.attestation = .packedFull(ca) }
            #expect(first.status == 201)
            let verdict = (first.json["credential"] as? [String: Any])?["attestation"] as? [String: Any]
            #expect(verdict?["trust"] as? String == "trusted" && verdict?["authenticatorDescription"] as? String == "passkeyd Test Key 7")

            // The admin API adds the icon from the metadata loaded now.
            func adminVerdict() async throws -> [String: Any]? {
                let reply = try await client.get("/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: admin)
                return (reply.json["credential"] as? [String: Any])?["attestation"] as? [String: Any]
            }
            #expect(try await adminVerdict()?["authenticatorIcon"] as? String == "data:image/png;base64,iVBORw0KGgo=")
            #expect(verdict?["authenticatorIcon"] == nil, "the ceremony reply carries no icon")

            // A newer BLOB reports the model revoked: swapped in while the service runs.
            service.replaceMetadata(try MetadataBLOB.verify(mds.blob(entries: [revokedEntry], number: 2), root: mds.trustAnchors, time: now))
            let (second, _) = try await Flow.register(client, userHandle: credential.userHandle) { $0.attestation = .packedFull(ca) }
            #expect(second.status == 422 && second.errorCode == "authenticator_status_refused")
            #expect(try await store.credentials(ofUser: try #require(try await store.user(named: "mia")).handle).count == 1)

            // Without metadata the same chain reaches no root: refused under trusted-required.
            service.replaceMetadata(nil)
            let (third, _) = try await Flow.register(client, userHandle: credential.userHandle) { $0.attestation = .packedFull(ca) }
            #expect(third.status == 422 && third.errorCode == "attestation_untrusted")
            let unloaded = try await adminVerdict()
            #expect(unloaded?["authenticatorIcon"] is NSNull, "no metadata, no icon")
            #expect(unloaded?["authenticatorDescription"] as? String == "passkeyd Test Key 7", "the description was stored at registration")
        }
    }
}
