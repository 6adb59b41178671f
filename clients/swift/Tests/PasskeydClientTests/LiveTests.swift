import Foundation
import PasskeydClient
import Testing

/// The client against a real passkeyd on PostgreSQL (scripts/test/swift-client-test.sh starts it), with
/// passkeyd-softkey as the authenticator, passkeyd-idp as the identity provider and passkeyd-softkey's StoreKit and
/// App Attest signers. LiveSupport.swift: the environment.
@Suite("Live", .enabled(if: Live.enabled, "PASSKEYD_URL and PASSKEYD_SOFTKEY not set"))
struct LiveTests {
    @Test("passkey sign-up and sign-in, the Signal API's arguments, errors with their codes")
    func passkeys() async throws {
        let passkeyd = try Live.client()
        #expect(try await passkeyd.getHealth().status == "ok")
        let authenticator = try Authenticator()
        let name = Live.unique("ada")
        let begun = try await passkeyd.registrationBegin(for: .new(name: name, displayName: "Ada L."))
        #expect(begun.publicKey.user.name == name && begun.publicKey.rp.id == "localhost" && begun.mediation == nil)
        let credential = try authenticator.register(begun)
        let registered = try await passkeyd.registrationFinish(credential, nickname: "laptop")
        #expect(registered.user.name == name && registered.user.displayName == "Ada L.")
        #expect(registered.credential.nickname == "laptop" && registered.credential.createdBy == "modal")
        #expect(registered.credential.id == credential.id)
        let userId = registered.user.id
        let credentialId = registered.credential.id

        // By name (allowCredentials lists the passkey), then discoverably.
        let request = try await passkeyd.authenticationBegin(for: .name(name))
        #expect(request.publicKey.allowCredentials.map(\.id) == [credentialId])
        let signedIn = try await passkeyd.authenticationFinish(try authenticator.sign(request))
        #expect(signedIn.user?.id == userId && signedIn.userVerified && signedIn.credential.id == credentialId)
        let signal = AcceptedCredentialsSignal(
            rpId: "localhost", userId: userId, allAcceptedCredentialIds: [credentialId], name: name, displayName: "Ada L.")
        #expect(signedIn.signal == signal)
        #expect(signedIn.session?.tokenType == "Bearer")
        #expect(try await passkeyd.signIn(authenticator).user?.id == userId)
        #expect(try await passkeyd.getUserSignals(userId: userId) == signal)

        // A replayed finish (its challenge was used); a taken name.
        let assertion = try authenticator.sign(try await passkeyd.authenticationBegin(for: .id(userId)))
        _ = try await passkeyd.authenticationFinish(assertion)
        await expectError(400, .challengeUnknownOrExpired) { try await passkeyd.authenticationFinish(assertion) }
        await expectError(409, .userExists) { try await passkeyd.registrationBegin(for: .new(name: name)) }
    }

    @Test("a deleted passkey (signalUnknownCredential's arguments), an unknown user, a wrong API key")
    func deletedPasskeyAndWrongKey() async throws {
        let passkeyd = try Live.client()
        let authenticator = try Authenticator()
        let registered = try await passkeyd.signUp(authenticator)
        try await passkeyd.adminDeleteCredential(credentialId: registered.credential.id)
        let unknown = await expectError(404, .credentialUnknown) { try await passkeyd.signIn(authenticator) }
        #expect(unknown?.signal == UnknownCredentialSignal(rpId: "localhost", credentialId: registered.credential.id))
        await expectError(404, .userUnknown) { try await passkeyd.getUserSignals(userId: "AAAA") }
        #expect(try await passkeyd.getUserSignals(userId: registered.user.id).allAcceptedCredentialIds == [])

        let wrong = try Live.client(apiKey: "not-the-key")
        let refused = await expectError(401, .unauthorized) { try await wrong.authenticationBegin() }
        #expect(refused?.attempts == 1)  // a 401 is not retried
        var keyless = passkeyd
        keyless.apiKey = nil
        await expectError(401, .unauthorized) { try await keyless.authenticationBegin() }
    }

    @Test("ID-token sign-in (passkeyd-idp): created, returning, linked to a passkey user, unlinked")
    func idTokenSignIn() async throws {
        let passkeyd = try Live.client()
        let idp = try Live.value("PASSKEYD_IDP")
        let directory = try Live.value("PASSKEYD_IDP_DIR")
        func idToken(_ subject: String, _ nonce: String) throws -> String {
            try Live.text([
                idp, "token", "--dir", directory, "--iss", "https://appleid.apple.com", "--aud", "com.example.app",
                "--sub", subject, "--nonce", nonce, "--email", "me@privaterelay.appleid.com",
            ])
        }
        let subject = "001234.\(UUID().uuidString.lowercased().prefix(16))"
        var begun = try await passkeyd.idTokenBegin(provider: "apple")
        #expect(begun.provider == "apple" && begun.providerNonce.count == 64)
        let first = try await passkeyd.idTokenFinish(
            session: begun.session, provider: "apple", idToken: try idToken(subject, begun.providerNonce),
            user: .new(name: Live.unique("apple"), displayName: "Apple User"))
        #expect(first.created && first.identity.subject == subject && first.session != nil)
        // The same session again is refused; a new sign-in is the same user.
        let used = begun
        await expectError(400, .idtokenSessionUnknown) {
            try await passkeyd.idTokenFinish(session: used.session, provider: "apple", idToken: try idToken(subject, used.providerNonce))
        }
        begun = try await passkeyd.idTokenBegin(provider: "apple")
        let second = try await passkeyd.idTokenFinish(
            session: begun.session, provider: "apple", idToken: try idToken(subject, begun.providerNonce))
        #expect(!second.created && second.user.id == first.user.id)
        let token = try #require(second.session?.accessToken)
        let identities = try await passkeyd.meListIdentities(accessToken: token).identities
        #expect(identities.map(\.issuer) == ["https://appleid.apple.com"] && identities.first?.email == "me@privaterelay.appleid.com")

        // A passkey user links an Apple identity by id; the admin API lists and unlinks it.
        let alice = try await passkeyd.signUp(try Authenticator()).user.id
        begun = try await passkeyd.idTokenBegin(provider: "apple")
        let linked = try await passkeyd.idTokenFinish(
            session: begun.session, provider: "apple", idToken: try idToken("alice.\(subject)", begun.providerNonce),
            user: .existing(id: alice))
        #expect(linked.linked && linked.user.id == alice)
        let listed = try await passkeyd.adminListUserIdentities(userId: alice).identities
        #expect(listed.map(\.id) == [linked.identity.id])
        try await passkeyd.adminUnlinkIdentity(userId: alice, identityId: linked.identity.id)
        #expect(try await passkeyd.adminListUserIdentities(userId: alice).identities == [])
    }

    @Test("sessions: refresh, reuse, introspection, handoff to a web view (with PKCE), sign-out, the admin view")
    func sessionsAndHandoff() async throws {
        let passkeyd = try Live.client()
        let authenticator = try Authenticator()
        let userId = try await passkeyd.signUp(authenticator).user.id
        let session = try #require(try await passkeyd.signIn(authenticator).session)
        let refreshToken = try #require(session.refreshToken)
        #expect(refreshToken.hasPrefix("pkd_rt_"))

        // Refresh: a new pair; the retired refresh token again revokes the session.
        let refreshed = try await passkeyd.refreshSession(refreshToken: refreshToken).session
        #expect(refreshed.refreshToken != refreshToken && refreshed.sessionId == session.sessionId)
        await expectError(401, .refreshTokenReused) { try await passkeyd.refreshSession(refreshToken: refreshToken) }
        #expect(try await passkeyd.introspectAccessToken(refreshed.accessToken).active == false)

        // The app hands its session to a web view: a one-time code, exchanged once.
        let access = try #require(try await passkeyd.signIn(authenticator).session?.accessToken)
        let introspected = try await passkeyd.introspectAccessToken(access)
        #expect(introspected.active && introspected.sub == userId && introspected.tokenType == "access_token")
        let handoff = try await passkeyd.createHandoffCode(for: .accessToken(access))
        #expect(handoff.code.hasPrefix("pkd_hc_") && (1...60).contains(handoff.expiresIn))
        let web = try await passkeyd.exchangeHandoffCode(handoff.code).session
        #expect(web.sessionId != refreshed.sessionId)
        await expectError(400, .handoffCodeUnknown) { try await passkeyd.exchangeHandoffCode(handoff.code) }

        // The backend vouches for the user (API key), with the page's PKCE challenge.
        let verifier = base64URL((0..<32).map { _ in UInt8.random(in: 0...255) })
        let challenge = base64URL(sha256(Array(verifier.utf8)))
        var code = try await passkeyd.createHandoffCode(for: .user(id: userId), codeChallenge: challenge).code
        let wrongVerifier = base64URL((0..<32).map { _ in UInt8.random(in: 0...255) })
        let mismatchCode = code
        await expectError(400, .handoffVerifierMismatch) {
            try await passkeyd.exchangeHandoffCode(mismatchCode, codeVerifier: wrongVerifier)
        }
        code = try await passkeyd.createHandoffCode(for: .user(id: userId), codeChallenge: challenge).code
        #expect(!(try await passkeyd.exchangeHandoffCode(code, codeVerifier: verifier).session.accessToken.isEmpty))

        let keys = try await passkeyd.getSessionJWKS().keys
        #expect(!keys.isEmpty && keys.allSatisfy { $0.use == "sig" })
        // Sign the web view out by its refresh token, the app by its access token; the admin API ends the rest.
        try await passkeyd.revokeSession(refreshToken: web.refreshToken)
        try await passkeyd.revokeSession(accessToken: access)
        #expect(try await passkeyd.introspectAccessToken(access).active == false)
        // Four sessions: the refreshed and revoked one, the app's, the web view's, the backend's web view's.
        let sessions = try await passkeyd.adminListUserSessions(userId: userId).sessions
        #expect(sessions.count == 4 && sessions.filter(\.active).count == 1)
        #expect(try await passkeyd.adminRevokeUserSessions(userId: userId).revoked == 1)
        #expect(try await passkeyd.adminListUserSessions(userId: userId).sessions.allSatisfy { !$0.active })
    }

    @Test("an App Store transaction (passkeyd-softkey storekit): entitlements, renewal, a refund notification")
    func appStore() async throws {
        let passkeyd = try Live.client()
        let softkey = try Live.value("PASSKEYD_SOFTKEY")
        let certs = try Live.value("PASSKEYD_STOREKIT_CERTS")
        func storekit(_ arguments: String...) throws -> String {
            try Live.text([softkey, "storekit"] + arguments + ["--certs", certs])
        }
        let userId = try await passkeyd.signUp(try Authenticator()).user.id
        let before = try await passkeyd.appStoreEntitlements(userId: userId)
        #expect(before.entitlements == [] && before.userId == userId)
        let token = before.appAccountToken

        // The app bought a monthly subscription for this user (appAccountToken = theirs); the backend posts it.
        let transactionId = String(UInt64(Date().timeIntervalSince1970 * 1_000_000_000) + UInt64.random(in: 0..<1000))
        let purchase = try storekit("transaction", "--id", transactionId, "--token", token, "--days", "30")
        let posted = try await passkeyd.appStorePostTransaction(userId: userId, signedTransaction: purchase)
        #expect(posted.stored == "inserted" && posted.transaction.transactionId == transactionId)
        #expect(posted.entitlements.map(\.status) == ["active"])
        #expect(try await passkeyd.appStorePostTransaction(userId: userId, signedTransaction: purchase).stored != "inserted")
        #expect(try await passkeyd.appStoreEntitlements(userId: userId).entitlements.first?.productId == "com.example.monthly")

        let renewal = try await passkeyd.appStorePostRenewalInfo(signedRenewalInfo: try storekit("renewal", "--original", transactionId))
        #expect(renewal.renewalInfo.originalTransactionId == transactionId)

        // A purchase made for another account is refused with its code.
        let other = try storekit("transaction", "--id", "\(transactionId)1", "--token", "00000000-0000-8000-8000-000000000000")
        await expectError(422, .appstoreAppAccountTokenMismatch) {
            try await passkeyd.appStorePostTransaction(userId: userId, signedTransaction: other)
        }

        // Apple refunds it: a REFUND notification; its replay is a duplicate.
        let refunded = Live.directory.appendingPathComponent("refunded-\(transactionId).jws")
        try storekit(
            "transaction", "--id", transactionId, "--token", token, "--days", "30", "--revoked", "yes", "--signed-offset-ms", "1000"
        ).write(to: refunded, atomically: true, encoding: .utf8)
        let refund = try storekit("notification", "--type", "REFUND", "--uuid", "refund-\(transactionId)", "--transaction", refunded.path)
        #expect(try await passkeyd.appStoreNotification(signedPayload: refund).duplicate == false)
        #expect(try await passkeyd.appStoreNotification(signedPayload: refund).duplicate == true)
        let after = try await passkeyd.appStoreEntitlements(userId: userId)
        #expect(after.entitlements == [] && after.inactive.first?.status == "revoked")
    }

    @Test("App Attest (passkeyd-softkey appattest): an attested key, an assertion, its replay")
    func appAttest() async throws {
        let passkeyd = try Live.client()
        let softkey = try Live.value("PASSKEYD_SOFTKEY")
        let device = try Live.value("PASSKEYD_APPATTEST_DEVICE")
        let appId = try Live.value("PASSKEYD_APPATTEST_APP_ID")
        let key = Live.directory.appendingPathComponent("appattest-\(UUID().uuidString).json").path
        struct Attested: Decodable { let keyId: String; let attestationObject: String }
        struct Asserted: Decodable { let keyId: String; let assertion: String; let clientData: String }

        var challenge = try await passkeyd.appAttestChallenge().challenge
        let attested = try JSONDecoder().decode(Attested.self, from: try Live.run([
            softkey, "appattest", "attest", "--device", device, "--key", key, "--app-id", appId, "--challenge", challenge,
        ]))
        let stored = try await passkeyd.appAttestAttestation(
            keyId: attested.keyId, attestationObject: attested.attestationObject, challenge: challenge)
        #expect(stored.keyId == attested.keyId && stored.counter == 0 && stored.appId == appId)
        challenge = try await passkeyd.appAttestChallenge().challenge
        let clientData = String(decoding: try JSONEncoder().encode(["action": "buy", "challenge": challenge]), as: UTF8.self)
        let asserted = try JSONDecoder().decode(Asserted.self, from: try Live.run([
            softkey, "appattest", "assert", "--device", device, "--key", key, "--app-id", appId, "--counter", "1",
            "--client-data", clientData,
        ]))
        #expect(try await passkeyd.appAttestAssertion(keyId: asserted.keyId, assertion: asserted.assertion, clientData: asserted.clientData).counter == 1)
        await expectError(400, .appattestChallengeInvalid) {
            try await passkeyd.appAttestAssertion(keyId: asserted.keyId, assertion: asserted.assertion, clientData: asserted.clientData)
        }
    }

    @Test("the admin API: paging users, a user and their passkeys, renaming, the audit trail, deleting a user")
    func adminListing() async throws {
        let passkeyd = try Live.client()
        let prefix = Live.unique("listed")
        var users: [RegistrationFinishResponse] = []
        for index in 0..<3 { users.append(try await passkeyd.signUp(try Authenticator(), name: "\(prefix)-\(index)")) }
        let ids = users.map(\.user.id)
        let page = try await passkeyd.adminListUsers(name: prefix, limit: 2)
        #expect(page.users.map(\.id) == Array(ids.prefix(2)) && page.next != nil)
        let rest = try await passkeyd.adminListUsers(name: prefix, limit: 2, after: page.next)
        #expect(rest.users.map(\.id) == Array(ids.dropFirst(2)) && rest.next == nil)

        let credentialId = users[0].credential.id
        let user = try await passkeyd.adminGetUser(userId: ids[0])
        #expect(user.user == users[0].user && user.credentials.map(\.id) == [credentialId])
        #expect(user.credentials.map(\.userId) == [ids[0]])
        #expect(try await passkeyd.adminListUserCredentials(userId: ids[0]).credentials.map(\.id) == [credentialId])
        #expect(try await passkeyd.adminRenameCredential(credentialId: credentialId, nickname: "work laptop").credential.nickname == "work laptop")
        let got = try await passkeyd.adminGetCredential(credentialId: credentialId)
        #expect(got.credential.nickname == "work laptop" && got.user?.id == ids[0])
        let events = try await passkeyd.adminAuditEvents(userId: ids[0], limit: 50).events
        #expect(events.map(\.event) == ["user.created", "credential.registered", "credential.renamed"])
        try await passkeyd.adminDeleteUser(userId: ids[0])
        await expectError(404, .userUnknown) { try await passkeyd.adminGetUser(userId: ids[0]) }
    }

    @Test("an automatic upgrade of an account without a passkey, then self-service with its access token")
    func upgradeAndSelfService() async throws {
        let passkeyd = try Live.client()
        let authenticator = try Authenticator()
        // A password user of the backend: an account without a sign-in method, then an automatic upgrade by id.
        let user = try await passkeyd.createUser(name: Live.unique("ann"), displayName: "Ann").user
        await expectError(409, .userExists) { try await passkeyd.createUser(name: user.name) }
        let begun = try await passkeyd.registrationBegin(for: .existing(id: user.id), mediation: .conditional)
        #expect(begun.mediation == "conditional")
        let upgraded = try await passkeyd.registrationFinish(try authenticator.register(begun, silently: true))
        #expect(upgraded.credential.createdBy == "conditional" && !upgraded.credential.userVerified)

        // The first sign-in verifies the user; its session's access token manages her own passkeys.
        let token = try #require(try await passkeyd.signIn(authenticator, as: .id(user.id)).session?.accessToken)
        let mine = try await passkeyd.meListCredentials(accessToken: token).credentials
        #expect(mine.map(\.id) == [upgraded.credential.id] && mine.first?.userVerified == true)
        await expectError(409, .lastSignInMethod) {
            try await passkeyd.meDeleteCredential(accessToken: token, credentialId: upgraded.credential.id)
        }
        let second = try Authenticator()
        let adding = try await passkeyd.meRegistrationBegin(
            accessToken: token, extensions: RegistrationExtensionInputs(credProps: true, prf: .init()))
        let added = try await passkeyd.meRegistrationFinish(accessToken: token, try second.register(adding), nickname: "phone")
        let extensions = added.credential.extensions
        #expect(extensions.discoverable == true && extensions.prfEnabled == true && extensions.largeBlobSupported == nil)
        let renamed = try await passkeyd.meRenameCredential(accessToken: token, credentialId: added.credential.id, nickname: "new phone")
        #expect(renamed.credential.nickname == "new phone")
        try await passkeyd.meDeleteCredential(accessToken: token, credentialId: upgraded.credential.id)
        // Deleting the passkey signed in with ends its sessions.
        await expectError(401, .sessionRevoked) { try await passkeyd.meListCredentials(accessToken: token) }
        let next = try #require(try await passkeyd.signIn(second).session?.accessToken)
        #expect(try await passkeyd.meListIdentities(accessToken: next).identities == [])
    }

    @Test("the service and its documents")
    func service() async throws {
        let passkeyd = try Live.client()
        #expect(try await passkeyd.getReadiness().status == "ready")
        #expect(try await passkeyd.getMetrics().contains("passkeyd_"))
        let document = try await passkeyd.getOpenAPIDocument()
        #expect(document["openapi"]?.stringValue?.hasPrefix("3.1") == true && document["paths"]?["/v1/idtoken/begin"] != nil)
        let appId = try Live.value("PASSKEYD_APPATTEST_APP_ID")
        #expect(try await passkeyd.getAppleAppSiteAssociation()["webcredentials"]?["apps"] == [.string(appId)])
        #expect(try await passkeyd.getAssetLinks().map(\.target.packageName) == ["com.example.app"])
        #expect(try await passkeyd.getRelatedOrigins().origins == ["https://shop.example"])
    }

    @Test("the FIDO conformance binding")
    func conformance() async throws {
        let passkeyd = try Live.client()
        let authenticator = try Authenticator()
        let name = Live.unique("fido")
        let options = try await passkeyd.conformanceAttestationOptions(username: name, displayName: "FIDO")
        #expect(options.status == "ok" && options.user.name == name)
        let credential = try authenticator.register(conformance: options)
        // The session cookie binds a result to its options call: another call's session refuses this credential
        // (and ends that session only).
        let other = try await passkeyd.conformanceAttestationOptions(username: Live.unique("fido"))
        await expectError(422, .challengeMismatch) {
            try await passkeyd.conformanceAttestationResult(credential, challenge: other.challenge)
        }
        let answer = try await passkeyd.conformanceAttestationResult(credential, challenge: options.challenge)
        #expect(answer.status == "ok" && answer.errorMessage == "")
        let request = try await passkeyd.conformanceAssertionOptions(username: name)
        #expect(request.status == "ok")
        #expect(try await passkeyd.conformanceAssertionResult(
            try authenticator.sign(conformance: request), challenge: request.challenge).status == "ok")
    }
}
