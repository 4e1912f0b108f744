import RelayCloudKit
import RelaySync

/// What this process keeps between listings (`TodoDatabase.listing`), in memory only and none of it a to-do's
/// content: each person's Account settings with the change-feed position they are known to be current at, and
/// what CloudKit was seen to do with records that lack a query's sort field.
///
/// The Account: a long history needs the change feed (read your writes), the to-do query and the Account, three
/// calls where a fresh account needs one. The change feed read newest first holds every change made after any
/// record on it (WS FetchingRecordZoneChanges, `reverse`), so when the record that was newest when the Account
/// was read is still on the page with the same change tag and the Account is not, the Account has not changed
/// since: the remembered one is current and the listing makes two calls. Anything else (the marker gone or
/// changed, another CloudKit user, a feed not newest first) reads the Account again.
///
/// The sort: Apple does not document where a record without the sort field goes (first, last, or left out).
/// Once a sorted query returned such a record, they are known to be included; once one came before (or after) a
/// record with the field in ascending order, their end is known. That is a property of the service, not of a
/// person, so it is learnt once per process.
final class ListingMemory: Sendable {
    /// A feed entry: the newest record of the page the Account was read after.
    struct Marker: Equatable, Sendable {
        var recordName: String
        var changeTag: String
    }

    /// Where records without the sort field go in an ascending sort, as far as seen.
    enum MissingSortField: Equatable, Sendable {
        /// Not seen yet: they might be left out.
        case unknown
        /// Returned, their end not seen yet.
        case included
        /// Returned before every record with the field.
        case first
        /// Returned after every record with the field.
        case last
    }

    private struct Remembered {
        var account: Account
        var marker: Marker
        var at: ContinuousClock.Instant
    }

    private struct State {
        var accounts: [String: Remembered] = [:]
        var missing = MissingSortField.unknown
    }

    /// People remembered at most; beyond it the oldest half is dropped (one more Account lookup for them).
    static let maxAccounts = 10_000
    /// How long an Account is remembered without being used.
    static let lifetime = Duration.seconds(600)
    private let state = Locked(State())

    init() {}

    /// The Account remembered for `key` when `changes` (a feed page, newest first) shows it has not changed
    /// since: the marker is on the page with its change tag, and the Account record is not.
    func account(for key: String, accountName: String, changes: [RecordResult]) -> Account? {
        let now = ContinuousClock.now
        guard let remembered = state.withLock({ $0.accounts[key] }), now - remembered.at < Self.lifetime else {
            return nil
        }
        var markerSeen = false
        for change in changes {
            switch change {
            case .record(let record):
                if record.recordName == accountName { return nil }
                if record.recordName == remembered.marker.recordName {
                    guard record.recordChangeTag == remembered.marker.changeTag else { return nil }
                    markerSeen = true
                }
            case .deleted(let name):
                if name == accountName || name == remembered.marker.recordName { return nil }
            case .failure:
                return nil
            }
        }
        guard markerSeen else { return nil }
        state.withLock { $0.accounts[key]?.at = now }
        return remembered.account
    }

    /// Remembers `account`, read after the feed page `changes` (newest first), for `key`.
    func remember(_ account: Account, for key: String, changes: [RecordResult]) {
        guard let newest = changes.lazy.compactMap(\.record).first, let tag = newest.recordChangeTag else { return }
        let entry = Remembered(
            account: account, marker: Marker(recordName: newest.recordName, changeTag: tag), at: .now)
        state.withLock { state in
            if state.accounts.count >= Self.maxAccounts, state.accounts[key] == nil {
                let oldest = state.accounts.sorted { $0.value.at < $1.value.at }.prefix(Self.maxAccounts / 2)
                for (name, _) in oldest { state.accounts[name] = nil }
            }
            state.accounts[key] = entry
        }
    }

    /// What is known about records without the sort field.
    var missingSortField: MissingSortField { state.withLock { $0.missing } }

    /// Records what a sorted query (`ascending` or not) returned: `missingFirst` whether its first record lacks the
    /// sort field, `withField` whether a record with the field came after it.
    func saw(ascending: Bool, missingFirst: Bool, withField: Bool) {
        guard missingFirst else { return }
        state.withLock { state in
            if withField {
                state.missing = ascending ? .first : .last
            } else if state.missing == .unknown {
                state.missing = .included
            }
        }
    }
}
