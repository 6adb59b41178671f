import CBORCodec
import Testing

/// One RFC 8949 Appendix A example.
struct Vector: Sendable, CustomTestStringConvertible {
    let hex: String
    let value: CBORValue
    /// Whether `hex` is also what the deterministic encoder must produce.
    let canonical: Bool

    init(_ hex: String, _ value: CBORValue, canonical: Bool = true) {
        self.hex = hex
        self.value = value
        self.canonical = canonical
    }

    var testDescription: String { hex }
}

@Suite("RFC 8949 Appendix A")
struct RFC8949VectorTests {
    static let integers: [Vector] = [
        Vector("00", .unsigned(0)),
        Vector("01", .unsigned(1)),
        Vector("0a", .unsigned(10)),
        Vector("17", .unsigned(23)),
        Vector("1818", .unsigned(24)),
        Vector("1819", .unsigned(25)),
        Vector("1864", .unsigned(100)),
        Vector("18ff", .unsigned(255)),
        Vector("190100", .unsigned(256)),
        Vector("1903e8", .unsigned(1000)),
        Vector("19ffff", .unsigned(65535)),
        Vector("1a00010000", .unsigned(65536)),
        Vector("1a000f4240", .unsigned(1_000_000)),
        Vector("1b0000000100000000", .unsigned(1 << 32)),
        Vector("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        Vector("1bffffffffffffffff", .unsigned(UInt64.max)),
        Vector("c249010000000000000000", .tagged(2, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        Vector("3bffffffffffffffff", .negative(UInt64.max)),  // -(2^64)
        Vector("c349010000000000000000", .tagged(3, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        Vector("20", CBORValue(-1)),
        Vector("29", CBORValue(-10)),
        Vector("3863", CBORValue(-100)),
        Vector("3903e7", CBORValue(-1000)),
        Vector("3b7fffffffffffffff", CBORValue(Int64.min)),
    ]

    static let floats: [Vector] = [
        Vector("f90000", .float(0.0)),
        Vector("f98000", .float(-0.0)),
        Vector("f93c00", .float(1.0)),
        Vector("fb3ff199999999999a", .float(1.1)),
        Vector("f93e00", .float(1.5)),
        Vector("f97bff", .float(65504.0)),
        Vector("fa47c35000", .float(100000.0)),
        Vector("fa7f7fffff", .float(3.4028234663852886e+38)),
        Vector("fb7e37e43c8800759c", .float(1.0e+300)),
        Vector("f90001", .float(5.960464477539063e-8)),
        Vector("f90400", .float(0.00006103515625)),
        Vector("f9c400", .float(-4.0)),
        Vector("fbc010666666666666", .float(-4.1)),
        Vector("f97c00", .float(.infinity)),
        Vector("f9fc00", .float(-.infinity)),
        Vector("fa7f800000", .float(.infinity), canonical: false),
        Vector("faff800000", .float(-.infinity), canonical: false),
        Vector("fb7ff0000000000000", .float(.infinity), canonical: false),
        Vector("fbfff0000000000000", .float(-.infinity), canonical: false),
        Vector("fa3f800000", .float(1.0), canonical: false),
        Vector("fb3ff0000000000000", .float(1.0), canonical: false),
    ]

    static let simpleAndTagged: [Vector] = [
        Vector("f4", .bool(false)),
        Vector("f5", .bool(true)),
        Vector("f6", .null),
        Vector("f7", .undefined),
        Vector("f0", .simple(16)),
        Vector("e0", .simple(0)),
        Vector("f3", .simple(19)),
        Vector("f820", .simple(32)),
        Vector("f8ff", .simple(255)),
        Vector("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
        Vector("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
        Vector("c1fb41d452d9ec200000", .tagged(1, .float(1_363_896_240.5))),
        Vector("d74401020304", .tagged(23, .bytes([1, 2, 3, 4]))),
        Vector("d818456449455446", .tagged(24, .bytes([0x64, 0x49, 0x45, 0x54, 0x46]))),
        Vector(
            "d82076687474703a2f2f7777772e6578616d706c652e636f6d",
            .tagged(32, .text("http://www.example.com"))
        ),
        // Tags 6...20 in the initial byte (libcbor 0.8.0's stream decoder rejects these itself).
        Vector("c600", .tagged(6, .unsigned(0))),
        Vector("d4f6", .tagged(20, .null)),
        Vector("d9d9f700", .tagged(55799, .unsigned(0))),
        Vector("c1c200", .tagged(1, .tagged(2, .unsigned(0)))),
    ]

    static let strings: [Vector] = [
        Vector("40", .bytes([])),
        Vector("4401020304", .bytes([1, 2, 3, 4])),
        Vector("60", .text("")),
        Vector("6161", .text("a")),
        Vector("6449455446", .text("IETF")),
        Vector("62225c", .text("\"\\")),
        Vector("62c3bc", .text("\u{00fc}")),
        Vector("63e6b0b4", .text("\u{6c34}")),
        Vector("64f0908591", .text("\u{10151}")),
        Vector("6a666f6f00626172e282ac", .text("foo\u{0}bar\u{20ac}")),
    ]

    static let containers: [Vector] = [
        Vector("80", .array([])),
        Vector("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        Vector(
            "8301820203820405",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        ),
        Vector(
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
            .array((1...25).map { CBORValue.unsigned(UInt64($0)) })
        ),
        Vector("a0", .map([])),
        Vector(
            "a201020304",
            .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])
        ),
        Vector(
            "a26161016162820203",
            .map([
                CBORMapEntry(.text("a"), .unsigned(1)),
                CBORMapEntry(.text("b"), .array([.unsigned(2), .unsigned(3)])),
            ])
        ),
        Vector(
            "826161a161626163",
            .array([.text("a"), .map([CBORMapEntry(.text("b"), .text("c"))])])
        ),
        Vector(
            "a56161614161626142616361436164614461656145",
            .map(["a", "b", "c", "d", "e"].map { CBORMapEntry(.text($0), .text($0.uppercased())) })
        ),
    ]

    /// Indefinite-length forms decode to the same values as their definite counterparts.
    static let indefinite: [Vector] = [
        Vector("5f42010243030405ff", .bytes([1, 2, 3, 4, 5]), canonical: false),
        Vector("5fff", .bytes([]), canonical: false),
        Vector("7f657374726561646d696e67ff", .text("streaming"), canonical: false),
        Vector("7fff", .text(""), canonical: false),
        Vector("9fff", .array([]), canonical: false),
        Vector(
            "9f018202039f0405ffff",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]),
            canonical: false
        ),
        Vector(
            "9f01820203820405ff",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]),
            canonical: false
        ),
        Vector(
            "83018202039f0405ff",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]),
            canonical: false
        ),
        Vector(
            "83019f0203ff820405",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]),
            canonical: false
        ),
        Vector(
            "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
            .array((1...25).map { CBORValue.unsigned(UInt64($0)) }),
            canonical: false
        ),
        Vector(
            "bf61610161629f0203ffff",
            .map([
                CBORMapEntry(.text("a"), .unsigned(1)),
                CBORMapEntry(.text("b"), .array([.unsigned(2), .unsigned(3)])),
            ]),
            canonical: false
        ),
        Vector(
            "826161bf61626163ff",
            .array([.text("a"), .map([CBORMapEntry(.text("b"), .text("c"))])]),
            canonical: false
        ),
        Vector(
            "bf6346756ef563416d7421ff",
            .map([CBORMapEntry(.text("Fun"), .bool(true)), CBORMapEntry(.text("Amt"), CBORValue(-2))]),
            canonical: false
        ),
        Vector("bfff", .map([]), canonical: false),
    ]

    @Test("decode", arguments: definite + indefinite)
    func decodes(_ vector: Vector) throws {
        let decoded = try CBORDecoder.decode(hex(vector.hex))
        #expect(decoded == vector.value)
    }

    static let definite = integers + floats + simpleAndTagged + strings + containers

    @Test("deterministic encode", arguments: definite.filter(\.canonical))
    func encodes(_ vector: Vector) {
        #expect(hexString(CBOREncoder.encode(vector.value)) == vector.hex)
    }

    @Test("round trip through the encoder", arguments: definite + indefinite)
    func roundTrips(_ vector: Vector) throws {
        let encoded = CBOREncoder.encode(vector.value)
        #expect(try CBORDecoder.decode(encoded) == vector.value)
        let indefinite = CBOREncoder.encode(vector.value, indefiniteLengthMaps: true)
        #expect(try CBORDecoder.decode(indefinite) == vector.value)
    }

    @Test func nanDecodesAndEncodesCanonically() throws {
        for input in ["f97e00", "fa7fc00000", "fb7ff8000000000000"] {
            let value = try CBORDecoder.decode(hex(input))
            guard case .float(let number) = value else {
                Issue.record("\(input) did not decode to a float")
                continue
            }
            #expect(number.isNaN)
            #expect(hexString(CBOREncoder.encode(value)) == "f97e00")
        }
    }

    @Test func halfPrecisionSubnormalsKeepTheirValue() throws {
        // libcbor 0.8.0's cbor_encode_half truncates non-power-of-two subnormals; the encoder
        // must notice and fall back to single precision.
        for multiple in [1.0, 2.0, 3.0, 5.0, 1023.0] {
            let number = multiple * 0x1p-24
            let encoded = CBOREncoder.encode(.float(number))
            #expect(try CBORDecoder.decode(encoded) == .float(number), "\(number) → \(hexString(encoded))")
            #expect(try CBORDecoder.decode(CBOREncoder.encode(.float(-number))) == .float(-number))
        }
        #expect(hexString(CBOREncoder.encode(.float(0x1p-24))) == "f90001")
        #expect(hexString(CBOREncoder.encode(.float(3 * 0x1p-24))) == "fa34400000")
    }

    @Test func indefiniteLengthMapEncoding() {
        let value = CBORValue.map([
            CBORMapEntry(.text("a"), .unsigned(1)),
            CBORMapEntry(.text("b"), .map([CBORMapEntry(.unsigned(1), .array([]))])),
        ])
        #expect(hexString(CBOREncoder.encode(value, indefiniteLengthMaps: true)) == "bf6161016162bf0180ffff")
        #expect(hexString(CBOREncoder.encode(value)) == "a26161016162a10180")
        #expect(hexString(CBOREncoder.encode(.map([]), indefiniteLengthMaps: true)) == "bfff")
    }

    @Test func attestationObjectRoundTrip() throws {
        let value = Fixtures.attestationObject
        for encoded in [CBOREncoder.encode(value), CBOREncoder.encode(value, indefiniteLengthMaps: true)] {
            let decoded = try CBORDecoder.decode(encoded)
            #expect(decoded == value)
            #expect(decoded[text: "fmt"]?.textValue == "packed")
            #expect(decoded[text: "attStmt"]?[text: "alg"]?.intValue == -7)
            #expect(decoded[text: "authData"]?.bytesValue == Fixtures.authData)
        }
    }

    @Test func coseKeyIs77BytesAndCanonical() throws {
        let encoded = CBOREncoder.encode(Fixtures.coseKey)
        #expect(encoded.count == 77)
        let decoded = try CBORDecoder.decode(encoded, limits: .coseKey)
        #expect(decoded == Fixtures.coseKey)
        #expect(decoded[int: 1]?.intValue == 2)
        #expect(decoded[int: 3]?.intValue == -7)
        #expect(decoded[int: -1]?.intValue == 1)
        #expect(decoded[int: -2]?.bytesValue?.count == 32)
        #expect(decoded[int: -3]?.bytesValue == Array(32..<64))
        #expect(decoded[int: 4] == nil)
    }
}
