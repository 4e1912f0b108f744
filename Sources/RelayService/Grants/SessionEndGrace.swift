import RelaySync

/// How long CloudKit must keep refusing a grant's stored token before the relay ends the grant
/// (`RELAY_CLOUDKIT_SESSION_END_GRACE`). The first refusal is stamped on the grant
/// (`AuthorizationServer.markEnding`); calls until the stamp is `duration` old fail as
/// "unavailable", and a rotation saved meanwhile (an instance that held a newer token writes it as
/// soon as the store answers it) clears the stamp. 0 ends the grant at the first refusal.
struct SessionEndGrace: Sendable {
    var duration: Duration
    var clock: any WallClock = SystemClock()
}
