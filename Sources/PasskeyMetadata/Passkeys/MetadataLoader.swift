import COSECrypto
public import Foundation
public import PasskeyErrors
public import WebAuthnCore

/// Why a metadata BLOB or its root could not be read (verification failures are ``WebAuthnError``s).
public struct MetadataLoaderError: CodedError, CustomDebugStringConvertible {
    /// A stable code.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The BLOB file cannot be read.
        public static let blobUnreadable = Code(rawValue: "metadata_blob_unreadable")
        /// A root PEM file cannot be read or holds no certificate.
        public static let rootUnreadable = Code(rawValue: "metadata_root_unreadable")
    }

    public let code: Code
    /// Detail for logs.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { code.rawValue }
    public var debugDescription: String { "\(code.rawValue): \(reason)" }
}

/// Loads a FIDO Metadata Service v3 BLOB from disk and verifies it with ``MetadataBLOB/verify(_:root:time:maxLength:)``.
///
/// Fetching is left to the operator (e.g. `curl -fsSLo mds.jwt https://mds3.fidoalliance.org/` from cron): the
/// service never makes network requests while it verifies, and a BLOB on disk survives restarts.
public enum MetadataLoader {
    /// Reads the BLOB and the FIDO root(s), verifies the BLOB at `now` and indexes it.
    /// - Parameters:
    ///   - blobPath: the downloaded BLOB (the JWT text).
    ///   - rootPEMPaths: PEM files with the root the BLOB must chain to (for the production MDS:
    ///     GlobalSign Root CA - R3).
    ///   - now: the verification time (chain validity and `nextUpdate`).
    /// - Returns: the index to put in ``AttestationPolicy/metadata``.
    /// - Throws: ``MetadataLoaderError`` when a file cannot be read; ``WebAuthnError`` with
    ///   `metadata_malformed`, `metadata_untrusted`, `metadata_signature_invalid` or `metadata_expired`.
    public static func load(blobPath: String, rootPEMPaths: [String], now: Date = Date()) throws -> MetadataIndex {
        let root: TrustAnchors
        do {
            root = try TrustAnchors.loadPEMFiles(rootPEMPaths)
        } catch {
            throw MetadataLoaderError(.rootUnreadable, String(reflecting: error))
        }
        guard !root.certificates.isEmpty else {
            throw MetadataLoaderError(.rootUnreadable, "no root certificate configured")
        }
        let blob: [UInt8]
        do {
            blob = Array(try Data(contentsOf: URL(fileURLWithPath: blobPath)))
        } catch {
            throw MetadataLoaderError(.blobUnreadable, "\(blobPath): \(error)")
        }
        return try MetadataBLOB.verify(blob, root: root, time: now)
    }
}
