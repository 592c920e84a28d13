/// Who a session is assigned to, for inbox filtering.
public enum AssignedFilter: Sendable, Equatable {
    /// Every session, assigned or not.
    case any
    /// Sessions without an assigned operator.
    case unassigned
    /// Sessions assigned to this operator (whatever their status: a closed session keeps its operator).
    case operatorID(String)

    /// The two parameters the inbox query takes: the mode ('unassigned' or 'operator', nil for any) and the operator id.
    var parameters: (mode: String?, operatorID: String?) {
        switch self {
        case .any: return (nil, nil)
        case .unassigned: return ("unassigned", nil)
        case .operatorID(let id): return ("operator", id)
        }
    }
}
