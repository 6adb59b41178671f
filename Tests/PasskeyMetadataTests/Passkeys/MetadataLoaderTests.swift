import COSECrypto
import Foundation
import PasskeyMetadata
import Testing
import WebAuthnCore
import WebAuthnTestSupport

@Suite("PasskeyMetadata loader")
struct MetadataLoaderTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func files(blob: [UInt8], root: Certificate) throws -> (blob: String, root: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-mds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let blobPath = directory.appendingPathComponent("blob.jwt").path
        let rootPath = directory.appendingPathComponent("root.pem").path
        try Data(blob).write(to: URL(fileURLWithPath: blobPath))
        try Data(root.pemEncoded.utf8).write(to: URL(fileURLWithPath: rootPath))
        return (blobPath, rootPath)
    }

    @Test("a BLOB file and root PEM load into an index")
    func loads() throws {
        let mds = try TestMetadataService()
        let aaguid = try #require(AAGUID("cb69481e-8ff7-4039-93ec-0a2729a154a8"))
        let paths = try Self.files(blob: mds.blob(entries: [TestMetadataService.Entry(aaguid: aaguid)]), root: mds.root.root)
        let index = try MetadataLoader.load(blobPath: paths.blob, rootPEMPaths: [paths.root], now: Self.now)
        #expect(index.entry(aaguid: aaguid)?.description == "passkeyd test authenticator")
    }

    @Test("unreadable files and failed verification are reported by their codes")
    func failures() throws {
        let mds = try TestMetadataService()
        let paths = try Self.files(blob: mds.blob(entries: [], corruptSignature: true), root: mds.root.root)
        #expect(throws: WebAuthnError(.metadataSignatureInvalid)) {
            try MetadataLoader.load(blobPath: paths.blob, rootPEMPaths: [paths.root], now: Self.now)
        }
        #expect(throws: MetadataLoaderError(.blobUnreadable, "")) {
            try MetadataLoader.load(blobPath: paths.blob + ".missing", rootPEMPaths: [paths.root], now: Self.now)
        }
        #expect(throws: MetadataLoaderError(.rootUnreadable, "")) {
            try MetadataLoader.load(blobPath: paths.blob, rootPEMPaths: [paths.blob], now: Self.now)
        }
        #expect(throws: MetadataLoaderError(.rootUnreadable, "")) {
            try MetadataLoader.load(blobPath: paths.blob, rootPEMPaths: [], now: Self.now)
        }
    }
}
