// The variables of webhook delivery (docs/events.md, "Delivery"), each declared once; WebhookSettings.swift reads them.

extension ConfigurationCatalog {
    static let eventVariables: [ConfigVariable] = [
        .webhooksFile, .webhooksTimeout, .webhooksRetryWindow, .webhooksConcurrency, .webhooksPollInterval, .webhooksUnsafeAllowPrivate,
    ]
}

extension ConfigVariable {
    public static let webhooksFile = ConfigVariable(
        "PASSKEYD_WEBHOOKS_FILE", .events, .text("a JSON file"), default: .unset("none (no webhooks)"),
        "the webhook endpoints: a JSON list of `{\"id\", \"url\", \"secret_file\" or \"secret\", \"previous_secret_file\" or \"previous_secret\", \"events\"}` ([Delivery](events.md#delivery)); read at start, anything invalid stops it; the other `PASSKEYD_WEBHOOKS_*` variables are ignored (with a warning) while unset")
    public static let webhooksTimeout = ConfigVariable(
        "PASSKEYD_WEBHOOKS_TIMEOUT", .events, .integer(1...60, .seconds), default: .value("10"),
        "the longest one delivery attempt may take (connect, send, answer); a slower one is retried")
    public static let webhooksRetryWindow = ConfigVariable(
        "PASSKEYD_WEBHOOKS_RETRY_WINDOW", .events, .integer(86_400...2_592_000, .seconds), default: .value("86400"),
        "how long after its event (or its redelivery) a delivery is retried (5 s, 25 s, 2 min … then hourly, with jitter) before it is marked failed")
    public static let webhooksConcurrency = ConfigVariable(
        "PASSKEYD_WEBHOOKS_CONCURRENCY", .events, .integer(1...64), default: .value("8"),
        "deliveries in flight at once per instance (each for a different endpoint and user)")
    public static let webhooksPollInterval = ConfigVariable(
        "PASSKEYD_WEBHOOKS_POLL_INTERVAL", .events, .integer(100...60_000, .milliseconds), default: .value("1000"),
        "how long the delivery loop waits while nothing is due (an event is sent within about this long)")
    public static let webhooksUnsafeAllowPrivate = ConfigVariable(
        "PASSKEYD_WEBHOOKS_UNSAFE_ALLOW_PRIVATE", .events, .onOff, default: .value("off"),
        "`on` allows plain `http` and endpoints on loopback, private and link-local addresses (whoever edits the endpoints can then make passkeyd POST into the internal network): development and tests only, warned about at start")
}
