import Foundation
import RelayJSON
import Testing

@testable import RelayOperator
@testable import RelayService

extension EndToEndSuite {
    /// The shape of `mustdo-relayctl`: help on every group and command, `--json` from every command,
    /// exit codes, and confirmation of destructive commands on a terminal or with `--yes`.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlCommandTests {
        @Test func testEveryGroupAndCommandPrintsItsHelp() async throws {
            let top = try await Relayctl.run(["--help"])
            #expect(top.status == 0)
            for group in AdminGroup.all {
                #expect(top.stdout.contains("  \(group.name) "), "\(group.name) missing from --help:\n\(top.stdout)")
                let groupHelp = try await Relayctl.run([group.name, "--help"])
                #expect(groupHelp.status == 0, "\(groupHelp.description)")
                #expect(
                    groupHelp.stdout.contains("Usage: mustdo-relayctl \(group.name) <command>"), "\(groupHelp.stdout)")
                for command in group.commands {
                    #expect(
                        groupHelp.stdout.contains("  \(command.name)"),
                        "\(command.name) missing from \(group.name) --help")
                    for form in [
                        [group.name, command.name, "--help"], ["help", group.name, command.name],
                        [group.name, command.name, "-h"],
                    ] {
                        let help = try await Relayctl.run(form)
                        #expect(help.status == 0, "\(form): \(help)")
                        #expect(help.stdout.contains("Usage: \(command.usageLine)"), "\(form): \(help.stdout)")
                        #expect(help.stdout.contains("Exit codes: 0 success, 1 the command failed, 2 usage error."))
                        #expect(help.stdout.contains("--yes") == command.destructive, "\(form): --yes in help")
                    }
                }
            }
            let bare = try await Relayctl.run([])
            #expect(bare.status == 2)
            #expect(bare.stdout.contains("Usage: mustdo-relayctl"), "\(bare.description)")
        }

        @Test func testEveryCommandAnswersJSONOnStdout() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            var count = 0
            for group in AdminGroup.all {
                for command in group.commands {
                    var arguments = [group.name, command.name]
                    if command.arguments.hasPrefix("USER_RECORD_NAME") {
                        arguments.append("_0123456789abcdef0123456789abcdef")
                    } else if command.arguments.hasPrefix("ID") || command.arguments.hasPrefix("USER_ID") {
                        arguments.append("no-such-id")
                    }
                    let result = try await Relayctl.run(
                        arguments + ["--json", "--yes", "--config", service.configFile])
                    #expect(result.status != 2, "\(arguments): \(result)")
                    #expect(result.json != nil, "\(arguments) did not print one JSON value: \(result)")
                    #expect(result.stdout.split(separator: "\n").count == 1, "\(arguments): \(result)")
                    if result.status == 1 {
                        #expect(result.json?["error"]?.stringValue != nil, "\(arguments): \(result)")
                    }
                    count += 1
                }
            }
            #expect(count == 19)  // 17, `clients add` (issue 41) and `grants activity` (issue 44)
        }

        @Test func testConfigCheckListsEveryProblemAndAStoreIsNeverCreatedByAccident() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            chmod(service.path + "/secrets/master-keys", 0o640)
            try FileManager.default.removeItem(atPath: service.path + "/secrets/cloudkit-api-token")
            let check = try await Relayctl.run(
                ["config", "check", "--json", "--config", service.configFile],
                environment: ["RELAY_OAUTH_REDIRECT_ALLOWLIST": "nope"])
            #expect(check.status == 1, "\(check.description)")
            #expect(check.json?["valid"]?.boolValue == false)
            let problems = check.json?["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(problems.count == 3, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("RELAY_OAUTH_REDIRECT_ALLOWLIST: invalid pattern \"nope\"") })
            #expect(problems.contains { $0.hasPrefix("RELAY_LOCAL_KEY_FILE:") && $0.contains("chmod 600") })
            #expect(
                problems.contains { $0.hasPrefix("RELAY_CLOUDKIT_API_TOKEN_FILE:") && $0.contains("does not exist") })

            let list = try await Relayctl.run(["clients", "list", "--config", service.configFile])
            #expect(list.status == 1, "\(list.description)")
            #expect(
                list.stderr.contains("there is no store at \(service.path)/relay.sqlite yet"), "\(list.description)")
            #expect(!FileManager.default.fileExists(atPath: service.path + "/relay.sqlite"))
            let migrate = try await Relayctl.run(["store", "migrate", "--config", service.configFile])
            #expect(migrate.status == 0, "\(migrate.description)")
            #expect(FileManager.default.fileExists(atPath: service.path + "/relay.sqlite"))
            let listed = try await Relayctl.run(["clients", "list", "--config", service.configFile])
            #expect(listed.stdout == "no clients\n", "\(listed.description)")
        }

        @Test func testUsageErrorsExitWith2AndSayWhatIsWrong() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let cases: [([String], String)] = [
                (["nope"], "unknown command \"nope\""),
                (["clients", "nope"], "unknown command \"clients nope\""),
                (["clients"], "clients needs a command"),
                (["clients", "show"], "client ID is missing"),
                (["clients", "show", "a", "b"], "expected one client ID, got 2 arguments"),
                (["clients", "list", "extra"], "unexpected argument \"extra\""),
                (["clients", "show", "--abc"], "unknown option \"--abc\""),
                (["clients", "show", "-x"], "unknown option \"-x\""),
                (["clients", "purge-unused", "--older-than", "soon"], "\"soon\" is not a duration"),
                (["grants", "list", "--user"], "--user needs a value"),
                (["users", "id", "two words"], "a user record name is one word"),
                (["users", "id", "alice@example.com"], "that is an e-mail address"),
                (["keys", "rotate"], "standard input is not a terminal: add --yes to go ahead"),
                (["pepper", "rotate"], "add --yes to go ahead"),
            ]
            for (arguments, message) in cases {
                let result = try await Relayctl.run(arguments + ["--config", service.configFile])
                #expect(result.status == 2, "\(arguments): \(result)")
                #expect(result.stderr.contains(message), "\(arguments): \(result)")
            }
            // Base64url IDs may start with "-": they are arguments, not options.
            let migrated = try await Relayctl.run(["store", "migrate", "--config", service.configFile])
            #expect(migrated.status == 0, "\(migrated.description)")
            let dashed = try await Relayctl.run([
                "clients", "show", "-6o7PY6w6SAEe1l0bGLY3A", "--config", service.configFile,
            ])
            #expect(dashed.status == 1, "\(dashed.description)")
            #expect(dashed.stderr.contains("no client -6o7PY6w6SAEe1l0bGLY3A"), "\(dashed.description)")
            let json = try await Relayctl.run(["nope", "--json"])
            #expect(json.status == 2)
            #expect(json.json?["error"]?.stringValue?.hasPrefix("unknown command") == true, "\(json.description)")
            // Nothing was changed by the refused rotations.
            let keys = try await Relayctl.run(["keys", "list", "--json", "--config", service.configFile])
            #expect(keys.json?["keys"]?.arrayValue?.count == 1, "\(keys.description)")
            let pepper = try String(contentsOfFile: service.path + "/secrets/pepper", encoding: .utf8)
            #expect(pepper.hasPrefix("1 "), "\(pepper.isEmpty ? "empty" : "rotated")")
        }

        @Test func testADestructiveCommandAsksOnATerminal() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let declined = try PseudoTerminal()
            declined.type("n")
            let no = try await Relayctl.run(["keys", "rotate", "--config", service.configFile], stdin: declined.slave)
            #expect(no.status == 1, "\(no.description)")
            #expect(
                no.stderr.contains("Add a new master key to \(service.path)/secrets/master-keys?"), "\(no.description)")
            #expect(no.stderr.contains("[y/N]"), "\(no.description)")
            #expect(no.stderr.contains("cancelled; nothing was changed"), "\(no.description)")
            let unchanged = try await Relayctl.run(["keys", "list", "--json", "--config", service.configFile])
            #expect(unchanged.json?["keys"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["k1"])

            let accepted = try PseudoTerminal()
            accepted.type("y")
            let yes = try await Relayctl.run(["keys", "rotate", "--config", service.configFile], stdin: accepted.slave)
            #expect(yes.status == 0, "\(yes.description)")
            #expect(yes.stdout.contains("added k2"), "\(yes.description)")
            let rotated = try await Relayctl.run(["keys", "list", "--json", "--config", service.configFile])
            let keys = rotated.json?["keys"]?.arrayValue ?? []
            #expect(keys.compactMap { $0["id"]?.stringValue } == ["k1", "k2"])
            #expect(keys.compactMap { $0["current"]?.boolValue } == [false, true])
            // Key material never reaches the output.
            let file = try String(contentsOfFile: service.path + "/secrets/master-keys", encoding: .utf8)
            for line in file.split(separator: "\n") where !line.hasPrefix("#") {
                let key = String(line.split(separator: " ")[1])
                #expect(!(yes.stdout.contains(key) || rotated.stdout.contains(key)), "a master key was printed")
            }
        }
    }
}
