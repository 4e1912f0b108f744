/// Every failure a `Store` reports, split so callers can decide: a failed condition is an answer
/// (someone else won), `throttled` means back off and retry, `unavailable` means the backend is down
/// or too slow, `invalid` is a bug in the request. Messages never contain attribute values.
package enum StoreError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The write's condition did not hold; nothing was changed.
    case conditionFailed
    /// The backend refused the request for now (capacity, queue full); retrying later may work.
    case throttled
    /// The backend failed, is unreachable or did not answer in time. For a write that timed out
    /// after it started, the reason says the outcome is unknown.
    case unavailable(String)
    /// The request itself is wrong (empty key, item too large, condition that cannot apply).
    case invalid(String)

    package var description: String {
        switch self {
        case .conditionFailed: "store condition failed"
        case .throttled: "store throttled"
        case .unavailable(let reason): "store unavailable: \(reason)"
        case .invalid(let reason): "invalid store request: \(reason)"
        }
    }
}
