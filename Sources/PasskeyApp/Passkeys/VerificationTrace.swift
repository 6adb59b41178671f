import Tracing

/// The WebAuthn verification of a finish as a child span of the request's, with tracing on. A finish verifies inside
/// the store's call (on a database thread, possibly in a batch with other requests' finishes), where the request's
/// task-local context is not at hand: it is captured here, before the store call, and the span started from it.
/// Off: nothing is captured and ``run(_:_:)`` is the body alone.
struct VerificationTrace: Sendable {
    /// The request's context; nil with tracing off.
    let context: ServiceContext?

    init(enabled: Bool) {
        context = enabled ? (ServiceContext.current ?? .topLevel) : nil
    }

    /// `body` in an `internal` span named `name` (`webauthn.verify_authentication`, `webauthn.verify_registration`);
    /// a refusal is recorded as the span's error (its type and description: a WebAuthn error code and reason, never
    /// the signed data or keys).
    func run<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        guard let context else { return try body() }
        let span = startSpan(name, context: context, ofKind: .internal)
        defer { span.end() }
        do {
            return try body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
