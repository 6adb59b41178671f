import COSECrypto
import Testing

/// AES-256-GCM: the AES-256 known answers of the GCM specification (McGrew & Viega, test cases 13-16, also in NIST's
/// GCM validation set), the `nonce ‖ ciphertext ‖ tag` format, and every way a box can fail to open.
@Suite("AEAD (AES-256-GCM)")
struct AEADTests {
    typealias S = COSETestSupport

    static let key15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let nonce15 = "cafebabefacedbaddecaf888"
    static let plaintext15 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"

    @Test("GCM spec test cases 13-16 (AES-256)", arguments: [
        // key, nonce, plaintext, associated data, ciphertext ‖ tag
        (String(repeating: "00", count: 32), String(repeating: "00", count: 12), "", "",
         "530f8afbc74536b9a963b4f1c4cb738b"),
        (String(repeating: "00", count: 32), String(repeating: "00", count: 12), String(repeating: "00", count: 16), "",
         "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"),
        (key15, nonce15, plaintext15, "",
         "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838"
            + "c5f61e6393ba7a0abcc9f662898015ad" + "b094dac5d93471bdec1a502270e3cc6c"),
        (key15, nonce15, String(plaintext15.prefix(120)), "feedfacedeadbeeffeedfacedeadbeefabaddad2",
         "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838"
            + "c5f61e6393ba7a0abcc9f662" + "76fc6ece0f4e1768cddf8853bb2d551b"),
    ])
    func knownAnswers(_ key: String, _ nonce: String, _ plaintext: String, _ aad: String, _ expected: String) throws {
        let key = try #require(S.bytes(hex: key)), nonce = try #require(S.bytes(hex: nonce))
        let plaintext = try #require(S.bytes(hex: plaintext)), aad = try #require(S.bytes(hex: aad))
        let box = try AEAD.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(S.hex(box) == S.hex(nonce) + expected)
        #expect(try AEAD.open(box, key: key, associatedData: aad) == plaintext)
    }

    @Test func roundTripWithRandomNonces() throws {
        let key = SecureRandom.bytes(count: 32)
        let message = Array("a refresh token".utf8)
        let first = try AEAD.seal(message, key: key, associatedData: [1, 2, 3])
        let second = try AEAD.seal(message, key: key, associatedData: [1, 2, 3])
        #expect(first.count == message.count + AEAD.overhead)
        #expect(first.prefix(12) != second.prefix(12))  // a fresh nonce each time
        #expect(try AEAD.open(first, key: key, associatedData: [1, 2, 3]) == message)
        #expect(try AEAD.open(second, key: key, associatedData: [1, 2, 3]) == message)
        #expect(try AEAD.open(try AEAD.seal([], key: key), key: key) == [])
    }

    @Test func tamperedBoxesDoNotOpen() throws {
        let key = SecureRandom.bytes(count: 32)
        let box = try AEAD.seal(Array("secret".utf8), key: key, associatedData: [9])
        for index in box.indices {  // any flipped bit: nonce, ciphertext or tag
            var altered = box
            altered[index] ^= 0x01
            #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(altered, key: key, associatedData: [9]) }
        }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(box, key: key, associatedData: [8]) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(box, key: key) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(box, key: SecureRandom.bytes(count: 32), associatedData: [9]) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(Array(box.dropLast()), key: key, associatedData: [9]) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(box + [0], key: key, associatedData: [9]) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(Array(box.prefix(27)), key: key) }
        #expect(throws: CryptoError.decryptionFailed) { try AEAD.open([], key: key) }
    }

    @Test func keyAndNonceLengths() {
        #expect(throws: CryptoError.malformedKey) { try AEAD.seal([1], key: [UInt8](repeating: 0, count: 16)) }
        #expect(throws: CryptoError.malformedKey) { try AEAD.open([UInt8](repeating: 0, count: 40), key: []) }
        #expect(throws: CryptoError.malformedKey) {
            try AEAD.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: [0, 1], associatedData: [])
        }
    }
}
