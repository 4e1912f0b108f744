import RelayStore

extension Backends {
    /// What `serve` proves before it listens: the key service makes and opens a data key (a wrong
    /// `RELAY_KMS_KEY_ID`, a key without the permissions, an unreachable KMS) and the store answers a
    /// read (an unreachable DynamoDB endpoint, a missing table). Without either no person can connect,
    /// so the instance must not join a load balancer's rotation; systemd's restart tries again.
    package func verifyAtStart() async throws(Failure) {
        if let problem = await ConfigurationCheck.roundTrip(keyService) {
            throw Failure(description: problem)
        }
        do {
            _ = try await store.get(ItemKey(pk: "RELAY#READY", sk: "CHECK"))
        } catch {
            throw Failure(description: "RELAY_STORE: the store does not answer a read: \(error)")
        }
    }
}
