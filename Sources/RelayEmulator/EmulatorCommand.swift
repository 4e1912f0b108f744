import Foundation
import RelayHTTP

/// `cloudkit-emulator`: parses the command line, runs the emulator until SIGTERM/SIGINT.
package enum EmulatorCommand {
    /// Runs the command; returns the exit status.
    package static func main(_ arguments: [String]) async -> Int32 {
        let configuration: EmulatorConfiguration
        do {
            guard let parsed = try parse(Array(arguments.dropFirst())) else {
                print(usage)
                return 0
            }
            configuration = parsed
        } catch {
            FileHandle.standardError.write(Data("cloudkit-emulator: \(error.reason)\nTry --help.\n".utf8))
            return 64
        }
        do {
            let emulator = try Emulator(configuration: configuration)
            try emulator.start()
            let signals = ShutdownSignals { _ in emulator.shutdown() }
            print("cloudkit-emulator listening on \(emulator.baseURL)")
            fflush(nil)
            await emulator.waitUntilStopped()
            signals.cancel()
            return 0
        } catch {
            FileHandle.standardError.write(Data("cloudkit-emulator: \(error.reason)\n".utf8))
            return 1
        }
    }

    /// The configuration for `arguments`, or nil when `--help` was asked for.
    package static func parse(_ arguments: [String]) throws(EmulatorError) -> EmulatorConfiguration? {
        var configuration = EmulatorConfiguration(port: 8787, eventLoops: 2)
        var settings = EmulatorSettings()
        var index = 0
        func value(_ name: String) throws(EmulatorError) -> String {
            index += 1
            guard index < arguments.count else { throw .control("\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": return nil
            case "--host": configuration.host = try value(argument)
            case "--port": configuration.port = try number(argument, try value(argument), 0...65535)
            case "--threads": configuration.eventLoops = try number(argument, try value(argument), 1...64)
            case "--api-token": configuration.apiToken = try value(argument)
            case "--api-token-file": configuration.apiToken = try secret(fromFile: try value(argument))
            case "--container": configuration.container = try value(argument)
            case "--callback": configuration.callbackURL = try value(argument)
            case "--public-url": configuration.publicURL = try value(argument)
            case "--zone": configuration.zoneName = try value(argument)
            case "--state": configuration.stateFile = try value(argument)
            case "--schema": configuration.schema = try schema(fromFile: try value(argument))
            case "--lenient-schema": configuration.lenientSchema = true
            case "--no-zone": configuration.createsZoneAtSignIn = false
            case "--schema-errors": try settings.apply(["schemaErrors": .string(try value(argument))])
            case "--rotation":
                guard let rotation = EmulatorSettings.Rotation(rawValue: try value(argument)) else {
                    throw .control("--rotation is invalidate or keep")
                }
                settings.rotation = rotation
            case "--token-lifetime":
                let seconds = try number(argument, try value(argument), 0...Int(Int32.max))
                settings.tokenLifetime = seconds == 0 ? nil : .seconds(seconds)
            case "--keep-signed-in-lifetime":
                let seconds = try number(argument, try value(argument), 0...Int(Int32.max))
                settings.keepSignedInLifetime = seconds == 0 ? nil : .seconds(seconds)
            case "--dead-token-status": settings.deadTokenStatus = try number(argument, try value(argument), 401...421)
            case "--caller-shape": try settings.apply(["callerShape": .string(try value(argument))])
            case "--callback-encoding": try settings.apply(["callbackEncoding": .string(try value(argument))])
            case "--create-exists-code": try settings.apply(["createExistsCode": .string(try value(argument))])
            case "--rotate-on-errors": settings.rotateOnErrors = true
            default: throw .control("unknown argument \"\(argument)\"")
            }
            index += 1
        }
        guard [401, 421].contains(settings.deadTokenStatus) else { throw .control("--dead-token-status is 421 or 401") }
        configuration.settings = settings
        return configuration
    }

    private static func number(_ name: String, _ text: String, _ range: ClosedRange<Int>) throws(EmulatorError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .control("\(name): \"\(text)\" is out of range")
        }
        return value
    }

    private static func schema(fromFile path: String) throws(EmulatorError) -> ContainerSchema {
        guard let data = FileManager.default.contents(atPath: path) else { throw .control("cannot read \(path)") }
        do {
            return try ContainerSchema(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw .control("\(path): \(error.reason)")
        }
    }

    private static func secret(fromFile path: String) throws(EmulatorError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .control("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
