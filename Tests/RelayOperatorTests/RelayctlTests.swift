import Foundation
import RelayService
import Testing

@testable import RelayOperator

/// `mustdo-relayctl`'s own logic, in process: how it prints what a client chose (a client name
/// must not rewrite the operator's terminal), its tables and times, its command line, and what a
/// command refuses before it touches anything. The commands against real stores run as a program
/// in `EndToEndTests/RelayctlAdminTests`.
@Suite struct RelayctlTests {
    @Test func timesAndDaysAreUTC() {
        #expect(AdminFormat.time(0) == "1970-01-01 00:00:00Z")
        #expect(AdminFormat.time(1_796_000_000) == "2026-11-30 00:53:20Z")
        #expect(AdminFormat.time(nil) == "-")
        #expect(AdminFormat.day(20_422) == "2025-11-30")
        #expect(AdminFormat.day(nil) == "-")
    }

    /// Bidirectional overrides, controls and zero-width characters in a name a client registered
    /// become `?`; a long name is cut; nothing else changes.
    @Test func textAClientChoseIsMadeSafeForATerminal() {
        #expect(AdminFormat.safe("Claude") == "Claude")
        #expect(AdminFormat.safe("\u{202E}edualC") == "?edualC")
        #expect(AdminFormat.safe("a\u{1B}[2Jb") == "a?[2Jb")
        #expect(AdminFormat.safe("in\u{200B}visible") == "in?visible")
        #expect(AdminFormat.safe("日本語のアプリ") == "日本語のアプリ")
        #expect(AdminFormat.safe(nil) == "-" && AdminFormat.safe("") == "-")
        let long = AdminFormat.safe(String(repeating: "x", count: 500))
        #expect(long.count == 201 && long.hasSuffix("…"))
    }

    @Test func tablesAlignEveryColumnButTheLast() {
        let table = AdminFormat.table(
            ["ID", "NAME", "URI"], [["1", "Claude", "https://claude.ai/x"], ["22", "-", "-"]])
        #expect(
            table.split(separator: "\n") == [
                "ID  NAME    URI", "1   Claude  https://claude.ai/x", "22  -       -",
            ])
    }

    /// Every group's commands are distinct, and the usage names each group and command.
    @Test func theUsageListsEveryCommand() {
        for group in AdminGroup.all {
            #expect(Set(group.commands.map(\.name)).count == group.commands.count, "\(group.name)")
            #expect(
                RelayctlCommand.usage.contains("\(group.name) \(group.commands.map(\.name).joined(separator: "|"))"))
        }
        #expect(Set(AdminGroup.all.map(\.name)).count == AdminGroup.all.count)
    }

    /// Exit codes: 0 for help and the version, 2 for a usage error (an unknown group or command,
    /// a missing word).
    @Test func exitCodesSayWhatWentWrong() async {
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "--version"]) == 0)
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "help"]) == 0)
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "--help"]) == 0)
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "no-such-group", "list"]) == 2)
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "clients", "no-such-command"]) == 2)
        #expect(await RelayctlCommand.main(["mustdo-relayctl"]) == 2)
        #expect(await RelayctlCommand.main(["mustdo-relayctl", "clients", "list", "--config"]) == 2)
    }

    /// `--yes` goes ahead; without it and without a terminal a destructive command is refused with
    /// what to add, before anything is opened.
    @Test func aDestructiveCommandNeedsYesWithoutATerminal() throws {
        let go = AdminContext(configFile: nil, json: false, yes: true, environment: [:])
        try go.confirm("Delete every client?")
        guard isatty(STDIN_FILENO) == 0 else { return }  // run from a terminal: it would ask
        let ask = AdminContext(configFile: nil, json: false, yes: false, environment: [:])
        #expect {
            try ask.confirm("Delete every client?")
        } throws: { error in
            "\(error)".contains("add --yes")
        }
    }

    /// A configuration with problems is reported as such, naming the command that lists them; a
    /// memory store has nothing an operator's process could manage.
    @Test func aCommandRefusesWhatItCannotManage() async throws {
        let broken = AdminContext(
            configFile: nil, json: false, yes: true, environment: ["RELAY_ISSUER": "not a url", "RELAY_PORTT": "1"])
        #expect {
            _ = try broken.loadConfiguration()
        } throws: { error in
            "\(error)".contains("mustdo-relayctl config check")
        }
        let memory = AdminContext(configFile: nil, json: false, yes: true, environment: [:])
        var configuration = Configuration()
        configuration.store = .memory
        await #expect {
            _ = try await memory.openStore(configuration)
        } throws: { error in
            "\(error)".contains("RELAY_STORE is memory")
        }
    }
}
