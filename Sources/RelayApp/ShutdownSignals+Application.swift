import RelayHTTP

extension ShutdownSignals {
    /// Watches SIGTERM/SIGINT and drains `application`'s server when one arrives.
    public convenience init(_ application: Application) {
        let server = application.server
        self.init { _ in server.shutdown() }
    }
}
