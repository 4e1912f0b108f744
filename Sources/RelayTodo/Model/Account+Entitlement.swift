import Foundation

extension Account {
    /// How long the free trial lasts.
    public static let trialLength: TimeInterval = 30 * 86400

    /// The entitlement hint for `add_todo`: the subscription runs past `now`, or the trial started less than
    /// 30 days ago (or has not started), or the app mirrored `canAddTodos = 1`. The app decides with StoreKit;
    /// the relay only reads the hint, and never gates snooze, done, update or delete.
    public func canAddTodos(now: Date) -> Bool {
        if let subscribedUntil, subscribedUntil > now { return true }
        guard let trialStartedAt else { return true }
        if now < trialStartedAt.addingTimeInterval(Account.trialLength) { return true }
        return canAddTodosHint == true
    }
}
