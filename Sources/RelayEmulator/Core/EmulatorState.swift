import Foundation
import RelaySync

/// The emulator's world behind one lock. Handlers call in from event loop threads; every call is
/// short and never blocks inside the lock (latency is slept outside it).
final class EmulatorState: Sendable {
    let configuration: EmulatorConfiguration
    private let world: Locked<World>
    private let persistence: StateFile?

    init(configuration: EmulatorConfiguration) throws(EmulatorError) {
        self.configuration = configuration
        var initial = World(
            settings: configuration.settings, callbackURL: configuration.callbackURL,
            schemas: SchemaState(configuration.schema, lenient: configuration.lenientSchema))
        if let path = configuration.stateFile {
            let file = StateFile(path: path)
            try file.load(into: &initial)
            persistence = file
        } else {
            persistence = nil
        }
        world = Locked(initial)
    }

    /// Milliseconds since 1970 on the emulator's clock (which tests may move forward).
    func now(_ world: borrowing World) -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded()) + world.clockOffsetMilliseconds
    }

    /// Runs `body` under the lock; `changed` schedules a save when a state file is configured.
    func withWorld<T>(changed: Bool = true, _ body: (inout World, Int64) throws(EmulatorError) -> T)
        throws(EmulatorError) -> T
    {
        let result = try world.withLock { world throws(EmulatorError) -> T in
            try body(&world, now(world))
        }
        if changed, let persistence { persistence.scheduleSave(self) }
        return result
    }

    /// Runs `body` under the lock when it cannot fail.
    func update<T>(changed: Bool = true, _ body: (inout World, Int64) -> T) -> T {
        let result = world.withLock { world in body(&world, now(world)) }
        if changed, let persistence { persistence.scheduleSave(self) }
        return result
    }

    /// The persisted part of the world, for the state file.
    func snapshot() -> Data { world.withLock { StateFile.encode($0) } }

    /// Writes the state file now (shutdown).
    func flush() { persistence?.saveNow(self) }
}
