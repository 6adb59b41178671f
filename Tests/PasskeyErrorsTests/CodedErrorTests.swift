import PasskeyErrors
import Testing

/// An error shaped like the five domain types (JOSEError, IdentityError, …): the shared description.
private struct SampleError: CodedError {
    struct Code: ErrorCode {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        static let first = Code(rawValue: "sample_first")
        static let second = Code(rawValue: "sample_second")
    }

    let code: Code
    let reason: String
    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// An error shaped like WebAuthnError / StoreError: its own description (the code alone) takes precedence.
private struct CodeOnlyError: CodedError {
    typealias Code = SampleError.Code
    let code: Code
    let reason: String
    var description: String { code.rawValue }
}

/// An error shaped like CBORError / CryptoError: a code over a private enum (not an ErrorCode), its own description.
private struct WrapperError: CodedError {
    struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable { case one, two }
        private let base: Base
        static let one = Code(base: .one)
        static let two = Code(base: .two)
    }

    let code: Code
    let reason: String
    var description: String { "WrapperError" }
}

@Suite("PasskeyErrors: the shared error shape")
struct CodedErrorTests {
    @Test("equality compares only the code, for every kind of code")
    func equality() {
        #expect(SampleError(.first, "a") == SampleError(.first, "b"))
        #expect(SampleError(.first, "a") != SampleError(.second, "a"))
        #expect(CodeOnlyError(code: .second, reason: "x") == CodeOnlyError(code: .second, reason: "y"))
        #expect(WrapperError(code: .one, reason: "x") == WrapperError(code: .one, reason: "y"))
        #expect(WrapperError(code: .one, reason: "x") != WrapperError(code: .two, reason: "x"))
        #expect(throws: SampleError(.second, "")) { throw SampleError(.second, "whatever the reason") }
    }

    @Test("description: \"raw value: reason\" by default; a type's own description wins")
    func descriptions() {
        #expect("\(SampleError(.first, "the detail"))" == "sample_first: the detail")
        #expect(String(reflecting: SampleError(.first, "")) == "sample_first: ")
        #expect("\(SampleError.Code.second)" == "sample_second")
        #expect("\(CodeOnlyError(code: .first, reason: "secret detail"))" == "sample_first")
        #expect("\(WrapperError(code: .two, reason: "detail"))" == "WrapperError")
        let erased: any Error = SampleError(.second, "r")
        #expect("\(erased)" == "sample_second: r")
    }

    @Test("an ErrorCode is open: any raw value is a code, known ones compare by raw value, switches need a default")
    func openCodes() {
        let parsed = SampleError.Code(rawValue: "sample_first")
        #expect(parsed == .first)
        #expect(Set([SampleError.Code.first, parsed, .second]).count == 2)
        let unknown = SampleError.Code(rawValue: "sample_added_later")
        let name = switch unknown {
        case .first: "first"
        case .second: "second"
        default: "other"
        }
        #expect(name == "other")
    }
}
