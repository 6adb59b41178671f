import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel

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
}
