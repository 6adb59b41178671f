// Seeding: N users, each with one ES256 credential made by a real key generation, written as CSV and loaded with
// psql's \copy (one COPY per table), far faster than one HTTP registration per user. The rows look like what a
// registration with "none" attestation stores (COSE key, attestation object, clientDataJSON of realistic sizes).
import CBORCodec
import COSECrypto
import Foundation
import WebAuthnModel
import WebAuthnTestSupport

struct Fail: Error, CustomStringConvertible { let description: String }

enum CSV {
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// bytea in PostgreSQL's hex input format (`\x…`), which CSV passes through unchanged.
    static func bytea(_ bytes: [UInt8], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "x"))
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    static func text(_ value: String, into out: inout [UInt8]) { out += Array(value.utf8) }
}

/// Runs psql ($PSQL, default /usr/bin/psql) with one command and waits; its errors go to our stderr.
func psql(_ databaseURL: String, _ command: String) throws {
    let path = ProcessInfo.processInfo.environment["PSQL"] ?? "/usr/bin/psql"
    guard let pid = spawn([path, "-X", "-q", "-o", "/dev/null", "-v", "ON_ERROR_STOP=1", "-d", databaseURL, "-c", command]) else {
        throw Fail(description: "cannot start \(path)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    guard status == 0 else { throw Fail(description: "psql failed (wait status \(status)): \(command.prefix(80))") }
}

struct Seeder {
    let databaseURL: String
    let rpID: String
    let origin: String
    let directory: URL

    /// Creates `count` users + credentials; returns the soft credentials of `workingSet` of them, spread uniformly
    /// over the table (each user id and credential id is equally likely to be in it).
    func seed(count: Int, workingSet: Int) throws -> [SoftCredential] {
        let keep = min(workingSet, count)
        var chosen = [Bool](repeating: false, count: count)
        var picked = 0
        var generator = SystemRandomNumberGenerator()
        while picked < keep {
            let index = Int.random(in: 0..<count, using: &generator)
            if !chosen[index] {
                chosen[index] = true
                picked += 1
            }
        }
        let usersURL = directory.appendingPathComponent("users.csv")
        let credentialsURL = directory.appendingPathComponent("credentials.csv")
        _ = FileManager.default.createFile(atPath: usersURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: credentialsURL.path, contents: nil)
        let users = try FileHandle(forWritingTo: usersURL)
        let credentials = try FileHandle(forWritingTo: credentialsURL)
        defer {
            try? users.close()
            try? credentials.close()
        }
        let rpIDHash = Digest.sha256(Array(rpID.utf8))
        let block = 20_000
        var kept: [SoftCredential] = []
        kept.reserveCapacity(keep)
        var start = 0
        while start < count {
            let end = min(start + block, count)
            let first = start
            // Two halves of the block in parallel (key generation dominates), then written in order.
            let halves = 2
            let results = Mutexed([(users: [UInt8], credentials: [UInt8], kept: [SoftCredential])](repeating: ([], [], []), count: halves))
            let chosenCopy = chosen
            let rpIDHashCopy = rpIDHash
            let origin = self.origin
            let rpID = self.rpID
            DispatchQueue.concurrentPerform(iterations: halves) { half in
                let lower = first + (end - first) * half / halves
                let upper = first + (end - first) * (half + 1) / halves
                var userLines: [UInt8] = []
                var credentialLines: [UInt8] = []
                var mine: [SoftCredential] = []
                for index in lower..<upper {
                    guard let key = try? PrivateKey.generate(for: .es256) else { continue }
                    let cose = CBOREncoder.encode(key.coseKey(algorithm: .es256))
                    let credentialID = SecureRandom.bytes(count: 32)
                    let userHandle = SecureRandom.bytes(count: 32)
                    let rowID = index + 1
                    // users: id, user_handle, name, display_name
                    CSV.text("\(rowID),", into: &userLines)
                    CSV.bytea(userHandle, into: &userLines)
                    CSV.text(",lb-user-\(index),Load Bench \(index)\n", into: &userLines)
                    // The attestation object and clientDataJSON a "none" registration would have stored.
                    var authData = rpIDHashCopy
                    authData.append(0x45)
                    authData += [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, 32] + credentialID + cose
                    let attestationObject = CBOREncoder.encode(.map([
                        CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([])),
                        CBORMapEntry(.text("authData"), .bytes(authData)),
                    ]))
                    let clientData = Array(
                        "{\"type\":\"webauthn.create\",\"challenge\":\"\(Base64URL.encode(SecureRandom.bytes(count: 32)))\",\"origin\":\"\(origin)\",\"crossOrigin\":false}".utf8)
                    // credentials: id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state,
                    // uv_initialized, transports, aaguid, attestation_format, attestation_object, client_data_json
                    CSV.bytea(credentialID, into: &credentialLines)
                    CSV.text(",\(rowID),", into: &credentialLines)
                    CSV.bytea(cose, into: &credentialLines)
                    CSV.text(",-7,0,false,false,true,{internal},00000000-0000-0000-0000-000000000000,none,", into: &credentialLines)
                    CSV.bytea(attestationObject, into: &credentialLines)
                    CSV.text(",", into: &credentialLines)
                    CSV.bytea(clientData, into: &credentialLines)
                    CSV.text("\n", into: &credentialLines)
                    if chosenCopy[index] {
                        mine.append(SoftCredential(
                            id: credentialID, privateKey: key, algorithm: .es256, rpID: rpID, userHandle: userHandle, signCount: 0,
                            backupEligible: false, backupState: false, publicKeyCOSE: cose))
                    }
                }
                results.withLock { $0[half] = (userLines, credentialLines, mine) }
            }
            for part in results.withLock({ $0 }) {
                users.write(Data(part.users))
                credentials.write(Data(part.credentials))
                kept += part.kept
            }
            start = end
        }
        try users.close()
        try credentials.close()
        guard kept.count == keep else { throw Fail(description: "key generation failed for some credentials") }
        try psql(databaseURL, "\\copy users (id, user_handle, name, display_name) FROM '\(usersURL.path)' WITH (FORMAT csv)")
        try psql(databaseURL, """
            \\copy credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state, uv_initialized, \
            transports, aaguid, attestation_format, attestation_object, client_data_json) FROM '\(credentialsURL.path)' WITH (FORMAT csv)
            """)
        try psql(databaseURL, "SELECT setval('users_id_seq', (SELECT max(id) FROM users))")
        try psql(databaseURL, "ANALYZE users; ANALYZE credentials")
        try? FileManager.default.removeItem(at: usersURL)
        try? FileManager.default.removeItem(at: credentialsURL)
        return kept
    }
}

/// A value behind a lock, for results gathered from concurrentPerform.
final class Mutexed<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
