// passkeyd-idp: plays an identity provider (and the app that signs in with it) so ID-token sign-in can be tried from
// a shell without a network. Development and walkthroughs only: the private key is kept in a plain file.
//
//   passkeyd-idp keygen --dir D [--alg RS256|ES256] [--kid K]
//       writes D/key.pem (PKCS#8, mode 0600) and D/jwks.json (its public JWK); RS256 by default (what Apple and
//       Google sign with; LINE uses ES256); the kid defaults to the key's RFC 7638 thumbprint
//   passkeyd-idp token --dir D --iss I --aud A --sub S --nonce N [--email E] [--ttl 300]
//       prints an ID token signed with D/key.pem (kid and alg from D/jwks.json); the nonce is written as given (hash it
//       first for providers whose rule is sha256)
//   passkeyd-idp serve --dir D [--port 8090]
//       serves D/jwks.json at http://127.0.0.1:P/jwks and a discovery document (issuer http://127.0.0.1:P) at
//       /.well-known/openid-configuration until killed
import COSECrypto
import Foundation
import IdentityTestSupport
import JOSE
import WebAuthnModel

struct UsageError: Error, CustomStringConvertible { let description: String }

let usage = """
    usage: passkeyd-idp keygen --dir D [--alg RS256|ES256] [--kid K]
           passkeyd-idp token --dir D --iss I --aud A --sub S --nonce N [--email E] [--ttl 300]
           passkeyd-idp serve --dir D [--port 8090]
    """

func parse(_ arguments: ArraySlice<String>, allowed: Set<String>) throws -> [String: String] {
    var flags: [String: String] = [:]
    var rest = arguments
    while let flag = rest.first {
        let name = String(flag.dropFirst(2))
        guard flag.hasPrefix("--"), allowed.contains(name), rest.count >= 2 else {
            throw UsageError(description: "unexpected argument \(flag)\n\(usage)")
        }
        flags[name] = rest[rest.index(after: rest.startIndex)]
        rest = rest.dropFirst(2)
    }
    return flags
}

func required(_ flags: [String: String], _ name: String) throws -> String {
    guard let value = flags[name], !value.isEmpty else { throw UsageError(description: "--\(name) is required\n\(usage)") }
    return value
}

func pem(_ der: [UInt8]) -> String {
    let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n"
}

func der(fromPEM text: String) throws -> [UInt8] {
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    guard let begin = lines.firstIndex(of: "-----BEGIN PRIVATE KEY-----"), let end = lines.firstIndex(of: "-----END PRIVATE KEY-----"),
          begin < end, let data = Data(base64Encoded: lines[(begin + 1)..<end].joined())
    else { throw UsageError(description: "key.pem is not a PEM PRIVATE KEY (PKCS#8)") }
    return Array(data)
}

/// The key in D/key.pem with the kid and alg of the first key in D/jwks.json.
func loadKey(dir: URL) throws -> TestIdentityProvider.SigningKey {
    let jwks = try JSONReader.parse(Array(try Data(contentsOf: dir.appendingPathComponent("jwks.json"))))
    guard case .array(let keys)? = jwks["keys"], let first = keys.first, case .string(let kid)? = first["kid"],
          case .string(let algName)? = first["alg"], let algorithm = JWSAlgorithm(rawValue: algName), let cose = algorithm.coseAlgorithm
    else { throw UsageError(description: "jwks.json has no key with a kid and a signature alg (run keygen)") }
    let text = try String(contentsOf: dir.appendingPathComponent("key.pem"), encoding: .utf8)
    let privateKey = try PrivateKey(pkcs8DER: try der(fromPEM: text), algorithm: cose)
    guard let published = JWK.members(of: privateKey.publicKey, keyID: kid, algorithm: algorithm),
          JSONValue.object(published) == first
    else { throw UsageError(description: "key.pem is not the key published in jwks.json") }
    return TestIdentityProvider.SigningKey(keyID: kid, algorithm: algorithm, privateKey: privateKey)
}

func keygen(_ flags: [String: String]) throws {
    let dir = URL(fileURLWithPath: try required(flags, "dir"))
    let algorithm: JWSAlgorithm
    switch (flags["alg"] ?? "RS256").uppercased() {
    case "ES256": algorithm = .es256
    case "RS256": algorithm = .rs256
    case let other: throw UsageError(description: "--alg \(other): only ES256 and RS256")
    }
    let key = try TestIdentityProvider.SigningKey.generate(algorithm, keyID: "pending")
    guard var jwk = key.jwk else { throw UsageError(description: "no JWK form for \(algorithm)") }
    let kid = flags["kid"] ?? JWK.thumbprint(jwk)
    jwk["kid"] = .string(kid)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let keyPath = dir.appendingPathComponent("key.pem").path
    guard FileManager.default.createFile(atPath: keyPath, contents: Data(pem(key.privateKey.pkcs8DER()).utf8),
                                         attributes: [.posixPermissions: 0o600])
    else { throw UsageError(description: "cannot write \(keyPath)") }
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
    try Data(JSONText.bytes(of: .object(["keys": .array([.object(jwk)])])) + [0x0A])
        .write(to: dir.appendingPathComponent("jwks.json"), options: .atomic)
    print("\(algorithm) key \(kid): \(keyPath), \(dir.appendingPathComponent("jwks.json").path)")
}

func token(_ flags: [String: String]) throws {
    let key = try loadKey(dir: URL(fileURLWithPath: try required(flags, "dir")))
    let provider = TestIdentityProvider(issuer: try required(flags, "iss"), audience: try required(flags, "aud"), keys: [key])
    guard let ttl = Int(flags["ttl"] ?? "300"), ttl > 0, ttl <= 86_400 else {
        throw UsageError(description: "--ttl takes 1...86400 seconds")
    }
    let now = Date()
    var options = TestIdentityProvider.TokenOptions()
    options.claims["exp"] = .number(now.timeIntervalSince1970.rounded(.down) + Double(ttl))
    if let email = flags["email"] {
        options.claims["email"] = .string(email)
    } else {
        options.removedClaims = ["email", "email_verified"]
    }
    print(try provider.idToken(subject: try required(flags, "sub"), nonce: try required(flags, "nonce"), now: now, options: options))
}

func serve(_ flags: [String: String]) async throws {
    let dir = URL(fileURLWithPath: try required(flags, "dir"))
    guard let port = Int(flags["port"] ?? "8090"), (0...65535).contains(port) else { throw UsageError(description: "--port 0...65535") }
    let jwks = Array(try Data(contentsOf: dir.appendingPathComponent("jwks.json")))
    let provider = TestIdentityProvider(issuer: "http://127.0.0.1:\(port)", audience: "", keys: [try loadKey(dir: dir)])
    var behaviour = TestProviderServer.Behaviour()
    behaviour.jwksBody = jwks
    behaviour.cacheControl = "public, max-age=300"
    let server = try await TestProviderServer.start(provider: provider, port: port, behaviour: behaviour)
    FileHandle.standardError.write(Data("passkeyd-idp: serving \(server.jwksURL) and \(server.discoveryURL)\n".utf8))
    try await server.waitUntilStopped()
}

do {
    let arguments = CommandLine.arguments.dropFirst()
    switch arguments.first {
    case "keygen": try keygen(try parse(arguments.dropFirst(), allowed: ["dir", "alg", "kid"]))
    case "token": try token(try parse(arguments.dropFirst(), allowed: ["dir", "iss", "aud", "sub", "nonce", "email", "ttl"]))
    case "serve": try await serve(try parse(arguments.dropFirst(), allowed: ["dir", "port"]))
    default: throw UsageError(description: usage)
    }
} catch {
    FileHandle.standardError.write(Data("passkeyd-idp: \(error)\n".utf8))
    exit(1)
}
