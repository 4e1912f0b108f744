/// How an `Emulator` listens and what it accepts. Behaviour that tests switch at run time lives
/// in `EmulatorSettings`.
package struct EmulatorConfiguration: Sendable {
    /// Address to listen on. The control API answers loopback peers only, whatever this is.
    package var host: String
    /// TCP port; 0 picks a free one (read it back from `Emulator.port`).
    package var port: Int
    /// Event loop threads.
    package var eventLoops: Int
    /// The `ckAPIToken` every database call must carry.
    package var apiToken: String
    /// The only container accepted; nil accepts any.
    package var container: String?
    /// Where the sign-in page sends the browser with `ckWebAuthToken` and `ckSession`; nil shows
    /// the token on a page instead. `Emulator.setCallbackURL(_:)` changes it later (a demo that
    /// learns its own port after starting).
    package var callbackURL: String?
    /// The emulator's own origin as browsers reach it (for `redirectURL`); nil means
    /// `http://<host>:<port>`.
    package var publicURL: String?
    /// The zone created for every user at first sign-in.
    package var zoneName: String
    /// Whether a user's first sign-in creates `zoneName` (as if the app had synced); false leaves only the default
    /// zone, as for an account that never ran the app.
    package var createsZoneAtSignIn: Bool
    /// The container's schema (production's, and development's starting point): the relay's by default,
    /// `deploy/cloudkit/schema.ckdb`.
    package var schema: ContainerSchema
    /// Check nothing against the schema in either environment: any record type, field and query is accepted,
    /// as before the emulator knew schemas. Only for tests that say why they need it.
    package var lenientSchema: Bool
    /// A JSON file the users, records and sessions are kept in across restarts; nil keeps them in memory only.
    package var stateFile: String?
    /// Run-time behaviour (token rotation, response shapes…), changeable through the control API.
    package var settings: EmulatorSettings

    /// A configuration for tests: loopback, a free port, one loop.
    package init(
        host: String = "127.0.0.1",
        port: Int = 0,
        eventLoops: Int = 1,
        apiToken: String = "emulator-api-token",
        container: String? = nil,
        callbackURL: String? = nil,
        publicURL: String? = nil,
        zoneName: String = "MustDo",
        createsZoneAtSignIn: Bool = true,
        schema: ContainerSchema = .relay,
        lenientSchema: Bool = false,
        stateFile: String? = nil,
        settings: EmulatorSettings = EmulatorSettings()
    ) {
        self.host = host
        self.port = port
        self.eventLoops = eventLoops
        self.apiToken = apiToken
        self.container = container
        self.callbackURL = callbackURL
        self.publicURL = publicURL
        self.zoneName = zoneName
        self.createsZoneAtSignIn = createsZoneAtSignIn
        self.schema = schema
        self.lenientSchema = lenientSchema
        self.stateFile = stateFile
        self.settings = settings
    }

    /// The zone a first sign-in creates, if any.
    var zoneAtSignIn: String? { createsZoneAtSignIn ? zoneName : nil }
}
