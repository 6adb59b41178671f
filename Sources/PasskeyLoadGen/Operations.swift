// What a virtual user does in one iteration of a phase, and the checks of passkeyd's answers: authentication begin
// + sign + finish, registration begin + create + finish, and the finish of a pre-signed ceremony (with presign,
// which begins those ceremonies over HTTP and signs their assertions before the phase).
import Foundation
import NIOCore
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

// MARK: request and response checks

struct FinishBody<Credential: Encodable>: Encodable {
    let credential: Credential
}

struct BeginAuthenticationAnswer: Decodable { let publicKey: RequestOptionsJSON }
struct BeginRegistrationAnswer: Decodable { let publicKey: CreationOptionsJSON }

/// "HTTP 400 challenge_unknown_or_expired" for an error body, "HTTP 502" otherwise.
func describe(_ result: HTTPResult, _ step: String) -> String {
    var code = ""
    if let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        let error = object["error"] as? [String: Any], let text = error["code"] as? String
    {
        code = " " + text
    }
    return "\(step): HTTP \(result.status)\(code)"
}

/// 200 {"user":{…},"credential":{"id": expected,…},"userVerified":true,"signCountStatus":…}
func checkAuthenticationFinish(_ result: HTTPResult, credentialID: String) -> String? {
    guard result.status == 200 else { return describe(result, "authentication finish") }
    guard let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        object["user"] is [String: Any], let credential = object["credential"] as? [String: Any],
        credential["id"] as? String == credentialID, object["userVerified"] as? Bool == true, object["signCountStatus"] != nil
    else { return "authentication finish: 200 with an unexpected body" }
    return nil
}

/// 201 {"user":{"id",…},"credential":{"id": expected,…}}
func checkRegistrationFinish(_ result: HTTPResult, credentialID: String) -> String? {
    guard result.status == 201 else { return describe(result, "registration finish") }
    guard let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        let user = object["user"] as? [String: Any], user["id"] is String, let credential = object["credential"] as? [String: Any],
        credential["id"] as? String == credentialID
    else { return "registration finish: 201 with an unexpected body" }
    return nil
}

// MARK: the iterations

/// begin {} over HTTP → sign here → finish (on the next instance when there are several); the credential is drawn
/// uniformly from `workingSet`.
func makeMixed(workingSet: [SoftCredential]) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        var outcome = Outcome()
        do {
            let t0 = ContinuousClock.now
            let begin = try await connections.begin(index).post("/v1/authentication/begin", Array("{}".utf8))
            let t1 = ContinuousClock.now
            outcome.begin = nanos(t1 - t0)
            guard begin.status == 200, let answer = try? JSONDecoder().decode(BeginAuthenticationAnswer.self, from: Data(begin.body)),
                !answer.publicKey.challenge.isEmpty
            else {
                outcome.error = describe(begin, "authentication begin")
                return outcome
            }
            var credential = workingSet.randomElement()!
            var knobs = AssertionKnobs(origin: origin)
            knobs.counterIncrement = 0  // counter 0 stays 0 (as synced passkeys send): concurrent uses of one credential never race
            let assertion = try SoftAuthenticator.authenticate(options: answer.publicKey, credential: &credential, knobs: knobs)
            let body = Array(try JSONEncoder().encode(FinishBody(credential: assertion)))
            let t2 = ContinuousClock.now
            outcome.client = nanos(t2 - t1)
            let finish = try await connections.finish(index).post("/v1/authentication/finish", body)
            outcome.finish = nanos(ContinuousClock.now - t2)
            outcome.error = checkAuthenticationFinish(finish, credentialID: assertion.id)
            outcome.crossed = connections.crosses
        } catch {
            outcome.error = "authentication: \(error)"
        }
        return outcome
    }
}

/// registration begin for a new name over HTTP → create the credential here ("none" attestation) → finish (on the
/// next instance when there are several), checked; names are unique per run, `prefix` and iteration.
func makeRegistration(prefix: String) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        var outcome = Outcome()
        do {
            let name = "lb-reg-\(runID)-\(prefix)-\(index)"
            let t0 = ContinuousClock.now
            let begin = try await connections.begin(index).post(
                "/v1/registration/begin", Array("{\"user\":{\"name\":\"\(name)\",\"displayName\":\"Load Bench\"}}".utf8))
            let t1 = ContinuousClock.now
            outcome.begin = nanos(t1 - t0)
            guard begin.status == 200,
                let answer = try? JSONDecoder().decode(BeginRegistrationAnswer.self, from: Data(begin.body)),
                answer.publicKey.user.name == name
            else {
                outcome.error = describe(begin, "registration begin")
                return outcome
            }
            let (response, _) = try SoftAuthenticator.register(options: answer.publicKey, knobs: RegistrationKnobs(origin: origin))
            let body = Array(try JSONEncoder().encode(FinishBody(credential: response)))
            let t2 = ContinuousClock.now
            outcome.client = nanos(t2 - t1)
            let finish = try await connections.finish(index).post("/v1/registration/finish", body)
            outcome.finish = nanos(ContinuousClock.now - t2)
            outcome.error = checkRegistrationFinish(finish, credentialID: response.id)
            outcome.crossed = connections.crosses
        } catch {
            outcome.error = "registration: \(error)"
        }
        return outcome
    }
}

/// Ceremonies begun over HTTP (`POST /v1/authentication/begin {}`, discoverable, 16 connections spread over the
/// instances) and their assertions signed up front with credentials of `workingSet`; none of it is measured. The
/// server keeps whatever its begins keep (sealed challenges: nothing; the ceremonies table: one row each), so the
/// finishes measure what a real finish costs on either path, and any server with this API can be driven.
func presign(count: Int, group: any EventLoopGroup, endpoints: [(host: String, port: Int)], workingSet: [SoftCredential]) async throws
    -> [(body: [UInt8], credentialID: String)]
{
    let ticket = Ticket()
    let parts = try await withThrowingTaskGroup(of: [(Int, [UInt8], String)].self) { tasks in
        for _ in 0..<16 {
            let connections = try await Connections.connect(group: group, endpoints: endpoints)
            tasks.addTask {
                defer { Task { await connections.close() } }
                var made: [(Int, [UInt8], String)] = []
                let encoder = JSONEncoder()
                while case let index = ticket.next(), index < count {
                    let begin = try await connections.begin(index).post("/v1/authentication/begin", Array("{}".utf8))
                    guard begin.status == 200, let answer = try? JSONDecoder().decode(BeginAuthenticationAnswer.self, from: Data(begin.body)) else {
                        throw Fail(description: describe(begin, "pre-signing: authentication begin"))
                    }
                    var credential = workingSet.randomElement()!
                    var knobs = AssertionKnobs(origin: origin)
                    knobs.counterIncrement = 0  // as in the mixed phase: counter 0 stays 0, concurrent uses never race
                    let assertion = try SoftAuthenticator.authenticate(options: answer.publicKey, credential: &credential, knobs: knobs)
                    made.append((index, Array(try encoder.encode(FinishBody(credential: assertion))), assertion.id))
                }
                return made
            }
        }
        var all: [(Int, [UInt8], String)] = []
        for try await part in tasks { all += part }
        return all
    }
    return parts.sorted { $0.0 < $1.0 }.map { (body: $0.1, credentialID: $0.2) }
}

/// POST /v1/authentication/finish of pre-signed request `index` (round-robin over the instances), checked.
func presignedFinish(_ prepared: [(body: [UInt8], credentialID: String)]) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        let request = prepared[index]
        let t0 = ContinuousClock.now
        do {
            let answer = try await connections.spread(index).post("/v1/authentication/finish", request.body)
            return Outcome(finish: nanos(ContinuousClock.now - t0), error: checkAuthenticationFinish(answer, credentialID: request.credentialID))
        } catch {
            return Outcome(error: "authentication finish: \(error)")
        }
    }
}
