import Foundation
import RelayJSON
import RelayStore
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// `mustdo-relayctl clients list|show` print client names the way an operator can trust: a name
    /// stored with a bidirectional override, a zero-width or another hidden character (an older record,
    /// or one written by another tool) shows `?` in its place and cannot rewrite the terminal.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlDisplayTests {
        @Test func testHiddenCharactersInAStoredClientNameNeverReachTheOperatorsTerminal() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let migrate = try await Relayctl.run(["store", "migrate", "--config", service.configFile])
            #expect(migrate.status == 0, "\(migrate.description)")
            let store = try await SQLiteStore.open(path: service.path + "/relay.sqlite")
            let name = "Claude\u{202E}exe.txt\u{200B}\u{2028}\u{1B}[2J\u{FEFF}"
            _ = try await store.put(
                ItemKey(pk: "CLIENT#hidden-name-client", sk: "META"),
                attributes: [
                    "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"], "method": "none",
                    "grant_types": ["authorization_code", "refresh_token"], "issued": 1_767_225_600,
                    "name": .string(name),
                ])
            await store.close()

            for arguments in [["clients", "list"], ["clients", "show", "hidden-name-client"]] {
                let result = try await Relayctl.run(arguments + ["--config", service.configFile])
                #expect(result.status == 0, "\(result.description)")
                #expect(result.stdout.contains("Claude?exe.txt???[2J?"), "\(result.stdout)")
                let hidden = result.stdout.unicodeScalars.filter { scalar in
                    scalar != "\n"
                        && (scalar.properties.generalCategory == .control
                            || scalar.properties.generalCategory == .format || scalar == "\u{2028}")
                }
                #expect(hidden.isEmpty, "\(arguments): \(hidden.map { String($0.value, radix: 16) })")
            }
        }
    }
}
