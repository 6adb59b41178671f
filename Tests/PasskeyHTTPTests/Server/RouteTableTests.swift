import Foundation
import Hummingbird
@testable import PasskeyHTTP
import Testing

/// The route table (Server/RouteTable.swift) is the one place a route's method, path, access, operation name and
/// operationId are declared: it agrees with openapi.json both ways, and the router registers exactly its routes.
@Suite("Route table")
struct RouteTableTests {
    /// `:name` → `{name}`, the document's template form.
    static func template(_ path: String) -> String { path.replacing(/:(\w+)/) { "{\($0.1)}" } }

    @Test("every documented operation is in the table at its method and path with its operationId, and the reverse")
    func agreesWithTheDocument() throws {
        let document = try OpenAPIDocument.load()
        let documented = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.key, $0.operationId ?? "") })
        let table = Dictionary(uniqueKeysWithValues: Operation.all.compactMap { operation in
            operation.operationID.map { ("\(operation.method.rawValue) \(Self.template(operation.path))", $0) }
        })
        #expect(documented.count >= 50)
        for (key, operationID) in documented {
            #expect(table[key] == operationID, "openapi.json has \(key) as \(operationID); the route table has \(table[key] ?? "nothing")")
        }
        for (key, operationID) in table {
            #expect(documented[key] == operationID, "the route table has \(key) as \(operationID); openapi.json has \(documented[key] ?? "nothing")")
        }
        // Only the demo page's routes stay out of the document.
        for operation in Operation.all where operation.operationID == nil {
            #expect(operation.path.hasPrefix("/demo/"), "\(operation.name) has no operationId")
        }
    }

    @Test("names, operationIds and (method, path) pairs are unique; `all` lists every declared operation once")
    func unique() {
        let all = Operation.all
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(Set(all.compactMap(\.operationID)).count == all.compactMap(\.operationID).count)
        #expect(Set(all.map { "\($0.method.rawValue) \($0.path)" }).count == all.count)
        #expect(Set(all).count == all.count)
    }

    @Test("with every feature on, the router registers exactly the table's routes (and the demo page's static files)")
    func routerRegistersTheTable() async throws {
        let harness = try await OpenAPIHarness()
        let routed = Set(harness.routes)
        let table = Set(Operation.all.filter { !$0.path.hasPrefix("/demo/") }.map { "\($0.method.rawValue) \(Self.template($0.path))" })
        let nonDemo = routed.filter { !$0.contains(" /demo") }
        #expect(nonDemo == table, "routed but not in the table: \(nonDemo.subtracting(table).sorted()); in the table but not routed: \(table.subtracting(nonDemo).sorted())")
    }
}
