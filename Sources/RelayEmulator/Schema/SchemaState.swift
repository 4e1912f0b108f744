/// The container's schema in each environment. Production is the configured schema and never changes; a save
/// in development adds the record types and fields it uses, as Apple's just-in-time schema does ("available
/// only when you use the development environment": CloudKit Quick Start, "Creating a Database Schema by
/// Saving Records"). Lenient mode (`EmulatorConfiguration.lenientSchema`) checks nothing, in either environment.
struct SchemaState: Sendable {
    /// The deployed schema.
    let production: ContainerSchema
    /// The production schema plus what development saves created.
    var development: ContainerSchema
    /// Accept any record type, field and query.
    let lenient: Bool

    init(_ schema: ContainerSchema, lenient: Bool) {
        production = schema
        development = schema
        self.lenient = lenient
    }

    /// How a call to `environment` (`development` or `production`) is checked.
    func mode(_ environment: String) -> SchemaMode {
        if lenient { return .lenient }
        return environment == "production" ? .production : .development
    }

    /// The schema a call in `mode` sees.
    func schema(_ mode: SchemaMode) -> ContainerSchema { mode == .production ? production : development }
}

/// How strictly one call is checked against the schema.
enum SchemaMode: Sendable, Equatable {
    /// Unknown types and fields are refused; queries need their indexes.
    case production
    /// Saves create unknown types and fields (without indexes); queries need their indexes.
    case development
    /// Nothing is checked (a test that needs it says so).
    case lenient

    /// Whether a save may add a record type or a field.
    var createsSchema: Bool { self != .production }
    /// Whether queries must be served by the schema's indexes.
    var checksIndexes: Bool { self != .lenient }
}
