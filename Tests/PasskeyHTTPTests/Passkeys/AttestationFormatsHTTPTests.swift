import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import PasskeyHTTP
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// tpm, android-key and apple registrations through HTTP on PostgreSQL: their attestation types (attca, basic,
/// anonca) pass the schema's CHECK constraints, and the verdict is returned and stored.
@Suite("HTTP on PostgreSQL: tpm, android-key and apple verdicts", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AttestationFormatsHTTPTests {
    @Test("each format's verdict (type, trust, anchor) is returned by finish and read back from the database")
    func verdicts() async throws {
        let ca = try TestAttestationCA(name: "format verdict root")
        let root = try TestFiles.pem(ca.trustAnchors.certificates)
        let environment = [
            "PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey, "PASSKEYD_ATTESTATION": "trusted-required",
            "PASSKEYD_TRUST_ROOTS_TPM": root, "PASSKEYD_TRUST_ROOTS_ANDROID_KEY": root, "PASSKEYD_TRUST_ROOTS_APPLE": root,
        ]
        try await withPostgresHTTP(environment: environment) { schema, instance in
            try await instance.app.test(.router) { client in
                func verdict(_ json: [String: Any]) -> [String: Any]? { (json["credential"] as? [String: Any])?["attestation"] as? [String: Any] }
                let cases: [(SoftAttestation, String)] = [(.tpm(ca), "attca"), (.androidKey(ca), "basic"), (.apple(ca), "anonca")]
                for (attestation, type) in cases {
                    let (reply, credential) = try await Flow.register(client, name: "fiona-\(type)") { $0.attestation = attestation }
                    #expect(reply.status == 201, "\(type): \(reply.status)")
                    let returned = try #require(verdict(reply.json))
                    #expect(returned["type"] as? String == type && returned["trust"] as? String == "trusted")
                    #expect(returned["trustAnchor"] as? String == "format verdict root")
                    let stored = try await client.get("/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: PostgresHTTP.adminAuth)
                    #expect(stored.status == 200)
                    #expect(verdict(stored.json)?["type"] as? String == type && verdict(stored.json)?["trust"] as? String == "trusted")
                }
                // A chain to a root this relying party does not trust is refused before anything is stored.
                let stranger = try TestAttestationCA(name: "stranger root")
                let (refused, _) = try await Flow.register(client, name: "fiona") { $0.attestation = .tpm(stranger) }
                #expect(refused.status == 422)
                let rows = try await schema.query(PGQuery(unsafeSQL: "SELECT attestation_type FROM credentials ORDER BY attestation_type"))
                #expect(rows.rowCount == 3)
                let types = try (0..<rows.rowCount).map { try rows.decode(String.self, row: $0, column: 0) }
                #expect(types == ["anonca", "attca", "basic"])
            }
        }
    }
}
