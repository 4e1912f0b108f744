import RelayHTTP

extension ShutdownSignals {
    /// Watches SIGTERM/SIGINT and drains `application`'s server when one arrives.
    public convenience init(_ application: Application) {
        self.init { _ in application.shutdown() }
    }
}
