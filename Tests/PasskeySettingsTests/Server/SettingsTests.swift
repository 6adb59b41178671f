import COSECrypto
import Foundation
import LibPQ
import Logging
import PasskeySettings
import Testing
import WebAuthnCore
import WebAuthnTestSupport
import SettingsTestSupport

/// The server, database, relying-party and attestation variables: defaults, every variable read, refusals naming their
/// variable, secrets kept out of messages, warnings, and the config file. (Until the settings left PasskeyHTTPTests,
/// ObservabilitySettingsTests.)
@Suite("Settings: server, relying party and attestation")
struct SettingsTests {
    @Test("defaults: only the database URL is required")
    func defaults() throws {
        let settings = try Settings(SettingsFixtures.environment())
        #expect(settings.host == "127.0.0.1" && settings.port == 8080)
        #expect(settings.poolSize == 8)
        #expect(settings.relyingParty.id == "localhost" && settings.relyingParty.name == "passkeyd")
        #expect(settings.relyingParty.allowedOrigins == ["http://localhost:8080"])
        #expect(settings.relyingParty.userVerification == .required)
        #expect(settings.relyingParty.challengeTimeout == .seconds(300))
        #expect(settings.relyingParty.algorithms == .default)
        #expect(settings.relyingParty.attestation.requirement == .anyVerified)
        #expect(settings.relyingParty.attestation.conveyance == "none")
        #expect(settings.relyingParty.attestation.trustAnchors.isEmpty)
        #expect(settings.apiKeys.isEmpty && settings.adminKeys.isEmpty)
        #expect(settings.logLevel == .info)
        #expect(settings.metricsEnabled)
        #expect(settings.warnings.isEmpty)
        #expect(SettingsFixtures.error([:], without: ["PASSKEYD_DATABASE_URL"])?.variable == "PASSKEYD_DATABASE_URL")
    }

    @Test("every variable is read")
    func everything() throws {
        let roots = try SettingsFixtures.trustRootDirectory(count: 2)
        let settings = try Settings(
            SettingsFixtures.environment([
                "PASSKEYD_LISTEN": "[::]:9090", "PASSKEYD_POOL_SIZE": "20", "PASSKEYD_DB_BATCH_LANES": "10", "PASSKEYD_DB_GENERIC_PLANS": "on", "PASSKEYD_RP_ID": "example.com",
                "PASSKEYD_RP_NAME": "Example", "PASSKEYD_USER_VERIFICATION": "preferred-unsafe", "PASSKEYD_CHALLENGE_TTL": "600",
                "PASSKEYD_ORIGINS": "https://example.com, https://login.example.com:8443,android:apk-key-hash:AbC-_1,ios:bundle-id:com.example.app",
                "PASSKEYD_API_KEYS": "api-key-aaaaaaaaaaaaaaaa,api-key-bbbbbbbbbbbbbbbb", "PASSKEYD_ADMIN_KEYS": "admin-key-cccccccccccccccc",
                "PASSKEYD_LOG_LEVEL": "DEBUG", "PASSKEYD_ALGORITHMS": "EdDSA, es256 ,PS256,ES384,ES512,RS256",
                "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots,
                "PASSKEYD_TRUST_ROOTS_FIDO_U2F": roots + "/root0.pem", "PASSKEYD_ATTESTATION_CONVEYANCE": "enterprise",
                "PASSKEYD_METRICS": "off", "PASSKEYD_PG_PORT": "25432",
            ]))
        #expect(settings.host == "::" && settings.port == 9090)
        #expect(settings.poolSize == 20 && settings.batchLanes == 10 && settings.poolConfiguration.forceGenericPlans)
        #expect(settings.relyingParty.id == "example.com" && settings.relyingParty.name == "Example")
        #expect(settings.relyingParty.allowedOrigins.count == 4)
        #expect(settings.relyingParty.allowedOrigins.contains("android:apk-key-hash:AbC-_1"))
        #expect(settings.relyingParty.userVerification == .preferredUnsafe)
        #expect(settings.relyingParty.challengeTimeout == .seconds(600))
        #expect(settings.relyingParty.algorithms.algorithms == [.edDSA, .es256, .ps256, .es384, .es512, .rs256])
        let attestation = settings.relyingParty.attestation
        #expect(attestation.requirement == .trustedRequired && attestation.conveyance == "enterprise")
        #expect(attestation.trustAnchors["packed"]?.certificates.count == 2)
        #expect(attestation.trustAnchors["fido-u2f"]?.certificates.count == 1)
        #expect(settings.apiKeys.count == 2 && settings.adminKeys == ["admin-key-cccccccccccccccc"])
        #expect(settings.logLevel == .debug)
        #expect(!settings.metricsEnabled)
        #expect(settings.warnings.isEmpty, "\(settings.warnings)")
    }

    @Test(
        "an invalid value is an error naming its variable",
        arguments: [
            ("PASSKEYD_LISTEN", "8080"), ("PASSKEYD_LISTEN", "0.0.0.0:99999"), ("PASSKEYD_LISTEN", ":8080"),
            ("PASSKEYD_DATABASE_URL", "localhost"), ("PASSKEYD_POOL_SIZE", "0"), ("PASSKEYD_POOL_SIZE", "eight"),
            ("PASSKEYD_DB_BATCH_LANES", "5"), ("PASSKEYD_DB_BATCH_LANES", "-1"), ("PASSKEYD_DB_GENERIC_PLANS", "sometimes"),
            ("PASSKEYD_MIGRATIONS", "/nonexistent/migrations"), ("PASSKEYD_RP_ID", "https://example.com"),
            ("PASSKEYD_RP_ID", "Example.com"), ("PASSKEYD_RP_ID", "example.com:443"), ("PASSKEYD_ORIGINS", "https://localhost/"),
            ("PASSKEYD_ORIGINS", "https://localhost:443"), ("PASSKEYD_ORIGINS", "HTTPS://LOCALHOST"), ("PASSKEYD_ORIGINS", "localhost"),
            ("PASSKEYD_USER_VERIFICATION", "preferred"), ("PASSKEYD_CHALLENGE_TTL", "10"), ("PASSKEYD_LOG_LEVEL", "verbose"),
            ("PASSKEYD_ALGORITHMS", "ES256,XYZ"), ("PASSKEYD_ALGORITHMS", "ES256,RS1"), ("PASSKEYD_ALGORITHMS", "ES256,es256"),
            ("PASSKEYD_ALGORITHMS", ","), ("PASSKEYD_ATTESTATION", "strict"), ("PASSKEYD_ATTESTATION", "trusted-required"),
            ("PASSKEYD_ATTESTATION_CONVEYANCE", "always"), ("PASSKEYD_METRICS", "maybe"), ("PASSKEYD_TRUST_ROOTS_NONE", "/tmp"),
            ("PASSKEYD_TRUST_ROOTS_PACKED", "/nonexistent/roots.pem"), ("PASSKEYD_TRUST_ROOTS_PACKED", "/tmp/../proc/version"),
        ])
    func invalid(variable: String, value: String) {
        let error = SettingsFixtures.error([variable: value])
        #expect(error?.variable == variable, "\(variable)=\(value): \(error.map(String.init(describing:)) ?? "accepted")")
        #expect(error.map { !$0.problem.isEmpty } == true)
    }

    @Test("keys and the database URL never appear in errors or warnings")
    func secretsStaySecret() throws {
        let hidden = "hunter2-secret-value"
        for (variable, value) in [
            ("PASSKEYD_API_KEYS", "good-key-000000000000,\(hidden)\u{7}"), ("PASSKEYD_ADMIN_KEYS", "\(hidden) two"),
            ("PASSKEYD_DATABASE_URL", hidden),
        ] {
            let error = try #require(SettingsFixtures.error([variable: value]))
            #expect(error.variable == variable)
            #expect(!error.description.contains("hunter2"), "\(error)")
        }
        let shared = try #require(SettingsFixtures.error(["PASSKEYD_API_KEYS": "\(hidden)-shared", "PASSKEYD_ADMIN_KEYS": "\(hidden)-shared"]))
        #expect(shared.variable == "PASSKEYD_ADMIN_KEYS" && !shared.description.contains("hunter2"))
        let short = try Settings(SettingsFixtures.environment(["PASSKEYD_API_KEYS": "short1,short2", "PASSKEYD_ADMIN_KEYS": "tiny"]))
        #expect(short.warnings.count == 3)
        #expect(!short.warnings.joined().contains("short1") && !short.warnings.joined().contains("tiny"))
    }

    @Test("RS1 only under its unsafe name; the default is ES256, EdDSA, RS256")
    func algorithms() throws {
        let rs1 = try Settings(SettingsFixtures.environment(["PASSKEYD_ALGORITHMS": "ES256,RS1-unsafe"]))
        #expect(rs1.relyingParty.algorithms.algorithms == [.es256, .rs1])
        #expect(try Settings(SettingsFixtures.environment()).relyingParty.algorithms.algorithms == [.es256, .edDSA, .rs256])
    }

    @Test("trusted-required needs roots and asks for direct attestation by default; none contradicts it")
    func attestationPolicy() throws {
        let roots = try SettingsFixtures.trustRootDirectory(count: 1)
        let settings = try Settings(SettingsFixtures.environment(["PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots]))
        #expect(settings.relyingParty.attestation.conveyance == "direct")
        let contradiction = SettingsFixtures.error([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots, "PASSKEYD_ATTESTATION_CONVEYANCE": "none",
        ])
        #expect(contradiction?.variable == "PASSKEYD_ATTESTATION_CONVEYANCE")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(SettingsFixtures.error(["PASSKEYD_TRUST_ROOTS_FIDO_U2F": empty.path])?.variable == "PASSKEYD_TRUST_ROOTS_FIDO_U2F")
        // any-verified with roots: accepted (roots record which attestations are trusted).
        #expect(try Settings(SettingsFixtures.environment(["PASSKEYD_TRUST_ROOTS_PACKED": roots])).relyingParty.attestation.trustAnchors.count == 1)
    }

    @Test("tpm, android-key and apple take their own trust roots (PASSKEYD_TRUST_ROOTS_TPM / _ANDROID_KEY / _APPLE)")
    func formatTrustRoots() throws {
        let roots = try SettingsFixtures.trustRootDirectory(count: 1)
        let settings = try Settings(SettingsFixtures.environment([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_TPM": roots,
            "PASSKEYD_TRUST_ROOTS_ANDROID_KEY": roots, "PASSKEYD_TRUST_ROOTS_APPLE": roots,
        ]))
        #expect(Set(settings.relyingParty.attestation.trustAnchors.keys) == ["tpm", "android-key", "apple"])
        #expect(settings.relyingParty.attestation.allowTestTPMManufacturersUnsafe == false)
        #expect(settings.relyingParty.attestation.androidKeyAllowSoftwareEnforcedUnsafe == false)
    }

    @Test("PASSKEYD_ATTESTATION: none / any-verified / self-ok / trusted-required; self-ok and trusted-required need roots")
    func attestationRequirements() throws {
        #expect(try Settings(SettingsFixtures.environment(["PASSKEYD_ATTESTATION": "none"])).relyingParty.attestation.requirement == .anyVerified)
        #expect(SettingsFixtures.error(["PASSKEYD_ATTESTATION": "self-ok"])?.variable == "PASSKEYD_ATTESTATION")
        #expect(SettingsFixtures.error(["PASSKEYD_ATTESTATION": "paranoid"])?.variable == "PASSKEYD_ATTESTATION")
        let roots = try SettingsFixtures.trustRootDirectory(count: 1)
        let selfOK = try Settings(SettingsFixtures.environment(["PASSKEYD_ATTESTATION": "self-ok", "PASSKEYD_TRUST_ROOTS_ANDROID_SAFETYNET": roots]))
        #expect(selfOK.relyingParty.attestation.requirement == .selfOrTrusted)
        #expect(selfOK.relyingParty.attestation.conveyance == "direct", "self-ok refuses none, so it asks for an attestation")
        #expect(Array(selfOK.relyingParty.attestation.trustAnchors.keys) == ["android-safetynet"])
    }

    @Test("AAGUID allow- and deny-lists: UUIDs, the deny-list wins, an allow-list under any-verified is a warning")
    func aaguidLists() throws {
        let a = "ee882879-721c-4913-9775-3dfcce97072a", b = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
        let settings = try Settings(SettingsFixtures.environment(["PASSKEYD_AAGUID_ALLOW": "\(a),\(b)", "PASSKEYD_AAGUID_DENY": b]))
        #expect(settings.relyingParty.attestation.aaguidAllowList == Set([AAGUID(a)!, AAGUID(b)!]))
        #expect(settings.relyingParty.attestation.aaguidDenyList == [AAGUID(b)!])
        #expect(settings.warnings.contains { $0.contains("PASSKEYD_AAGUID_ALLOW") && $0.contains("any-verified") })
        #expect(settings.warnings.contains { $0.contains("deny-list wins") })
        #expect(SettingsFixtures.error(["PASSKEYD_AAGUID_DENY": "not-a-uuid"])?.variable == "PASSKEYD_AAGUID_DENY")
        #expect(try Settings(SettingsFixtures.environment()).relyingParty.attestation.aaguidAllowList == nil)
    }

    @Test("PASSKEYD_MDS_BLOB + PASSKEYD_MDS_ROOT: a verified BLOB becomes the metadata index; a tampered one stops the start")
    func metadataBLOB() throws {
        let mds = try TestMetadataService()
        let aaguid = AAGUID("ee882879-721c-4913-9775-3dfcce97072a")!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-mds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let blob = directory.appendingPathComponent("blob.jwt"), tampered = directory.appendingPathComponent("tampered.jwt")
        let root = directory.appendingPathComponent("root.pem")
        try Data(try mds.blob(entries: [.init(aaguid: aaguid)], number: 7)).write(to: blob)
        try Data(try mds.blob(entries: [.init(aaguid: aaguid)], number: 7, corruptSignature: true)).write(to: tampered)
        try Data(SettingsFixtures.pem(mds.root.root).utf8).write(to: root)

        let settings = try Settings(SettingsFixtures.environment([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_MDS_BLOB": blob.path, "PASSKEYD_MDS_ROOT": root.path,
            "PASSKEYD_MDS_REFUSED_STATUSES": "REVOKED,UPDATE_AVAILABLE,MADE_UP",
        ]))
        let metadata = try #require(settings.relyingParty.attestation.metadata, "trusted-required is satisfied by metadata alone")
        #expect(metadata.serialNumber == 7 && metadata.entries.count == 1)
        #expect(settings.metadataSource == Settings.MetadataSource(blobPath: blob.path, rootPEMPaths: [root.path]))
        #expect(settings.relyingParty.attestation.refusedStatuses == [.revoked, .updateAvailable, AuthenticatorStatus("MADE_UP")])
        #expect(settings.warnings.contains { $0.contains("MADE_UP is not an MDS3 status") })

        let refused = SettingsFixtures.error(["PASSKEYD_MDS_BLOB": tampered.path, "PASSKEYD_MDS_ROOT": root.path])
        #expect(refused?.variable == "PASSKEYD_MDS_BLOB" && refused?.problem.contains("metadata_signature_invalid") == true, "\(String(describing: refused))")
        let otherRoot = try SettingsFixtures.trustRootDirectory(count: 1)
        let untrusted = SettingsFixtures.error(["PASSKEYD_MDS_BLOB": blob.path, "PASSKEYD_MDS_ROOT": otherRoot + "/root0.pem"])
        #expect(untrusted?.variable == "PASSKEYD_MDS_BLOB" && untrusted?.problem.contains("metadata_untrusted") == true, "\(String(describing: untrusted))")
        #expect(SettingsFixtures.error(["PASSKEYD_MDS_BLOB": blob.path])?.variable == "PASSKEYD_MDS_BLOB", "a BLOB without its root")
        #expect(SettingsFixtures.error(["PASSKEYD_MDS_ROOT": root.path])?.variable == "PASSKEYD_MDS_ROOT", "a root without a BLOB")
    }

    @Test("unknown PASSKEYD_ variables and suspicious origins are warnings")
    func warnings() throws {
        let settings = try Settings(
            SettingsFixtures.environment([
                "PASSKEYD_API_KEY": "x", "PASSKEYD_TEST_DATABASE_URL": "x", "PASSKEYD_PG_PORT": "1",
                "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.org,http://app.example.com",
            ]))
        #expect(settings.warnings.count == 3, "\(settings.warnings)")
        #expect(settings.warnings.contains { $0.contains("PASSKEYD_API_KEY:") && $0.contains("did you mean PASSKEYD_API_KEYS") })
    }

    @Test("a config file: KEY=VALUE lines under the real environment")
    func configFile() throws {
        let text = """
            # passkeyd settings
            PASSKEYD_RP_ID=example.com
            export PASSKEYD_ORIGINS="https://example.com"
            PASSKEYD_LOG_LEVEL='warning'
            PASSKEYD_POOL_SIZE = 4

            OTHER_TOOL=1
            """
        let (values, warnings) = try Settings.parseEnvironmentFile(text, path: "test.env")
        #expect(values == [
            "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.com", "PASSKEYD_LOG_LEVEL": "warning",
            "PASSKEYD_POOL_SIZE": "4",
        ])
        #expect(warnings.count == 1 && warnings[0].contains("line 7"))
        #expect(throws: ConfigurationError.self) { try Settings.parseEnvironmentFile("PASSKEYD_RP_ID", path: "x") }
        #expect(throws: ConfigurationError.self) { try Settings.parseEnvironmentFile("A=1\nA=2", path: "x") }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-\(UUID().uuidString).env")
        try Data(text.utf8).write(to: file)
        let settings = try Settings.load(environment: SettingsFixtures.environment(["PASSKEYD_CONFIG_FILE": file.path, "PASSKEYD_POOL_SIZE": "6"]))
        #expect(settings.relyingParty.id == "example.com")
        #expect(settings.logLevel == .warning)
        #expect(settings.poolSize == 6, "the environment wins over the file")
        let missing = SettingsFixtures.environment(["PASSKEYD_CONFIG_FILE": "/nonexistent/passkeyd.env"])
        #expect(throws: ConfigurationError("PASSKEYD_CONFIG_FILE", "cannot read /nonexistent/passkeyd.env as UTF-8 text")) {
            try Settings.load(environment: missing)
        }
    }
}
