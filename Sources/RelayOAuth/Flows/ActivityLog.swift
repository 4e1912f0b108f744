import RelayJSON
import RelayStore
import RelaySync

/// Counts of what each connection did, per UTC day and action, for the connections page and
/// `mustdo-relayctl grants activity` (issue 44). Days are UTC, as every other date of the
/// connections page ("Dates are UTC days"): the relay keeps no time zone of the person.
///
/// One item per grant and day (`GRANT#<id>` / `ACT#<day>`, members named by `ConnectionAction`),
/// written after a successful write tool call, off the response's path: one conditional increment
/// (`update` with `increment`, condition `.exists`); the first count of a day creates the item with
/// `put(.absent)` instead and then checks that the grant still exists, so a count racing the
/// grant's end never outlives it. Calls of one grant that arrive while its write is in flight are
/// added up and written together by that writer (one write for a burst, never one per call). The
/// item expires 30 days after its day, or when the grant ends if that is sooner, and goes with
/// the grant (`Grants.revoke`). A failed write is reported (`OAuthEvent.failure`) and dropped: a
/// tool call never waits for or fails on a count.
struct ActivityLog: Sendable {
    /// How many days the page shows and the store keeps.
    static let days = 30

    let context: OAuthContext
    private let batches = Locked([String: Batch]())

    private struct Batch {
        var grantID: String
        var day: Int
        var endsAt: Int?
        var counts: [String: Int] = [:]
    }

    init(context: OAuthContext) { self.context = context }

    /// Adds `count` of `action` to today's counts of the grant; returns the writer to run when this
    /// call must write (nil: a writer already in flight takes this count along). No I/O.
    func note(grantID: String, endsAt: Int?, action: ConnectionAction, count: Int) -> (@Sendable () async -> Void)? {
        guard count > 0 else { return nil }
        let day = UsageRecorder.day(context.now)
        let key = grantID + "#" + String(day)
        let starts = batches.withLock { batches -> Bool in
            if batches[key] != nil {
                batches[key]!.counts[action.rawValue, default: 0] += count
                return false
            }
            batches[key] = Batch(grantID: grantID, day: day, endsAt: endsAt, counts: [action.rawValue: count])
            return true
        }
        guard starts else { return nil }
        return { await drain(key) }
    }

    /// Writes the batch under `key` until nothing more arrived while writing.
    private func drain(_ key: String) async {
        while true {
            let taken = batches.withLock { batches -> Batch? in
                guard let batch = batches[key] else { return nil }
                if batch.counts.isEmpty {
                    batches[key] = nil
                    return nil
                }
                batches[key]!.counts = [:]
                return batch
            }
            guard let taken else { return }
            await write(taken)
        }
    }

    private func write(_ batch: Batch) async {
        let key = OAuthKeys.activity(batch.grantID, day: batch.day)
        let expiresAt = min((batch.day + Self.days) * 86400, batch.endsAt ?? Int.max)
        do {
            for _ in 0..<3 {
                if try await context.update(key, ItemUpdate(increment: batch.counts), condition: .exists) != nil {
                    return
                }
                let attributes = JSONObject(batch.counts.map { ($0.key, JSONValue.int($0.value)) })
                if try await context.put(key, attributes, expiresAt: expiresAt, condition: .absent) != nil {
                    // The grant may have ended between the call and this write: its counts go with it.
                    if try await context.get(OAuthKeys.grant(batch.grantID)) == nil {
                        _ = try await context.delete(key)
                    }
                    return
                }
                // Another instance created the day's item first: add to it.
            }
            context.events(.failure("activity count not written: the item kept changing"))
        } catch {
            context.events(.failure("activity count not written"))
        }
    }

    /// The grant's last `days` UTC days that had activity, newest first.
    func recent(grantID: String) async throws(OAuthError) -> [DayActivity] {
        let today = UsageRecorder.day(context.now)
        return try await context.queryAll(OAuthKeys.grantActivity(grantID))
            .compactMap(DayActivity.init(item:))
            .filter { $0.day > today - Self.days && !$0.counts.isEmpty }
            .sorted { $0.day > $1.day }
    }
}
