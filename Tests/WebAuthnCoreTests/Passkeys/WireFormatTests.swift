import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

@Suite("Wire formats: JSON reader, base64")
struct WireFormatTests {
    @Test("the JSON reader agrees with JSONSerialization on valid documents")
    func validDocuments() throws {
        let documents = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e"},"f":-1.5e3,"g":"\u00e9\ud83d\ude00\n\/"}"#,
            #"  [ ]  "#, #"{}"#, #""plain""#, #"0"#, #"[1,2,[3,[4]]]"#, #"{"x":"caf\u00E9 ☕"}"#,
        ]
        for text in documents {
            let ours = try JSONReader.parse(Array(text.utf8))
            let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(ours == foundation, "\(text)")
        }
    }

    @Test("the JSON reader rejects invalid and ambiguous documents")
    func invalidDocuments() {
        let documents = [
            "", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{'a':1}", "01", "1.", ".5", "1e", "+1", "--1", "NaN",
            "tru", "nul", "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"\\udc00\"", "\"tab\there\"",
            "{} {}", "[1] x", "{\"origin\":\"https://evil.test\",\"origin\":\"https://good.test\"}",
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
        for text in documents {
            #expect(throws: JSONReader.Failure.self, "\(text)") { try JSONReader.parse(Array(text.utf8)) }
        }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("response shapes: wrong member types are refused")
    func shapes() {
        let bad = [
            #"{"id":1,"rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}"#,
            #"{"id":"AA","rawId":"AA","type":"public-key"}"#,
            #"{"id":"AA","rawId":"AA","type":"public-key","response":"x"}"#,
            #"{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":5}}"#,
            #"[]"#,
        ]
        for text in bad {
            #expect(throws: WebAuthnError(.malformedResponse), "\(text)") { try UnverifiedAuthenticationResponse(jsonBytes: Array(text.utf8)) }
        }
    }

    @Test("base64: both alphabets, optional padding, nothing else")
    func base64() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x01]
        #expect(Base64URL.encode(bytes) == "-_-_AAE")
        for text in ["-_-_AAE", "+/+/AAE", "+/+/AAE=", "-_-_AAE="] { #expect(Base64URL.decode(text) == bytes, "\(text)") }
        for text in ["-_-_AAE==", "A", "AB=C", "AB CD", "ABC*", "AAE\n", "====", "A==="] { #expect(Base64URL.decode(text) == nil, "\(text)") }
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decodeStrict("+/+/AAE") == nil && Base64URL.decodeStrict("AAE=") == nil)
        for length in 0..<40 {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64URL.decode(Base64URL.encode(data)) == data)
            #expect(Base64URL.decode(Data(data).base64EncodedString()) == data)
        }
    }

    @Test("base64url encoding: Foundation's base64 in the URL alphabet without padding, from every kind of collection")
    func base64URLEncoding() {
        for length in 0..<70 {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 151 + length * 7 + 3) }
            let expected = Data(data).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(data) == expected, "array of \(length)")
            #expect(Base64URL.encode(([0xFF] + data)[1...]) == expected, "slice of \(length)")
            #expect(Base64URL.encode(Data(data)) == expected, "Data of \(length)")
            // Not contiguous: the copying path.
            #expect(Base64URL.encode(data.lazy.map { $0 }) == expected, "lazy collection of \(length)")
        }
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode((0...255).map(UInt8.init)).utf8.allSatisfy { $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") })
    }
}

@Suite("Assertion body fast path")
struct AssertionBodyFastPathTests {
    /// What a parse produced, comparable across the two paths.
    enum Outcome: Equatable {
        case parsed(id: [UInt8], userHandle: [UInt8]?, challenge: [UInt8]?, attachment: String?)
        case failed(WebAuthnError.Code)
    }

    static func fast(_ body: [UInt8]) -> Outcome {
        do {
            let response = try UnverifiedAuthenticationResponse(jsonBytes: body)
            return .parsed(id: response.credentialID, userHandle: response.userHandle, challenge: response.challenge, attachment: nil)
        } catch { return .failed(error.code) }
    }

    /// The strict general path: JSONReader → AuthenticationResponseJSON → UnverifiedAuthenticationResponse.
    static func general(_ body: [UInt8]) -> Outcome {
        do {
            let json: AuthenticationResponseJSON
            do { json = try AuthenticationResponseJSON(jsonBytes: body) } catch { throw WebAuthnError(.malformedResponse, error.reason) }
            let response = try UnverifiedAuthenticationResponse(json)
            return .parsed(id: response.credentialID, userHandle: response.userHandle, challenge: response.challenge, attachment: nil)
        } catch let error as WebAuthnError { return .failed(error.code) } catch { return .failed(.malformedResponse) }
    }

    static func body() throws -> [UInt8] {
        var enrolled = try Fixture.enroll()
        let (options, _) = enrolled.rp.beginAuthentication(allowCredentials: [], userHandle: nil, now: Fixture.now)
        let json = try SoftAuthenticator.authenticate(options: options, credential: &enrolled.credential, knobs: AssertionKnobs(origin: Fixture.origin))
        return Array(try JSONEncoder().encode(json))
    }

    @Test("plain, escaped and iOS-style bodies read the same on both paths")
    func variants() throws {
        let plain = try Self.body()
        let text = String(decoding: plain, as: UTF8.self)
        var variants = [plain]
        // iOS JSONSerialization escapes slashes; standard base64 has them.
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        variants.append(Array(standard.utf8))
        variants.append(Array(standard.replacingOccurrences(of: "/", with: "\\/").utf8))
        variants.append(Array(text.replacingOccurrences(of: "\"type\"", with: "\"t\\u0079pe\"").utf8))
        variants.append(Array(text.replacingOccurrences(of: "{", with: " {\n ").utf8))
        variants.append(Array(text.replacingOccurrences(of: "\"clientExtensionResults\":{}", with: "\"clientExtensionResults\":{\"appid\":true,\"x\":[1,{\"y\":\"é\"}]}").utf8))
        variants.append(Array(text.replacingOccurrences(of: "\"type\":\"public-key\"", with: "\"type\":\"public-key\",\"type\":\"public-key\"").utf8))
        for variant in variants {
            #expect(Self.fast(variant) == Self.general(variant), "\(String(decoding: variant, as: UTF8.self))")
        }
        if case .parsed = Self.fast(plain) {} else { Issue.record("the plain body must parse") }
    }

    @Test("every single-byte mutation gives the same verdict on both paths")
    func mutations() throws {
        let plain = try Self.body()
        let replacements: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x2C, 0x3A, 0x20, 0x41, 0x2D, 0x00, 0xC3, 0x6E, 0x5B]
        var checked = 0
        for index in plain.indices {
            for replacement in replacements where plain[index] != replacement {
                var mutated = plain
                mutated[index] = replacement
                let fast = Self.fast(mutated), general = Self.general(mutated)
                #expect(fast == general, "byte \(index) → \(replacement)")
                checked += 1
            }
            var truncated = plain
            truncated.removeSubrange(index...)
            #expect(Self.fast(truncated) == Self.general(truncated))
        }
        #expect(checked > 1000)
    }
}
