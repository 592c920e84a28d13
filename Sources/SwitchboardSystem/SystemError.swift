import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the call's name and the errno it left, so a log line
/// says exactly what the kernel refused.
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        let text = strerror(errno).map { String(cString: $0) } ?? "errno \(errno)"
        return "\(call): \(text)"
    }
}

/// Outcome of a non-blocking call: done with a value, or the kernel would block.
public enum IOResult<Value: Equatable>: Equatable {
    case processed(Value)
    case wouldBlock
}

@inline(__always)
func currentErrno() -> Int32 { csystem_errno() }

/// Runs `body` until it does not fail with EINTR. EAGAIN becomes `.wouldBlock`,
/// EBADF/EFAULT are programming errors (the fd or buffer is ours), anything
/// else throws with the call's name.
@inline(__always)
func retryingSyscall<T: FixedWidthInteger>(
    _ name: StaticString, blocking: Bool = false, _ body: () -> T
) throws(SystemError) -> IOResult<T> {
    while true {
        let result = body()
        if result >= 0 { return .processed(result) }
        let err = currentErrno()
        switch err {
        case EINTR: continue
        case EAGAIN where !blocking: return .wouldBlock
        case EBADF, EFAULT:
            preconditionFailure("\(name) failed with errno \(err): a bug in fd or buffer ownership")
        default:
            throw SystemError(call: "\(name)", errno: err)
        }
    }
}
