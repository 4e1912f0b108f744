#if canImport(Glibc)
    import Glibc
#endif

/// The `Date:` header line (IMF-fixdate), recomputed at most once a second per loop.
struct HTTPDate {
    private var second: Int = -1
    private(set) var line: [UInt8] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Refreshes the cached line if the wall-clock second changed.
    mutating func refresh() {
        var now = time(nil)
        guard now != second else { return }
        second = now
        var parts = tm()
        gmtime_r(&now, &parts)
        line = Array("Date: \(Self.format(parts))\r\n".utf8)
    }

    static func format(_ parts: tm) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
