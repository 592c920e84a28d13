/// Carries loop-confined objects through another thread and back to their
/// loop, which alone dereferences them (hence `@unchecked Sendable`).
final class LoopBound<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
