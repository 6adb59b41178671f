import Testing
import WebhookCore

@Suite("Webhook URL policy")
struct URLPolicyTests {
    let safe = WebhookURLPolicy()
    let unsafe = WebhookURLPolicy().unsafeAllowingPrivateTargets()

    @Test("https URLs with public names or addresses pass; host and port are read")
    func accepted() throws {
        let target = try safe.check(url: "https://hooks.example.com/passkeyd?x=1")
        #expect(target.host == "hooks.example.com" && target.port == 443 && target.isHTTPS && target.address == nil)
        #expect(try safe.check(url: "https://8.8.8.8:8443/h").address == IPAddress("8.8.8.8"))
        #expect(try safe.check(url: "https://[2606:4700::1111]/h").host == "2606:4700::1111")
        #expect(try safe.check(url: "https://Hooks.Example.COM./h").host == "hooks.example.com")
    }

    @Test("refused by the safe policy: http, credentials, fragments, localhost, numeric spellings, every non-global range")
    func refused() {
        let cases: [(String, WebhookError.Code)] = [
            ("http://hooks.example.com/", .urlScheme), ("ftp://hooks.example.com/", .urlScheme),
            ("https://user:pw@hooks.example.com/", .urlCredentials), ("https://user@hooks.example.com/", .urlCredentials),
            ("https://hooks.example.com/#x", .urlMalformed), ("hooks.example.com/x", .urlMalformed), ("https:///x", .urlMalformed),
            ("https://localhost/", .addressForbidden), ("https://a.localhost/", .addressForbidden),
            ("https://127.1/", .addressForbidden), ("https://2130706433/", .addressForbidden), ("https://0x7f.0.0.1/", .addressForbidden),
            ("https://127.0.0.1/", .addressForbidden), ("https://10.1.2.3/", .addressForbidden), ("https://172.16.0.1/", .addressForbidden),
            ("https://172.31.255.255/", .addressForbidden), ("https://192.168.1.1/", .addressForbidden),
            ("https://100.64.0.1/", .addressForbidden), ("https://169.254.169.254/latest/meta-data", .addressForbidden),
            ("https://0.0.0.0/", .addressForbidden), ("https://224.0.0.1/", .addressForbidden), ("https://255.255.255.255/", .addressForbidden),
            ("https://[::1]/", .addressForbidden), ("https://[::]/", .addressForbidden), ("https://[fc00::1]/", .addressForbidden),
            ("https://[fd12:3456::1]/", .addressForbidden), ("https://[fe80::1]/", .addressForbidden), ("https://[ff02::1]/", .addressForbidden),
            ("https://[::ffff:127.0.0.1]/", .addressForbidden), ("https://[::ffff:7f00:1]/", .addressForbidden),
            ("https://[::ffff:169.254.169.254]/", .addressForbidden), ("https://[64:ff9b::a00:1]/", .addressForbidden),
            ("https://[2002:c0a8:101::1]/", .addressForbidden), ("https://[::127.0.0.1]/", .addressForbidden),
        ]
        for (url, code) in cases {
            #expect(throws: WebhookError(code, ""), "\(url)") { try safe.check(url: url) }
        }
    }

    @Test("the unsafe policy allows http, localhost, loopback, private and link-local; never credentials, reserved or multicast")
    func unsafePolicy() throws {
        for url in ["http://127.0.0.1:9000/h", "http://localhost/h", "https://10.0.0.5/", "http://[::1]:80/", "https://[fd00::5]/", "http://169.254.1.1/"] {
            _ = try unsafe.check(url: url)
        }
        #expect(try unsafe.check(url: "http://127.0.0.1:9000/h").port == 9000)
        for url in ["http://0.0.0.0/", "http://224.0.0.1/", "http://[ff02::1]/", "http://[::]/"] {
            #expect(throws: WebhookError(.addressForbidden, ""), "\(url)") { try unsafe.check(url: url) }
        }
        #expect(throws: WebhookError(.urlCredentials, "")) { try unsafe.check(url: "http://a:b@127.0.0.1/") }
        #expect(safe.allowsPrivateTargets == false && unsafe.allowsPrivateTargets)
    }

    @Test("addresses: parsing and scopes")
    func addresses() throws {
        #expect(IPAddress("1.2.3.4")?.bytes == [1, 2, 3, 4])
        #expect(IPAddress("01.2.3.4") == nil)
        #expect(IPAddress("1.2.3") == nil)
        #expect(IPAddress("256.1.1.1") == nil)
        #expect(IPAddress("::1")?.bytes == Array(repeating: 0, count: 15) + [1])
        #expect(IPAddress("1:2:3:4:5:6:7:8")?.bytes == [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
        #expect(IPAddress("1:2:3:4:5:6:1.2.3.4")?.bytes == [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4])
        #expect(IPAddress("::ffff:1.2.3.4")?.bytes == Array(repeating: 0, count: 10) + [0xFF, 0xFF, 1, 2, 3, 4])
        #expect(IPAddress("[fe80::1]")?.scope == .linkLocal)
        for bad in ["1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "fe80::1%eth0", "::ffff:1.2.3", ":", "1:2:3:4:5:6:7::8"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(IPAddress("1:2:3:4:5:6:7::")?.bytes.count == 16)
        let scopes: [(String, IPAddress.Scope)] = [
            ("8.8.8.8", .global), ("172.15.0.1", .global), ("172.32.0.1", .global), ("100.63.0.1", .global), ("100.128.0.1", .global),
            ("127.255.0.1", .loopback), ("192.0.2.1", .reserved), ("198.18.0.1", .reserved), ("240.0.0.1", .reserved),
            ("2606:4700::1111", .global), ("2001:db8::1", .reserved), ("fec0::1", .privateNetwork), ("::ffff:8.8.8.8", .global),
            ("64:ff9b::808:808", .global), ("2002:808:808::1", .global),
        ]
        for (text, scope) in scopes { #expect(IPAddress(text)?.scope == scope, "\(text)") }
        #expect(IPAddress("::ffff:10.0.0.1")?.description == "0:0:0:0:0:ffff:a00:1")
    }
}
