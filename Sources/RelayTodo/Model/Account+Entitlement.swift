import Foundation
import RelaySync

extension Account {
    /// How long the free trial lasts.
    package static let trialLength: Duration = .seconds(30 * 86400)

    /// The entitlement hint for `add_todo`. The device decides with StoreKit and mirrors its verdict into the
    /// Account record (seed, "What we gave up"), so an explicit `canAddTodos` wins either way. Only when it is
    /// absent do the dates decide: the subscription runs past `now`, or the trial started less than 30 days ago
    /// or has not started. No Account record at all allows. The relay never gates snooze, done, update or
    /// delete.
    package func canAddTodos(now: Date) -> Bool {
        if let canAddTodosHint { return canAddTodosHint }
        if let subscribedUntil, subscribedUntil > now { return true }
        guard let trialStartedAt else { return true }
        return now < trialStartedAt.addingTimeInterval(Account.trialLength.seconds)
    }
}
