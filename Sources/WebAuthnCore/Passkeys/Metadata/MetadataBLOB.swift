public import COSECrypto
public import Foundation

/// One status report of a metadata entry (FIDO MDS3 §3.1.3 StatusReport), the members this server uses.
public struct MetadataStatusReport: Sendable, Hashable {
    /// `status`.
    public let status: AuthenticatorStatus
    /// `effectiveDate` as written (ISO-8601 date), if present.
    public let effectiveDate: String?
}

/// One `entries` element of the BLOB (MDS3 §3.1.1 MetadataBLOBPayloadEntry), reduced to what registration needs.
public struct MetadataEntry: Sendable {
    /// The FIDO2 AAGUID, if the entry is for a FIDO2 authenticator.
    public let aaguid: AAGUID?
    /// U2F: lowercase hex SHA-1 of the attestation certificates' subjectPublicKey.
    public let attestationCertificateKeyIdentifiers: [String]
    public let statusReports: [MetadataStatusReport]
    /// `metadataStatement.description`.
    public let description: String?
    /// `metadataStatement.icon` (a `data:` URL).
    public let icon: String?
    /// `metadataStatement.attestationRootCertificates`, parsed (entries OpenSSL cannot parse are left out).
    public let attestationRootCertificates: [Certificate]

    /// The first status in `statuses` that any report of this entry has, if any.
    public func firstStatus(in statuses: Set<AuthenticatorStatus>) -> AuthenticatorStatus? {
        statusReports.first { statuses.contains($0.status) }?.status
    }
}

/// A verified metadata BLOB indexed for registration: by AAGUID and by attestation certificate key identifier.
public struct MetadataIndex: Sendable {
    /// The BLOB's serial number (`no`).
    public let serialNumber: Int
    /// When the BLOB must be replaced by a newer one.
    public let nextUpdate: Date
    /// Every entry, in BLOB order.
    public let entries: [MetadataEntry]
    private let byAAGUID: [AAGUID: Int]
    private let byKeyIdentifier: [String: Int]

    /// Indexes entries (a later entry for the same AAGUID or key identifier does not replace the first).
    /// - Parameters:
    ///   - serialNumber: the BLOB `no`.
    ///   - nextUpdate: the BLOB `nextUpdate`.
    ///   - entries: the entries.
    public init(serialNumber: Int, nextUpdate: Date, entries: [MetadataEntry]) {
        self.serialNumber = serialNumber
        self.nextUpdate = nextUpdate
        self.entries = entries
        var byAAGUID: [AAGUID: Int] = [:]
        var byKeyIdentifier: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let aaguid = entry.aaguid, byAAGUID[aaguid] == nil { byAAGUID[aaguid] = index }
            for identifier in entry.attestationCertificateKeyIdentifiers where byKeyIdentifier[identifier.lowercased()] == nil {
                byKeyIdentifier[identifier.lowercased()] = index
            }
        }
        self.byAAGUID = byAAGUID
        self.byKeyIdentifier = byKeyIdentifier
    }

    /// The entry for a FIDO2 AAGUID.
    public func entry(aaguid: AAGUID) -> MetadataEntry? { byAAGUID[aaguid].map { entries[$0] } }

    /// The entry for a U2F attestation certificate key identifier (hex, any case).
    public func entry(keyIdentifier: String) -> MetadataEntry? { byKeyIdentifier[keyIdentifier.lowercased()].map { entries[$0] } }

    /// The entry for an attestation: by AAGUID when it is not zero, otherwise (U2F) by the key identifier of the
    /// attestation certificate.
    func entry(aaguid: AAGUID?, leaf: Certificate?) -> MetadataEntry? {
        if let aaguid, !aaguid.isZero { return entry(aaguid: aaguid) }
        if let leaf { return entry(keyIdentifier: leaf.attestationKeyIdentifier) }
        return nil
    }
}

/// FIDO Metadata Service v3 BLOB processing (MDS3 §3.2 "Metadata BLOB object processing rules"), without I/O:
/// the caller supplies the bytes, the FIDO root it trusts and the time.
public enum MetadataBLOB {
    private struct Payload: Decodable {
        let no: Int
        let nextUpdate: String
        let entries: [Entry]
    }

    private struct Entry: Decodable {
        let aaguid: String?
        let attestationCertificateKeyIdentifiers: [String]?
        let statusReports: [StatusReport]?
        let metadataStatement: Statement?
    }

    private struct StatusReport: Decodable {
        let status: String
        let effectiveDate: String?
    }

    private struct Statement: Decodable {
        let description: String?
        let icon: String?
        let attestationRootCertificates: [String]?
    }

    /// Verifies a metadata BLOB and indexes its entries.
    ///
    /// Steps: the BLOB is a compact JWS with an `x5c` header (a BLOB naming only `x5u` is refused: this server does
    /// not fetch); the x5c chain must verify to `root` at `time`; the signature must verify with the x5c leaf;
    /// `nextUpdate` (a date, taken as the end of that day UTC) must not have passed at `time`. CRLs are not fetched.
    ///
    /// - Parameters:
    ///   - blob: the BLOB bytes as downloaded (`https://mds3.fidoalliance.org/`).
    ///   - root: the FIDO root the operator trusts (GlobalSign Root CA - R3 for the production MDS).
    ///   - time: the verification time.
    ///   - maxLength: the largest BLOB accepted (default 32 MiB).
    /// - Returns: the index.
    /// - Throws: ``WebAuthnError/Code/metadataMalformed``, ``WebAuthnError/Code/metadataUntrusted``,
    ///   ``WebAuthnError/Code/metadataSignatureInvalid``, ``WebAuthnError/Code/metadataExpired``.
    public static func verify(
        _ blob: [UInt8], root: TrustAnchors, time: Date, maxLength: Int = 32 * 1024 * 1024
    ) throws(WebAuthnError) -> MetadataIndex {
        var trimmed = blob[...]
        while let last = trimmed.last, last == 0x0a || last == 0x0d || last == 0x20 { trimmed.removeLast() }
        let jws: JWS
        do {
            jws = try JWS(compact: Array(trimmed), maxLength: maxLength)
        } catch {
            throw WebAuthnError(.metadataMalformed, "metadata BLOB: \(error.reason)")
        }
        // "Verify that the signing certificate chain ... chains to the FIDO root": the chain at the given time.
        do {
            _ = try jws.verifyChain(anchors: root, time: time)
        } catch {
            throw WebAuthnError(.metadataUntrusted, "metadata BLOB chain: \(String(reflecting: error))")
        }
        // "Verify the signature of the Metadata BLOB object using the BLOB signing certificate chain."
        do {
            try jws.verifySignature()
        } catch {
            throw WebAuthnError(.metadataSignatureInvalid, "metadata BLOB: \(error.reason)")
        }
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw WebAuthnError(.metadataMalformed, "metadata BLOB payload: \(error)")
        }
        guard let nextUpdate = parseDate(payload.nextUpdate) else {
            throw WebAuthnError(.metadataMalformed, "nextUpdate \(payload.nextUpdate.debugDescription) is not a date")
        }
        // A BLOB whose nextUpdate has passed is stale: a newer one (possibly revoking authenticators) exists.
        // nextUpdate is a date; the BLOB is current through the end of that day (UTC).
        guard time < nextUpdate.addingTimeInterval(86400) else {
            throw WebAuthnError(.metadataExpired, "metadata BLOB no \(payload.no) expired at nextUpdate \(payload.nextUpdate)")
        }
        let entries = payload.entries.map { entry in
            MetadataEntry(
                aaguid: entry.aaguid.flatMap(AAGUID.init),
                attestationCertificateKeyIdentifiers: entry.attestationCertificateKeyIdentifiers ?? [],
                statusReports: (entry.statusReports ?? []).map {
                    MetadataStatusReport(status: AuthenticatorStatus($0.status), effectiveDate: $0.effectiveDate)
                },
                description: entry.metadataStatement?.description,
                icon: entry.metadataStatement?.icon,
                attestationRootCertificates: (entry.metadataStatement?.attestationRootCertificates ?? []).compactMap {
                    Data(base64Encoded: $0).flatMap { try? Certificate(derEncoded: Array($0)) }
                })
        }
        return MetadataIndex(serialNumber: payload.no, nextUpdate: nextUpdate, entries: entries)
    }

    /// `YYYY-MM-DD` at 00:00 UTC.
    static func parseDate(_ text: String) -> Date? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.timeZone = TimeZone(identifier: "UTC")
        return Calendar(identifier: .gregorian).date(from: components)
    }
}
