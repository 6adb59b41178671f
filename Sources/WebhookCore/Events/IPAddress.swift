import Foundation

/// An IPv4 or IPv6 address as bytes, parsed from its text, and where it lies (what the URL policy needs).
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    /// Where an address lies, as far as the URL policy is concerned.
    public enum Scope: String, Sendable, Hashable {
        /// Reachable on the public internet.
        case global
        /// 127.0.0.0/8, ::1.
        case loopback
        /// 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7 (unique local), fec0::/10 (site local).
        case privateNetwork = "private"
        /// 169.254/16 (with cloud metadata at 169.254.169.254), fe80::/10.
        case linkLocal = "link-local"
        /// 0/8, ::, 240/4, 255.255.255.255, 192.0.0/24, documentation and benchmarking ranges: never reachable.
        case reserved
        /// 224/4, ff00::/8.
        case multicast
    }

    /// Parses a dotted-quad IPv4 address (four decimal parts, no leading zeros) or an IPv6 address (RFC 4291 text,
    /// with `::` and an IPv4 tail; brackets allowed; a zone `%…` is refused). Nil for anything else.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = Self.parseV4(text) {
            self = .v4(v4)
        } else if let v6 = Self.parseV6(text) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): bytes
        }
    }

    public var description: String {
        switch self {
        case .v4(let b): return b.map(String.init).joined(separator: ".")
        case .v6(let b):
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
    }

    /// Where the address lies. IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, compatible ::/96, NAT64
    /// 64:ff9b::/96, 6to4 2002::/16) take the scope of that address.
    public var scope: Scope {
        switch self {
        case .v4(let b): return Self.scope(v4: b)
        case .v6(let b):
            let zeros10 = b[0..<10].allSatisfy { $0 == 0 }
            if zeros10, b[10] == 0xFF, b[11] == 0xFF { return Self.scope(v4: Array(b[12..<16])) }
            if b.allSatisfy({ $0 == 0 }) { return .reserved }
            if b[0..<15].allSatisfy({ $0 == 0 }), b[15] == 1 { return .loopback }
            if zeros10, b[10] == 0, b[11] == 0 { return Self.scope(v4: Array(b[12..<16])) }
            if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) {
                return Self.scope(v4: Array(b[12..<16]))
            }
            if b[0] == 0x20, b[1] == 0x02 { return Self.scope(v4: Array(b[2..<6])) }
            if b[0] == 0xFF { return .multicast }
            if b[0] & 0xFE == 0xFC { return .privateNetwork }
            if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }
            if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return .privateNetwork }
            if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return .reserved }  // documentation
            return .global
        }
    }

    static func scope(v4 b: [UInt8]) -> Scope {
        switch (b[0], b[1], b[2]) {
        case (127, _, _): return .loopback
        case (10, _, _), (172, 16...31, _), (192, 168, _), (100, 64...127, _): return .privateNetwork
        case (169, 254, _): return .linkLocal
        case (224...239, _, _): return .multicast
        case (0, _, _), (240...255, _, _), (192, 0, 0), (192, 0, 2), (198, 18...19, _), (198, 51, 100), (203, 0, 113):
            return .reserved
        default: return .global
        }
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseV6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        // An IPv4 tail (::ffff:1.2.3.4) becomes two groups.
        var text = String(text)
        var tail: [UInt8] = []
        if let lastColon = text.lastIndex(of: ":"), text[lastColon...].contains(".") {
            guard let v4 = parseV4(text[text.index(after: lastColon)...]) else { return nil }
            tail = v4
            let head = text[..<lastColon]
            text = head.hasSuffix(":") ? String(head) + ":" : String(head)
        }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                out.append(value)
            }
            return out
        }
        let needed = 8 - tail.count / 2
        var words: [UInt16]
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(halves[0])), all.count == needed else { return nil }
            words = all
        case 2:
            guard let head = groups(Substring(halves[0])), let rest = groups(Substring(halves[1])), head.count + rest.count < needed
            else { return nil }
            words = head + Array(repeating: 0, count: needed - head.count - rest.count) + rest
        default:
            return nil
        }
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + tail
    }
}
