import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardRouting

/// The body of `PATCH /api/v1/operators/{id}`:
/// `{"capacity"?: 1..1000 | null, "status"?: "online"|"away"|"offline"}`, at
/// least one. `capacity` null gives the operator back the gateway's
/// `routing.max_sessions_per_operator`; an absent member is left as it is.
struct OperatorPatch {
    enum Capacity: Equatable {
        case unchanged
        case own(Int)
        case gatewayDefault
    }

    let capacity: Capacity
    let status: OperatorStatus?

    static let maxBodyBytes = 1024
    /// A person handling more conversations at once than this is a typo.
    static let capacityRange = 1...1000

    init(_ request: HTTPRequest) throws(ChatError) {
        let object = try JSONBody.object(request, maxBytes: Self.maxBodyBytes, allowed: ["capacity", "status"])
        if let raw = object["capacity"] {
            if raw.isNull {
                capacity = .gatewayDefault
            } else {
                guard let value = Self.wholeNumber(raw), Self.capacityRange.contains(value) else {
                    throw ChatError(
                        .badRequest,
                        "\"capacity\" must be an integer from \(Self.capacityRange.lowerBound) to "
                            + "\(Self.capacityRange.upperBound), or null for the gateway's default")
                }
                capacity = .own(value)
            }
        } else {
            capacity = .unchanged
        }
        if let raw = object["status"], !raw.isNull {
            guard let text = raw.stringValue, let chosen = OperatorStatus(rawValue: text) else {
                throw ChatError(.badRequest, "\"status\" must be \"online\", \"away\" or \"offline\"")
            }
            status = chosen
        } else {
            status = nil
        }
        guard capacity != .unchanged || status != nil else {
            throw ChatError(.badRequest, "nothing to change: give \"capacity\" or \"status\"")
        }
    }

    /// An integer in any JSON spelling of one (`3`, `3.0`, `3e0`: JSON Schema's `integer` takes them all), up to 10^6.
    private static func wholeNumber(_ raw: JSONValue) -> Int? {
        guard case .number(let number) = raw, let value = number.double, value == value.rounded(),
            abs(value) <= 1_000_000
        else { return nil }
        return Int(value)
    }

    /// Who may make this change to `operatorID`: an admin anything, an
    /// operator only its own status.
    func refusal(by identity: Identity, of operatorID: String) -> ChatError? {
        if identity.role == .admin { return nil }
        if capacity != .unchanged { return ChatError(.forbidden, "only an admin may set an operator's capacity") }
        if operatorID != identity.id {
            return ChatError(.forbidden, "an operator may set only its own status; an admin may set anyone's")
        }
        return nil
    }
}
