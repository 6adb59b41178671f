import Foundation
import Testing
import WebAuthnCore

@Suite("Ceremony state coding")
struct CeremonyStateCodingTests {
    static let expiry = Date(timeIntervalSince1970: 1_795_000_000.123_456)

    static let authenticationStates = [
        AuthenticationState(
            challenge: Array(0..<32), userVerification: .required, allowCredentialIDs: [], userHandle: nil, appID: nil,
            expiresAt: expiry),
        AuthenticationState(
            challenge: Array(repeating: 0xAB, count: 16), userVerification: .preferred,
            allowCredentialIDs: [Array(repeating: 1, count: 32), Array(repeating: 2, count: 64), [3]],
            userHandle: Array(repeating: 9, count: 64), appID: "https://login.example.test/appid.json", expiresAt: expiry),
        AuthenticationState(
            challenge: [1], userVerification: .discouraged, allowCredentialIDs: [[0]], userHandle: [], appID: "",
            expiresAt: Date(timeIntervalSince1970: 0)),
    ]

    static func registrationState() throws -> RegistrationState {
        RegistrationState(
            challenge: Array(repeating: 0x42, count: 32),
            user: try UserEntity(id: Array(repeating: 7, count: 32), name: "zoë@example.test", displayName: "Zoë \u{1F511}"),
            userVerification: .required, algorithms: [-7, -8, -257, -35, -36, -37, -47], expiresAt: expiry)
    }

    @Test("authentication states round-trip exactly, and are smaller than the JSON they replace")
    func authenticationRoundTrip() throws {
        for state in Self.authenticationStates {
            let bytes = state.stateBytes
            #expect(try AuthenticationState(stateBytes: bytes) == state)
            #expect(bytes.count < (try JSONEncoder().encode(state)).count)
        }
    }

    @Test("registration states round-trip exactly")
    func registrationRoundTrip() throws {
        let state = try Self.registrationState()
        #expect(try RegistrationState(stateBytes: state.stateBytes) == state)
    }

    @Test("JSON states written by an earlier version are still read")
    func legacyJSON() throws {
        for state in Self.authenticationStates {
            #expect(try AuthenticationState(stateBytes: Array(JSONEncoder().encode(state))) == state)
        }
        let registration = try Self.registrationState()
        #expect(try RegistrationState(stateBytes: Array(JSONEncoder().encode(registration))) == registration)
    }

    @Test("damaged or foreign bytes are refused, never misread")
    func damaged() throws {
        let good = Self.authenticationStates[1].stateBytes
        var candidates: [[UInt8]] = [
            [], [0x00], [0xA0], Array("{\"challenge\":1}".utf8), [0xFF, 0xFF],
            Array(good.dropLast()),  // truncated
            try Self.registrationState().stateBytes,  // the other kind: no allowCredentialIDs member
        ]
        // Wrong version (key 0 → 2): a0+n map header, then 0x00 0x01 → 0x00 0x02.
        var wrongVersion = good
        wrongVersion[2] = 0x02
        candidates.append(wrongVersion)
        for bytes in candidates {
            #expect(throws: CeremonyStateError.self, "\(bytes.prefix(8))") { try AuthenticationState(stateBytes: bytes) }
        }
        #expect(throws: CeremonyStateError.self) { try RegistrationState(stateBytes: good) }
        // Every single-byte corruption is either refused or decodes to some state; none crashes.
        for index in good.indices {
            var flipped = good
            flipped[index] ^= 0x5A
            _ = try? AuthenticationState(stateBytes: flipped)
        }
    }
}
