import RelayJSON

/// `retryAfter` in a CloudKit error body. Its unit is not documented: the native framework's `CKRetryAfter` is
/// seconds (30 in TN3162's example, 20.5 and a `retry-after: 30` header in Apple Developer Forums thread
/// 770908), but TN3162's Web Services example says `"retryAfter":110207`, which as seconds would be 30 hours
/// and as milliseconds 110 seconds. So the magnitude decides: below 1000 it is seconds (a throttle of 1000
/// seconds or more has not been seen), from 1000 up milliseconds. Callers cap what they wait for
/// (`CloudKitRetryPolicy.maxRetryAfter`) and what they tell others (`maxAdvised`).
/// https://developer.apple.com/documentation/technotes/tn3162-understanding-cloudkit-throttles
package enum RetryAfter {
    /// From this value up, `retryAfter` is read as milliseconds.
    package static let millisecondsFrom = 1000.0
    /// The longest wait worth telling a caller (five minutes): a longer one is more likely a misread unit than a
    /// real throttle, and asking again after five minutes costs one refused call.
    package static let maxAdvised: Duration = .seconds(300)

    /// The wait a body's `retryAfter` asks for; nil when absent, not a number, or not positive.
    package static func duration(_ json: JSONValue?) -> Duration? {
        guard let value = json?.doubleValue, value.isFinite, value > 0 else { return nil }
        if value >= millisecondsFrom { return .milliseconds(Int64(min(value, 1e12))) }
        return .milliseconds(Int64((value * 1000).rounded(.up)))
    }

    /// Whole seconds to tell a caller for `duration`: rounded up, at least 1, at most `maxAdvised`.
    package static func advisedSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = min(duration, maxAdvised).components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
