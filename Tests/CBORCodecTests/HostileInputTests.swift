import CBORCodec
import Testing

@Suite("Hostile input")
struct HostileInputTests {
    @Test("huge declared counts and lengths fail before any allocation", arguments: [
        "9affffffff",  // array declaring 4 294 967 295 items
        "9a10000000",  // array declaring 2^28 items
        "9bffffffffffffffff",  // array declaring 2^64-1 items (size_t → Int would be -1)
        "9b8000000000000000",  // 2^63
        "5b0000001000000000",  // byte string of 64 GiB
        "5bffffffffffffffff",
        "7b0000001000000000",  // text string of 64 GiB
        "5affffffff00",
        "baffffffff",  // map declaring 2^32-1 entries
        "bb0000000100000000",  // map declaring 2^32 entries
        "bbffffffffffffffff",
        "a2010203",  // map needs 4 items, 3 bytes remain
        "99ffff" + String(repeating: "00", count: 100),
        "8299ffff00",  // nested
        "9f9affffffffff",  // inside an indefinite array
    ])
    func hugeDeclaredSizes(_ input: String) {
        #expect(errorCode(hex(input)) == .truncated)
    }

    @Test func declaredCountEqualToRemainingIsFine() throws {
        // An array of n one-byte items with exactly n bytes left is accepted...
        #expect(try CBORDecoder.decode(hex("8400000000")) == .array(Array(repeating: .unsigned(0), count: 4)))
        // ...and one byte less is not.
        #expect(errorCode(hex("84000000")) == .truncated)
        // A map needs at least two bytes per entry.
        #expect(errorCode(hex("a2000000")) == .truncated)
    }

    @Test func deepNestingIsRejectedWithoutRecursion() {
        let arrays = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        #expect(errorCode(arrays) == .tooDeep)
        let indefinite = [UInt8](repeating: 0x9F, count: 10_000)
        #expect(errorCode(indefinite) == .tooDeep)
        let maps = [UInt8]((0..<10_000).flatMap { _ in [UInt8(0xA1), 0x00] }) + [0x00]
        #expect(errorCode(maps) == .tooDeep)
        let tags = [UInt8](repeating: 0xC6, count: 10_000) + [0x00]
        #expect(errorCode(tags) == .tooDeep)
        let bigTags = [UInt8]((0..<5_000).flatMap { _ in [UInt8(0xD8), 0x40] }) + [0x00]
        #expect(errorCode(bigTags) == .tooDeep)
    }

    @Test func depthLimitIsExact() throws {
        let limits = CBORLimits(maxDepth: 16)
        let sixteen = [UInt8](repeating: 0x81, count: 16) + [0x00]
        _ = try CBORDecoder.decode(sixteen, limits: limits)
        let seventeen = [UInt8](repeating: 0x81, count: 17) + [0x00]
        #expect(errorCode(seventeen, limits: limits) == .tooDeep)
        #expect(errorCode(hex("80"), limits: CBORLimits(maxDepth: 0)) == .tooDeep)
        #expect(try CBORDecoder.decode(hex("00"), limits: CBORLimits(maxDepth: 0)) == .unsigned(0))
    }

    @Test("every proper prefix of an attestation object is truncated", arguments: [false, true])
    func everyPrefixIsTruncated(indefiniteMaps: Bool) throws {
        let full = CBOREncoder.encode(Fixtures.attestationObject, indefiniteLengthMaps: indefiniteMaps)
        _ = try CBORDecoder.decode(full)
        for length in 0..<full.count {
            let code = errorCode(Array(full[..<length]))
            #expect(code == .truncated, "prefix of \(length) bytes gave \(String(describing: code))")
        }
    }

    @Test func truncatedScalars() {
        let inputs = [
            "18", "19", "1900", "1a000000", "1b00000000000000", "38", "3b", "41", "5801", "62c3", "f8", "f9",
            "fa0000", "fb", "d8", "c1", "81", "a1", "a101", "9f", "bf01", "5f", "5f41", "7f6161",
        ]
        for input in inputs {
            #expect(errorCode(hex(input)) == .truncated, "\(input)")
        }
    }

    @Test func trailingBytes() throws {
        #expect(errorCode(hex("0000")) == .trailingBytes)
        #expect(errorCode(hex("a0ff")) == .trailingBytes)
        #expect(errorCode(hex("9f01ffff")) == .trailingBytes)
        #expect(errorCode(CBOREncoder.encode(Fixtures.coseKey) + [0x00]) == .trailingBytes)
        #expect(throws: CBORError(code: .trailingBytes)) { try CBORDecoder.decode(Fixtures.authData[55...]) }
    }

    @Test("invalid UTF-8 in text strings", arguments: [
        "62c328",  // bad continuation
        "61ff",
        "61c0",  // lone lead byte
        "62c0af",  // overlong '/'
        "63eda080",  // UTF-16 surrogate
        "64f4908080",  // above U+10FFFF
        "7f61ffff",  // invalid chunk
        "7f61c361bcff",  // a character split across chunks
        "a161ff00",  // as a map key
    ])
    func invalidUTF8(_ input: String) {
        #expect(errorCode(hex(input)) == .invalidUTF8)
    }

    @Test("duplicate map keys", arguments: [
        "a201010102",
        "a2616101616102",
        "bf01010102ff",
        "a220002001",
        "a282010200820102 01",
        "a3 01 00 6161 00 01 00",
        "a2 c100 00 c100 01",
        "a1 00 a2 0000 0000",  // nested map
    ])
    func duplicateKeys(_ input: String) {
        #expect(errorCode(hex(input)) == .duplicateMapKey)
    }

    @Test func duplicateKeysInLargeMaps() throws {
        var entries = (0..<40).map { CBORMapEntry(.unsigned(UInt64($0)), .null) }
        _ = try CBORDecoder.decode(CBOREncoder.encode(.map(entries)))
        entries.append(CBORMapEntry(.unsigned(17), .bool(true)))
        #expect(errorCode(CBOREncoder.encode(.map(entries))) == .duplicateMapKey)
        #expect(errorCode(CBOREncoder.encode(.map(entries), indefiniteLengthMaps: true)) == .duplicateMapKey)
    }

    @Test func distinctKeysUnderTheDataModel() throws {
        // 1 and -1, 0.0 and -0.0, NFC "é" and NFD "e\u{301}", text "a" and bytes 'a' are all different keys.
        _ = try CBORDecoder.decode(hex("a2 01 00 20 00"))
        _ = try CBORDecoder.decode(hex("a2 f90000 00 f98000 00"))
        let value = try CBORDecoder.decode(hex("a2 62c3a9 01 6365cc81 02"))
        #expect(value[text: "\u{e9}"] == .unsigned(1))
        #expect(value[text: "e\u{301}"] == .unsigned(2))
        _ = try CBORDecoder.decode(hex("a2 6161 00 4161 00"))
    }

    @Test("stray or misplaced break", arguments: ["ff", "81ff", "a1ff00", "a101ff", "bf01ff", "c1ff", "82 01 ff"])
    func strayBreak(_ input: String) {
        #expect(errorCode(hex(input)) == .malformed)
    }

    @Test("indefinite-length string with a bad chunk", arguments: [
        "5f01ff",  // integer chunk
        "5f6161ff",  // text chunk in a byte string
        "7f4161ff",  // byte chunk in a text string
        "5f5fffff",  // nested indefinite byte string
        "7f7fffff",
        "7f9fffff",  // array chunk
        "5fa0ff",
        "5fc14100ff",  // tagged chunk
        "5ff6ff",
    ])
    func badChunks(_ input: String) {
        #expect(errorCode(hex(input)) == .malformed)
    }

    @Test("reserved and unassigned initial bytes", arguments: [
        0x1C, 0x1D, 0x1E, 0x1F, 0x3C, 0x3D, 0x3E, 0x3F, 0x5C, 0x5D, 0x5E, 0x7C, 0x7D, 0x7E,
        0x9C, 0x9D, 0x9E, 0xBC, 0xBD, 0xBE, 0xDC, 0xDD, 0xDE, 0xDF, 0xFC, 0xFD, 0xFE,
    ] as [UInt8])
    func reservedAdditionalInformation(_ initial: UInt8) {
        #expect(errorCode([initial, 0, 0, 0, 0, 0, 0, 0, 0]) == .malformed)
        #expect(errorCode([0x82, 0x00, initial]) == .malformed)
    }

    @Test func twoByteSimpleBelow32IsMalformed() {
        for simple in UInt8(0)..<32 {
            #expect(errorCode([0xF8, simple]) == .malformed)
        }
    }

    @Test func tooManyItems() throws {
        let limits = CBORLimits(maxItems: 5)
        _ = try CBORDecoder.decode(hex("8400000000"), limits: limits)  // 5 items
        #expect(errorCode(hex("850000000000"), limits: limits) == .tooManyItems)  // rejected at the header
        #expect(errorCode(hex("9f0000000000ff"), limits: limits) == .tooManyItems)
        #expect(errorCode(hex("a3000000000000"), limits: limits) == .tooManyItems)
        #expect(errorCode(hex("5f4100410041004100410041 00ff"), limits: limits) == .tooManyItems)
        // Default limit: 9000 zeros in one array.
        let big = [0x99, 0x23, 0x28] + [UInt8](repeating: 0, count: 9000)
        #expect(errorCode(big) == .tooManyItems)
        #expect(try CBORDecoder.decode(big, limits: CBORLimits(maxItems: 9001)).arrayValue?.count == 9000)
    }

    @Test func stringTooLong() throws {
        let limits = CBORLimits(maxStringBytes: 4)
        _ = try CBORDecoder.decode(hex("4401020304"), limits: limits)
        #expect(errorCode(hex("450102030405"), limits: limits) == .stringTooLong)
        #expect(errorCode(hex("656162636465"), limits: limits) == .stringTooLong)
        #expect(errorCode(hex("5f43010203420405ff"), limits: limits) == .stringTooLong)
        #expect(errorCode(hex("7f63616263626465ff"), limits: limits) == .stringTooLong)
        _ = try CBORDecoder.decode(hex("7f626162626364ff"), limits: limits)
        let big = [0x5A, 0x00, 0x01, 0x00, 0x01] + [UInt8](repeating: 7, count: 65537)
        #expect(errorCode(big) == .stringTooLong)
    }

    @Test func inputTooLarge() throws {
        let limits = CBORLimits(maxInputBytes: 4)
        _ = try CBORDecoder.decode(hex("43010203"), limits: limits)
        #expect(errorCode(hex("4401020304"), limits: limits) == .inputTooLarge)
        #expect(throws: CBORError.inputTooLarge) {
            try CBORDecoder.decodePrefix(hex("4401020304")[...], limits: limits)
        }
        let twoMiB = [0x5A, 0x00, 0x20, 0x00, 0x00] + [UInt8](repeating: 0, count: 2 << 20)
        #expect(errorCode(twoMiB) == .inputTooLarge)
    }

    @Test func emptyInputIsTruncated() {
        #expect(errorCode([]) == .truncated)
        #expect(throws: CBORError.truncated) { try CBORDecoder.decodePrefix([UInt8]()[...]) }
    }
}

@Suite("Strict modes")
struct StrictModeTests {
    static let noIndefinite = CBORLimits(allowIndefiniteLength: false)
    static let minimal = CBORLimits(requireMinimalIntegers: true)
    static let minimalDefinite = CBORLimits(allowIndefiniteLength: false, requireMinimalIntegers: true)

    @Test("indefinite lengths can be refused", arguments: ["9fff", "bfff", "5fff", "7fff", "819f00ff", "a1 00 bfff"])
    func indefiniteRefused(_ input: String) throws {
        #expect(errorCode(hex(input), limits: Self.noIndefinite) == .indefiniteLengthNotAllowed)
        _ = try CBORDecoder.decode(hex(input))
    }

    @Test("non-minimal encodings are refused when required", arguments: [
        "1800", "1817", "190017", "1900ff", "1a0000ffff", "1a00000000", "1b00000000ffffffff", "1b0000000000000000",
        "3817", "3900ff", "3a0000ffff", "3b00000000ffffffff",
        "580161", "59000161", "780161", "7a0000000161",
        "9800", "990000", "b800", "9a00000000",
        "d80100", "d9000100", "db000000000000000100",
        "5f580161ff",  // non-minimal chunk length
        "82 00 1800",  // nested
        "a1 1801 00",  // as map key
    ])
    func nonMinimalRefused(_ input: String) throws {
        #expect(errorCode(hex(input), limits: Self.minimal) == .nonMinimalEncoding)
        _ = try CBORDecoder.decode(hex(input))  // accepted by default
    }

    @Test("minimal encodings at every width boundary are accepted", arguments: [
        "00", "17", "1818", "18ff", "190100", "19ffff", "1a00010000", "1affffffff", "1b0000000100000000",
        "1bffffffffffffffff", "20", "37", "3818", "39ffff", "3b0000000100000000",
        "5818" + String(repeating: "00", count: 24), "57" + String(repeating: "00", count: 23),
        "c000", "d7 00", "d818 00", "d9ffff 00", "80", "a0",
    ])
    func minimalAccepted(_ input: String) throws {
        _ = try CBORDecoder.decode(hex(input), limits: Self.minimal)
    }

    @Test func coseKeyLimits() throws {
        _ = try CBORDecoder.decode(CBOREncoder.encode(Fixtures.coseKey), limits: .coseKey)
        #expect(errorCode(CBOREncoder.encode(Fixtures.coseKey, indefiniteLengthMaps: true), limits: .coseKey)
            == .indefiniteLengthNotAllowed)
        #expect(errorCode(hex("a1 01 1802"), limits: .coseKey) == .nonMinimalEncoding)
        let longString = hex("a1 01 59 1001") + [UInt8](repeating: 0, count: 4097)
        #expect(errorCode(longString, limits: .coseKey) == .stringTooLong)
        #expect(errorCode(hex("8181818181 00"), limits: .coseKey) == .tooDeep)
        #expect(errorCode(CBOREncoder.encode(.array(Array(repeating: .null, count: 64))), limits: .coseKey)
            == .tooManyItems)
    }

    @Test func encoderOutputPassesStrictDecoding() throws {
        let values: [CBORValue] = [
            .unsigned(23), .unsigned(24), .unsigned(255), .unsigned(256), .unsigned(65535), .unsigned(65536),
            .unsigned(UInt64(UInt32.max)), .unsigned(UInt64(UInt32.max) + 1), .unsigned(.max),
            CBORValue(-24), CBORValue(-25), CBORValue(-256), CBORValue(-257), .negative(.max),
            .bytes(Array(repeating: 1, count: 300)), .text(String(repeating: "x", count: 65_000)),
            .tagged(24, .null), .tagged(65536, .null), Fixtures.coseKey, Fixtures.attestationObject,
        ]
        for value in values {
            #expect(try CBORDecoder.decode(CBOREncoder.encode(value), limits: Self.minimalDefinite) == value)
        }
    }
}

@Suite("decodePrefix")
struct DecodePrefixTests {
    @Test func findsTheEndOfACoseKeyInsideAuthenticatorData() throws {
        let extensions = CBOREncoder.encode(.map([CBORMapEntry(.text("credProtect"), .unsigned(2))]))
        let authData = Fixtures.authData + extensions
        let keyStart = 32 + 1 + 4 + 16 + 2 + 16
        let (key, length) = try CBORDecoder.decodePrefix(authData[keyStart...], limits: .coseKey)
        #expect(length == 77)
        #expect(key == Fixtures.coseKey)
        let (ext, extLength) = try CBORDecoder.decodePrefix(authData[(keyStart + length)...])
        #expect(extLength == extensions.count)
        #expect(ext[text: "credProtect"]?.intValue == 2)
    }

    @Test func lengthIsRelativeToTheSlice() throws {
        let bytes = hex("ffff 83010203 00 00")
        let (value, length) = try CBORDecoder.decodePrefix(bytes[2...])
        #expect(length == 4)
        #expect(value.arrayValue?.count == 3)
        let (_, scalarLength) = try CBORDecoder.decodePrefix(bytes[6...])
        #expect(scalarLength == 1)
        #expect(try CBORDecoder.decode(bytes[2..<6]) == value)
    }

    @Test func prefixOfIndefiniteItems() throws {
        let bytes = hex("9f01ff ff") + hex("bf6161 01ff 00")
        #expect(try CBORDecoder.decodePrefix(bytes[...]).length == 3)
        #expect(try CBORDecoder.decodePrefix(bytes[4...]).length == 5)
        #expect(throws: CBORError.truncated) { try CBORDecoder.decodePrefix(bytes[..<2]) }
    }
}
