import Foundation
import WebAuthnTestSupport

/// `passkeyd-softkey storekit …`: StoreKit-shaped JWS signed with the App Store Server Library's published TEST leaf
/// key (the vectors' `apple/storekit/certs`), for the App Store walkthrough (docs/app-store.md). A passkeyd configured with that
/// test root accepts them; one configured with Apple's root never does.
///
///   passkeyd-softkey storekit transaction --certs DIR --id ID [--original ID] [--token UUID] [--product ID]
///       [--days N (a subscription of N days from now; 0: a non-consumable)] [--revoked yes] [--signed-offset-ms N]
///   passkeyd-softkey storekit renewal --certs DIR --original ID [--auto-renew 0|1]
///   passkeyd-softkey storekit notification --certs DIR --type TYPE [--subtype S] [--uuid U]
///       [--transaction FILE] [--renewal FILE]
/// Each prints the compact JWS on stdout.
func storeKit(_ arguments: [String]) throws {
    guard let kind = arguments.first, ["transaction", "renewal", "notification"].contains(kind) else {
        throw UsageError(description: "usage: passkeyd-softkey storekit transaction|renewal|notification --certs DIR …")
    }
    var flags: [String: String] = [:]
    var rest = Array(arguments.dropFirst())
    while let flag = rest.first {
        guard flag.hasPrefix("--"), rest.count >= 2 else { throw UsageError(description: "unexpected argument \(flag)") }
        flags[String(flag.dropFirst(2))] = rest[1]
        rest.removeFirst(2)
    }
    guard let certs = flags["certs"] else { throw UsageError(description: "--certs DIR (the vectors' apple/storekit/certs) is required") }
    let kit = try TestStoreKit(certificates: URL(fileURLWithPath: certs))
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    let signed = now + (Int64(flags["signed-offset-ms"] ?? "0") ?? 0)
    let jws: String
    switch kind {
    case "transaction":
        guard let id = flags["id"] else { throw UsageError(description: "--id is required") }
        let days = Int64(flags["days"] ?? "30") ?? 30
        var changes: [String: Any] = ["signedDate": signed]
        if let token = flags["token"] { changes["appAccountToken"] = token }
        if flags["revoked"] == "yes" {
            changes["revocationDate"] = now
            changes["revocationReason"] = 0
        }
        jws = try kit.sign(kit.transaction(
            id: id, original: flags["original"], product: flags["product"] ?? "com.example.monthly", purchase: now - 60_000,
            expires: days == 0 ? nil : now + days * 86_400_000, changes))
    case "renewal":
        guard let original = flags["original"] else { throw UsageError(description: "--original is required") }
        jws = try kit.sign(kit.renewal(original: original, signed: signed, ["autoRenewStatus": Int(flags["auto-renew"] ?? "1") ?? 1]))
    default:
        guard let type = flags["type"] else { throw UsageError(description: "--type is required") }
        func file(_ name: String) throws -> String? {
            try flags[name].map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        jws = try kit.sign(kit.notification(
            type: type, subtype: flags["subtype"], uuid: flags["uuid"] ?? UUID().uuidString.lowercased(), signed: signed,
            transaction: try file("transaction"), renewal: try file("renewal")))
    }
    FileHandle.standardOutput.write(Data((jws + "\n").utf8))
}
