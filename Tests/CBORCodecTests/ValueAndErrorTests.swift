import CBORCodec
import Testing

@Suite("CBORValue accessors")
struct ValueAccessorTests {
    @Test func integerInitialiserAndIntValue() {
        #expect(CBORValue(0) == .unsigned(0))
        #expect(CBORValue(-1) == .negative(0))
        #expect(CBORValue(-1000) == .negative(999))
        #expect(CBORValue(Int64.max) == .unsigned(UInt64(Int64.max)))
        #expect(CBORValue(Int64.min) == .negative(UInt64(Int64.max)))
        for n: Int64 in [0, 1, 23, 24, -1, -24, -25, Int64.max, Int64.min, -1000, 1 << 40] {
            #expect(CBORValue(n).intValue == n)
        }
        #expect(CBORValue.unsigned(UInt64(Int64.max) + 1).intValue == nil)
        #expect(CBORValue.negative(UInt64(Int64.max) + 1).intValue == nil)
        #expect(CBORValue.negative(.max).intValue == nil)
        #expect(CBORValue.text("1").intValue == nil)
        #expect(CBORValue.float(1).intValue == nil)
    }

    @Test func typedAccessors() {
        #expect(CBORValue.bytes([1]).bytesValue == [1])
        #expect(CBORValue.text("a").bytesValue == nil)
        #expect(CBORValue.text("a").textValue == "a")
        #expect(CBORValue.bytes([]).textValue == nil)
        #expect(CBORValue.array([.null]).arrayValue == [.null])
        #expect(CBORValue.map([]).arrayValue == nil)
        #expect(CBORValue.map([CBORMapEntry(.null, .null)]).mapEntries?.count == 1)
        #expect(CBORValue.array([]).mapEntries == nil)
    }

    @Test func subscripts() throws {
        let value = try CBORDecoder.decode(hex("a4 6161 01 20 02 01 03 4161 04"))
        #expect(value[text: "a"] == .unsigned(1))
        #expect(value[int: -1] == .unsigned(2))
        #expect(value[int: 1] == .unsigned(3))
        #expect(value[.bytes([0x61])] == .unsigned(4))
        #expect(value[.text("a")] == .unsigned(1))
        #expect(value[text: "b"] == nil)
        #expect(value[int: 0] == nil)
        #expect(value[int: -2] == nil)
        #expect(CBORValue.array([.unsigned(1)])[int: 0] == nil)
        #expect(CBORValue.null[text: "a"] == nil)
    }

    @Test func mapEntriesKeepInputOrder() throws {
        let value = try CBORDecoder.decode(hex("a3 03 00 01 00 02 00"))
        #expect(value.mapEntries?.map(\.key) == [.unsigned(3), .unsigned(1), .unsigned(2)])
    }

    @Test func dataModelEquality() {
        #expect(CBORValue.float(0.0) != .float(-0.0))
        #expect(CBORValue.float(.nan) == .float(.nan))
        #expect(CBORValue.text("\u{e9}") != .text("e\u{301}"))
        #expect(CBORValue.unsigned(1) != .float(1))
        #expect(CBORValue.unsigned(0) != .negative(0))
        #expect(Set<CBORValue>([.text("a"), .text("a"), .bytes([0x61])]).count == 2)
    }
}

@Suite("CBORError")
struct CBORErrorTests {
    @Test func equalityComparesOnlyTheCode() {
        #expect(CBORError(code: .truncated, reason: "x") == CBORError(code: .truncated, reason: "y"))
        #expect(CBORError(code: .truncated) != CBORError(code: .malformed))
        #expect(CBORError.truncated == CBORError(code: .truncated, reason: "anything"))
    }

    @Test func descriptionIsGenericAndDebugDescriptionHasDetail() {
        let error = CBORError(code: .duplicateMapKey, reason: "secret detail")
        #expect(error.description == "CBORError.duplicateMapKey")
        #expect(!error.description.contains("secret"))
        #expect(String(reflecting: error).contains("secret detail"))
        #expect(CBORError.Code.nonMinimalEncoding.description == "nonMinimalEncoding")
    }

    @Test func thrownErrorsCarryAnOffset() {
        do {
            _ = try CBORDecoder.decode(hex("83 01 02 ff"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.reason.contains("byte 3"))
        }
    }

    @Test func expectThrowsWorksWithCodes() {
        #expect(throws: CBORError(code: .truncated)) { try CBORDecoder.decode([0x82, 0x01]) }
        #expect(throws: CBORError.duplicateMapKey) { try CBORDecoder.decode(hex("a2 00 00 00 00")) }
    }
}
