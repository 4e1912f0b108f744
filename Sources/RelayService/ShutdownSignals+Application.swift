import RelayHTTP

extension ShutdownSignals {
    /// Watches SIGTERM/SIGINT and drains `application`'s server when one arrives.
    package convenience init(_ application: Application) {
        self.init { _ in application.shutdown() }
    }
}
