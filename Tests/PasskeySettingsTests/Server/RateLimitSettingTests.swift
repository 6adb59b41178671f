import PasskeySettings
import Testing

@Suite("Settings: rate limit values")
struct RateLimitSettingTests {
    @Test("RATE/s:BURST, RATE/min and off parse; anything else is refused")
    func parsing() {
        #expect(RateLimitSetting.parse("10/s:50") == .some(RateLimitSetting(perSecond: 10, burst: 50)))
        #expect(RateLimitSetting.parse("30/min") == .some(RateLimitSetting(perSecond: 0.5, burst: 1)))
        #expect(RateLimitSetting.parse("2.5/s") == .some(RateLimitSetting(perSecond: 2.5, burst: 3)))
        #expect(RateLimitSetting.parse("OFF") == .some(nil))
        for bad in ["", "10", "10/h", "0/s", "-1/s", "10/s:0", "10/s:x", "10/s:5:6", "inf/s", "nan/s"] {
            #expect(RateLimitSetting.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("off: no limit at all; a setting's text form")
    func off() {
        let off = RateLimitSettings.off
        #expect(off.perClient == nil && off.perAPIKey == nil && off.perUser == nil && off.admin == nil && off.metrics == nil)
        #expect(off.clientAddressHeader == nil && off.trustedProxyHops == 1)
        #expect(RateLimitSetting(perSecond: 2, burst: 10).description == "2.0/s:10")
    }
}
