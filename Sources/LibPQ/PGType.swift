/// A PostgreSQL type, identified by its OID (`pg_type.oid`).
///
/// Only built-in types have fixed OIDs; the ones `LibPQ` encodes or decodes have names here.
public struct PGType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's OID.
    public let rawValue: UInt32

    /// Wraps an OID.
    /// - Parameter rawValue: The type's OID.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// OID 0: let the server infer the parameter's type (never used for binary parameters by this module).
    public static let unspecified = PGType(rawValue: 0)
    /// `bool` (16).
    public static let bool = PGType(rawValue: 16)
    /// `bytea` (17).
    public static let bytea = PGType(rawValue: 17)
    /// `"char"`, the one-byte internal type (18).
    public static let char = PGType(rawValue: 18)
    /// `name` (19).
    public static let name = PGType(rawValue: 19)
    /// `int8` / `bigint` (20).
    public static let int8 = PGType(rawValue: 20)
    /// `int2` / `smallint` (21).
    public static let int2 = PGType(rawValue: 21)
    /// `int4` / `integer` (23).
    public static let int4 = PGType(rawValue: 23)
    /// `text` (25).
    public static let text = PGType(rawValue: 25)
    /// `oid` (26).
    public static let oid = PGType(rawValue: 26)
    /// `json` (114).
    public static let json = PGType(rawValue: 114)
    /// `unknown` (705), the type of an untyped literal.
    public static let unknown = PGType(rawValue: 705)
    /// `name[]` (1003).
    public static let nameArray = PGType(rawValue: 1003)
    /// `int2[]` (1005).
    public static let int2Array = PGType(rawValue: 1005)
    /// `int4[]` (1007).
    public static let int4Array = PGType(rawValue: 1007)
    /// `text[]` (1009).
    public static let textArray = PGType(rawValue: 1009)
    /// `bpchar[]` (1014).
    public static let bpcharArray = PGType(rawValue: 1014)
    /// `varchar[]` (1015).
    public static let varcharArray = PGType(rawValue: 1015)
    /// `int8[]` (1016).
    public static let int8Array = PGType(rawValue: 1016)
    /// `bool[]` (1000).
    public static let boolArray = PGType(rawValue: 1000)
    /// `bytea[]` (1001).
    public static let byteaArray = PGType(rawValue: 1001)
    /// `bpchar` / `char(n)` (1042).
    public static let bpchar = PGType(rawValue: 1042)
    /// `varchar` (1043).
    public static let varchar = PGType(rawValue: 1043)
    /// `timestamp` without time zone (1114).
    public static let timestamp = PGType(rawValue: 1114)
    /// `timestamp[]` (1115).
    public static let timestampArray = PGType(rawValue: 1115)
    /// `timestamptz` (1184).
    public static let timestamptz = PGType(rawValue: 1184)
    /// `timestamptz[]` (1185).
    public static let timestamptzArray = PGType(rawValue: 1185)
    /// `uuid` (2950).
    public static let uuid = PGType(rawValue: 2950)
    /// `uuid[]` (2951).
    public static let uuidArray = PGType(rawValue: 2951)
    /// `jsonb` (3802).
    public static let jsonb = PGType(rawValue: 3802)

    /// The SQL name for the types listed here, else `oid <n>`.
    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .bool: "bool"
        case .bytea: "bytea"
        case .char: "\"char\""
        case .name: "name"
        case .int8: "int8"
        case .int2: "int2"
        case .int4: "int4"
        case .text: "text"
        case .oid: "oid"
        case .json: "json"
        case .unknown: "unknown"
        case .nameArray: "name[]"
        case .int2Array: "int2[]"
        case .int4Array: "int4[]"
        case .textArray: "text[]"
        case .bpcharArray: "bpchar[]"
        case .varcharArray: "varchar[]"
        case .int8Array: "int8[]"
        case .boolArray: "bool[]"
        case .byteaArray: "bytea[]"
        case .bpchar: "bpchar"
        case .varchar: "varchar"
        case .timestamp: "timestamp"
        case .timestampArray: "timestamp[]"
        case .timestamptz: "timestamptz"
        case .timestamptzArray: "timestamptz[]"
        case .uuid: "uuid"
        case .uuidArray: "uuid[]"
        case .jsonb: "jsonb"
        default: "oid \(rawValue)"
        }
    }
}
