import Foundation
public import Logging
import OTel
public import ServiceLifecycle
import Tracing

/// Whether passkeyd exports traces, decided from the standard OpenTelemetry variables (docs/operations.md
/// "Traces"). Off unless configured; traces only (logs stay passkeyd's JSON lines, metrics its Prometheus `/metrics`).
public enum TraceExport: Equatable, Sendable {
    case off
    /// OTLP over HTTP (protobuf unless `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` says `http/json`) to the endpoint of
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`).
    case otlp

    /// A variable with a value passkeyd cannot honour; the executable exits with status 2 before serving.
    public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// - `OTEL_SDK_DISABLED=true` (any case): off, whatever else is set.
    /// - `OTEL_TRACES_EXPORTER=otlp`: on; `none`: off; any other exporter (console, jaeger, zipkin): refused.
    /// - `OTEL_TRACES_EXPORTER` unset or empty: on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
    ///   `OTEL_EXPORTER_OTLP_ENDPOINT` is set (not empty), off otherwise.
    /// - When on, the protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`) must be
    ///   `http/protobuf` (the default) or `http/json`: passkeyd is built without the gRPC exporter.
    public static func decide(_ environment: [String: String]) throws(ConfigurationError) -> TraceExport {
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        if value("OTEL_SDK_DISABLED")?.lowercased() == "true" { return .off }
        let on: Bool
        switch value("OTEL_TRACES_EXPORTER")?.lowercased() {
        case "otlp"?: on = true
        case "none"?: on = false
        case let other?:
            throw ConfigurationError(description: "OTEL_TRACES_EXPORTER=\(other) is not supported: use otlp or none")
        case nil: on = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil
        }
        guard on else { return .off }
        let protocolName = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf"
        guard ["http/protobuf", "http/json"].contains(protocolName) else {
            throw ConfigurationError(
                description: "OTLP protocol \(protocolName) is not supported: passkeyd exports traces over http/protobuf or http/json")
        }
        return .otlp
    }

    /// With trace export configured in `environment`: bootstraps the global tracer (swift-otel's, its batch span
    /// processor and OTLP/HTTP exporter; the `service.name` is `passkeyd` unless `OTEL_SERVICE_NAME` or
    /// `OTEL_RESOURCE_ATTRIBUTES` says otherwise) and returns the service that exports and, at shutdown, flushes the
    /// spans, to run in the process's service group. Nil when off (the tracer stays the no-op one). swift-otel's own
    /// diagnostics (failed exports) go to `logger`. Call once per process.
    public static func bootstrap(environment: [String: String], logger: Logger) throws -> (any Service)? {
        guard try decide(environment) == .otlp else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "passkeyd"
        configuration.diagnosticLogger = .custom(logger)
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        // The OTEL_* variables (endpoint, headers, timeout, compression, sampler, batch processor, resource,
        // propagators) override these in swift-otel.
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
