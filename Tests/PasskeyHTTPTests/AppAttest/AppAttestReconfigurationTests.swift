import PasskeyApp
import AppleSignedData
import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStorePostgres
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// Keys attested under one configuration, asserting after it changed: a development key once development builds are
/// no longer allowed, and a key of an app no longer listed, are refused (the stored key is not a licence).
@Suite("App Attest after a configuration change", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AppAttestReconfigurationTests {
    /// passkeyd on the same database with another App Attest configuration.
    static func reconfigured(
        _ instance: AppAttestInstance, apps: [String], allowDevelopment: Bool
    ) async throws -> Application<RouterResponder<PasskeyRequestContext>> {
        let settings = try AppAttestInstance.settings(device: instance.device, apps: apps, allowDevelopment: allowDevelopment)
        return try await TestPasskeyd.build(settings, store: PostgresPasskeyStore(pool: instance.pool)).http
    }

    @Test("development turned off: a development key's assertion is 422 appattest_aaguid_mismatch; app removed: appattest_rp_id_mismatch")
    func reconfigured() async throws {
        try await AppAttestInstance.run(allowDevelopment: true) { instance, client in
            var options = SoftAppAttest.Options()
            options.development = true
            let developmentKey = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, developmentKey, options: options).status == 201)
            let productionKey = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, productionKey).status == 201)

            let strict = try await Self.reconfigured(instance, apps: [AppAttestInstance.appID], allowDevelopment: false)
            try await strict.test(.router) { other in
                let refused = try await instance.assert(other, developmentKey, counter: 1)
                #expect(refused.status == 422 && refused.errorCode == "appattest_aaguid_mismatch")
                #expect(try await instance.storedCounter(developmentKey) == 0)
                let accepted = try await instance.assert(other, productionKey, counter: 1)
                #expect(accepted.status == 200)
            }
            let otherApp = try await Self.reconfigured(instance, apps: ["ZYXWV98765.com.example.other"], allowDevelopment: true)
            try await otherApp.test(.router) { other in
                let refused = try await instance.assert(other, productionKey, counter: 2)
                #expect(refused.status == 422 && refused.errorCode == "appattest_rp_id_mismatch")
                #expect(try await instance.storedCounter(productionKey) == 1)
            }
        }
    }
}
