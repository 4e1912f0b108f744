import RelayStore
import RelaySync

/// The cap on registered clients that nobody has used yet, held across instances through three
/// counters per day in the store: new clients asked for that day (`LIMIT#clients-created#*`),
/// those of them refused by this cap (`LIMIT#clients-refused#*`), and those that completed a
/// token exchange since (`LIMIT#clients-used#*`). Created less refused less used is the day's
/// unused clients, whichever instance made them.
///
/// An unused client lives `unusedClient` seconds (30 days), so unused clients created more than
/// `days = ⌈unusedClient / 86400⌉` whole days ago are gone. Allowing `maximum / (days + 1)` unused
/// clients per day therefore keeps at most `maximum` unused clients stored at any moment, however
/// many addresses a flood comes from; clients people actually use do not count (they are
/// connections, bounded by people). Past the day's share a new client is refused with 503 and
/// `Retry-After` until the next day (or until enough of the day's clients are used, checked again
/// after at most a minute); registrations identical to a stored client still succeed, and client
/// ID metadata documents are unaffected.
///
/// Cost per new client: one write (created) and two reads (refused, used); per refusal: one
/// write (refused), and none at all for a minute after on the instance that refused; per
/// client's first token exchange: one write (used).
final class ClientCapacity: Sendable {
    static let window = 86400

    private let context: OAuthContext
    /// Unused clients allowed per day.
    let perDay: Int
    /// This instance found the day's share spent: refuse without asking the store until then.
    private let spentUntil = Locked<Int>(0)

    init(context: OAuthContext) {
        self.context = context
        let configuration = context.configuration
        let days = (configuration.lifetimes.unusedClient + Self.window - 1) / Self.window
        perDay = max(1, configuration.maximumUnusedClients / (days + 1))
    }

    /// The window (day start) a client created now belongs to, or the seconds to wait when the
    /// day's share of unused clients is spent.
    func admit() async throws(OAuthError) -> Result<Int, Wait> {
        let now = context.now
        let start = now - now % Self.window
        let until = spentUntil.withLock { $0 }
        if until > now { return .failure(Wait(seconds: until - now)) }
        let keys = keys(start)
        let created = try await context.increment(keys.created, expiresAt: expiry(start))
        let refused = try await context.counterValue(keys.refused)
        let used = try await context.counterValue(keys.used)
        guard created - refused - used > perDay else { return .success(start) }
        // This attempt stores nothing: take it back out of the day's unused clients.
        _ = try? await context.increment(keys.refused, expiresAt: expiry(start))
        let end = start + Self.window
        // Look again within a minute: clients of this day may be used meanwhile and free room.
        spentUntil.withLock { $0 = min(end, now + 60) }
        return .failure(Wait(seconds: end - now))
    }

    /// Counts the first token exchange of a client created in window `start`.
    func clientUsed(createdIn start: Int) async {
        guard start % Self.window == 0, start + Self.window + context.configuration.lifetimes.unusedClient > context.now
        else { return }
        _ = try? await context.increment(keys(start).used, expiresAt: expiry(start))
    }

    /// The seconds to wait, for `Retry-After`.
    struct Wait: Error, Equatable {
        var seconds: Int
    }

    private func keys(_ start: Int) -> (created: ItemKey, refused: ItemKey, used: ItemKey) {
        (
            OAuthKeys.limitCounter("clients-created", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-refused", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-used", subject: "*", window: start)
        )
    }

    /// A day's counters are needed while its clients may be unused and alive.
    private func expiry(_ start: Int) -> Int {
        start + Self.window + context.configuration.lifetimes.unusedClient + SharedLimiter.skewAllowance
    }
}
