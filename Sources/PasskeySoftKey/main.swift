// passkeyd-softkey: a software passkey for trying passkeyd from a shell (development and smoke tests only; the
// private key is kept in a plain file).
//
//   passkeyd-softkey register --key FILE [--origin URL] [--algorithm ES256] [--nickname NAME] [--up 0] [--uv 0]
//       reads a registration begin response ({"publicKey": …}) on stdin, creates a credential, saves it to FILE,
//       prints a registration finish body ({"credential": …}) on stdout. `--up 0 --uv 0` answers as a passkey
//       provider does a conditional create (an automatic upgrade): without user presence or verification. The
//       client extension results answer what the options ask: credProps.rk true, prf.enabled true,
//       largeBlob.supported false.
//   passkeyd-softkey sign --key FILE [--origin URL] [--uv 0]
//       reads an authentication begin response on stdin, signs with the credential in FILE (updating its counter),
//       prints an authentication finish body on stdout
//   passkeyd-softkey storekit transaction|renewal|notification --certs DIR …
//       prints StoreKit-shaped JWS signed with Apple's published TEST leaf key (StoreKit.swift)
//   passkeyd-softkey appattest device|attest|assert --device FILE …
//       a software App Attest device with its own test root (AppAttest.swift)
//
// The origin defaults to http://localhost:8080, passkeyd's default allowed origin.
import COSECrypto
import Foundation
import WebAuthnModel
import WebAuthnTestSupport

struct UsageError: Error, CustomStringConvertible { let description: String }

struct Envelope<T: Decodable>: Decodable { let publicKey: T }
struct RegistrationBody: Encodable { let credential: RegistrationResponseJSON; let nickname: String? }
struct AuthenticationBody: Encodable { let credential: AuthenticationResponseJSON }

func options<T: Decodable>(_ type: T.Type, from input: Data) throws -> T {
    if let wrapped = try? JSONDecoder().decode(Envelope<T>.self, from: input) { return wrapped.publicKey }
    do {
        return try JSONDecoder().decode(T.self, from: input)
    } catch {
        throw UsageError(description: "stdin is not the begin response: \(String(decoding: input.prefix(300), as: UTF8.self))")
    }
}

func run() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "storekit" { return try storeKit(Array(arguments.dropFirst())) }
    if arguments.first == "appattest" { return try appAttest(Array(arguments.dropFirst())) }
    guard let command = arguments.first, ["register", "sign"].contains(command) else {
        throw UsageError(description: "usage: passkeyd-softkey register|sign --key FILE [--origin URL] [--algorithm ES256] [--nickname NAME]")
    }
    arguments.removeFirst()
    var flags: [String: String] = [:]
    while let flag = arguments.first {
        guard flag.hasPrefix("--"), arguments.count >= 2 else { throw UsageError(description: "unexpected argument \(flag)") }
        flags[String(flag.dropFirst(2))] = arguments[1]
        arguments.removeFirst(2)
    }
    guard let keyPath = flags["key"] else { throw UsageError(description: "--key FILE is required") }
    let origin = flags["origin"] ?? "http://localhost:8080"
    func flag(_ name: String) throws -> Bool {
        switch flags[name] {
        case nil, "1"?: return true
        case "0"?: return false
        case let other?: throw UsageError(description: "--\(name) takes 0 or 1, got \(other)")
        }
    }
    let input = FileHandle.standardInput.readDataToEndOfFile()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let output: Data
    var credential: SoftCredential
    switch command {
    case "register":
        var knobs = RegistrationKnobs(origin: origin)
        knobs.userPresent = try flag("up")
        knobs.userVerified = try flag("uv")
        if let name = flags["algorithm"] {
            guard let algorithm = COSEAlgorithm.allSupported.first(where: { $0.description.caseInsensitiveCompare(name) == .orderedSame })
            else { throw UsageError(description: "unknown algorithm \(name)") }
            knobs.algorithm = algorithm
        }
        let creation = try options(CreationOptionsJSON.self, from: input)
        let requested = creation.extensions ?? [:]
        if requested["credProps"] != nil { knobs.client.clientExtensionResults["credProps"] = .object(["rk": .bool(true)]) }
        if requested["prf"] != nil { knobs.client.clientExtensionResults["prf"] = .object(["enabled": .bool(true)]) }
        if requested["largeBlob"] != nil { knobs.client.clientExtensionResults["largeBlob"] = .object(["supported": .bool(false)]) }
        let (response, created) = try SoftAuthenticator.register(options: creation, knobs: knobs)
        credential = created
        output = try encoder.encode(RegistrationBody(credential: response, nickname: flags["nickname"]))
    default:
        credential = try JSONDecoder().decode(SoftCredentialFile.self, from: Data(contentsOf: URL(fileURLWithPath: keyPath))).credential()
        var knobs = AssertionKnobs(origin: origin)
        knobs.counterIncrement = 1
        knobs.userVerified = try flag("uv")
        let response = try SoftAuthenticator.authenticate(
            options: try options(RequestOptionsJSON.self, from: input), credential: &credential, knobs: knobs)
        output = try encoder.encode(AuthenticationBody(credential: response))
    }
    try encoder.encode(SoftCredentialFile(credential)).write(to: URL(fileURLWithPath: keyPath), options: .atomic)
    FileHandle.standardOutput.write(output)
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("passkeyd-softkey: \(error)\n".utf8))
    exit(1)
}
