import RelayStore
import RelaySync

/// "Last used" for the connections page and `grants list`: the day (UTC) a grant last served an
/// MCP request, at most one store write per grant and day.
///
/// Bearer validation already reads the grant's record on a cache miss, so each validated grant
/// arrives knowing the day last written (`BearerGrant.lastUsedDay`): nothing more is read on a
/// request. When that day is not today, the first request of this process claims the grant for
/// today in memory (a lock and a set lookup; the set is emptied when the day changes), and only
/// that request writes, off the response's path (`AuthorizationServer.noteUse`). The write is one
/// update conditional on the version validation read; if the grant changed since (a CloudKit token
/// rotation, a refresh, another instance's write of the same day), one read decides whether a
/// second conditional update is still needed. Other instances see the written day in the record
/// their next validation reads, so several instances add at most a write each in a race.
///
/// The update bumps the grant's version, which the version-checked writes on the grant already
/// expect from concurrent changes: a CloudKit token rotation re-reads and saves again
/// (`replaceSealed`), a refresh rotation retries. That costs a read and a write, once a day, and
/// only when both happen at the same moment.
struct UsageRecorder: Sendable {
    let context: OAuthContext
    private let claimed = Locked(Claimed())

    private struct Claimed {
        var day = Int.min
        var grants: Set<String> = []
    }

    init(context: OAuthContext) { self.context = context }

    /// The UTC day of `epochSeconds`, in days since 1970-01-01.
    static func day(_ epochSeconds: Int) -> Int { Int((Double(epochSeconds) / 86400).rounded(.down)) }

    /// The day to write for `grant`, now claimed for this process; nil when its record already says
    /// today or another request of this process claimed it. No I/O.
    func claim(_ grant: BearerGrant) -> Int? {
        let today = Self.day(context.now)
        if let used = grant.lastUsedDay, used >= today { return nil }
        return claimed.withLock { claimed in
            if claimed.day != today { claimed = Claimed(day: today) }
            return claimed.grants.insert(grant.grantID).inserted ? today : nil
        }
    }

    /// Writes `day` on the grant (see the type's comment). A failed write is not retried: "last
    /// used" then stays a day behind until the next day, and nothing else is lost (the store failure
    /// itself is reported through the audit hook).
    func record(_ grant: BearerGrant, day: Int) async {
        let key = OAuthKeys.grant(grant.grantID)
        let update = ItemUpdate(set: ["used_day": .int(day)])
        do {
            if try await context.update(key, update, condition: .versionEquals(grant.grantVersion)) != nil { return }
            guard let item = try await context.get(key), let current = GrantRecord(item: item),
                current.state == .active, (current.lastUsedDay ?? Int.min) < day
            else { return }
            _ = try await context.update(key, update, condition: .versionEquals(item.version))
        } catch {
            return
        }
    }
}
