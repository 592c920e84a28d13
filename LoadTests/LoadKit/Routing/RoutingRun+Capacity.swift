import SwitchboardAuth
import SwitchboardJSON
import SwitchboardSystem

extension RoutingRun {
    /// With `--capacity C`: every operator's capacity set to C over the API
    /// (`PATCH /api/v1/operators/{id}`, as an admin), on the first node,
    /// once each has signed in (the API knows only operators it has seen).
    /// The invariants take the capacity the answer gives. nil when done.
    func setCapacities() -> String? {
        guard options.capacity > 0, let node = nodes.first else { return nil }
        let admin = token("lt-r-admin", .admin, "Load admin")
        for op in operators {
            let response: HTTPResponse
            do {
                response = try HTTPClient.request(
                    "PATCH", "/api/v1/operators/\(op.id)", port: node.port, host: node.host,
                    headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                    body: Array(#"{"capacity":\#(options.capacity)}"#.utf8), timeoutSeconds: 10)
            } catch {
                return "PATCH /api/v1/operators/\(op.id): \(error)"
            }
            guard response.status == 200, let answer = try? JSONParser.parse(response.text),
                let capacity = PythonFormat.int(answer["operator"]?["capacity"])
            else {
                return "PATCH /api/v1/operators/\(op.id) answered \(response.status): \(response.text.prefix(200))"
            }
            invariants.capacity(of: op.id, is: capacity)
            capacitySeen = capacity
        }
        return nil
    }
}
