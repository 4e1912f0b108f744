import Foundation
import RelayCloudKit
import RelayHTTP
import RelayMCP

/// `mustdo-relay local`: the MCP server on standard input and output that calls CloudKit directly with the
/// person's own token (docs/local.md), and its two helpers, `sign-in` and `sign-out`.
enum LocalCommand {
    static let usage = """
        Usage: mustdo-relay local [sign-in [--wait SECONDS] | sign-out]

          (none)    Serve MCP on standard input and output (newline-delimited JSON-RPC; logs on standard
                    error), with the relay's tools and prompts plus sign_in. Add it to Claude Code with:
                      claude mcp add mustdo -e MUSTDO_CK_API_TOKEN=<token> -- mustdo-relay local
          sign-in   Sign in to iCloud from a terminal: opens Apple's sign-in page (or prints the link) and
                    waits up to SECONDS (default 120) for the callback on localhost.
          sign-out  Delete the saved sign-in.

        Settings (environment; ~/.mustdo/config.json keys in brackets):
          MUSTDO_CK_API_TOKEN   the container's API token for the local server (required) [apiToken]
          MUSTDO_CK_ENV         production (default) or development [environment]
          MUSTDO_CK_CONTAINER   default iCloud.jp.lightning.mustdo [container]
          MUSTDO_CK_ZONE        default MustDo [zoneName]
          MUSTDO_CALLBACK_PORT  where the sign-in callback is caught, default 51234 [callbackPort]
          MUSTDO_HOME           default ~/.mustdo: config.json, auth.json (mode 0600) and auth.json.lock
          MUSTDO_CK_BASE_URL    default https://api.apple-cloudkit.com
          MUSTDO_BROWSER        command that opens a link; none = print it (default: open / xdg-open)
          MUSTDO_LOG_LEVEL      DEBUG, INFO (default), WARN or ERROR
        """

    /// Runs `mustdo-relay local …` with the arguments after `local`; returns the exit code.
    static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        var parser = ArgumentParser(arguments)
        let command = parser.next()
        if command == "-h" || command == "--help" || command == "help" {
            printError(usage)
            return 0
        }
        let settings: LocalSettings
        do {
            settings = try LocalSettings.load(environment: environment)
        } catch {
            printError("mustdo-relay local: the settings have problems:\n\(error)\nRun 'mustdo-relay local --help'.")
            return 1
        }
        do {
            switch command {
            case nil:
                return try await serve(settings)
            case "sign-in":
                let wait = try parser.value(for: "--wait").map { try seconds($0) } ?? 120
                try parser.finish()
                return try await signIn(settings, wait: wait)
            case "sign-out":
                try parser.finish()
                return try await signOut(settings)
            default:
                throw ArgumentParser.Failure("unknown command \"local \(command!)\"")
            }
        } catch let failure as ArgumentParser.Failure {
            printError("mustdo-relay local: \(failure.message)\nRun 'mustdo-relay local --help' for usage.")
            return 2
        } catch {
            printError("mustdo-relay local: \(error)")
            return 1
        }
    }

    private static func seconds(_ text: String) throws -> Int {
        guard let value = Int(text), (10...600).contains(value) else {
            throw ArgumentParser.Failure("--wait takes seconds between 10 and 600")
        }
        return value
    }

    /// The parts every subcommand needs.
    struct Parts {
        let logger: Logger
        let client: CloudKitClient
        let session: LocalSession
        let signIn: LocalSignIn

        init(_ settings: LocalSettings) throws {
            logger = Logger(minimumLevel: settings.logLevel, fd: 2)
            let http = try HTTPClient(
                configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), timeout: .seconds(15)))
            client = CloudKitClient(configuration: settings.cloudKit, http: http)
            let tokens = LocalAuthFile(path: settings.tokenFile)
            try tokens.ensureDirectory()
            session = LocalSession(
                tokens: tokens, lock: FileLock(path: settings.tokenFile + ".lock"), container: settings.container,
                environment: settings.environment.rawValue)
            signIn = LocalSignIn(
                client: client, session: session, port: settings.callbackPort, browser: settings.browser,
                logger: logger)
        }
    }

    /// The MCP server: until standard input ends.
    static func serve(_ settings: LocalSettings) async throws -> Int32 {
        let parts = try Parts(settings)
        let logger = parts.logger
        let principal = LocalPrincipal(local: parts.session, signIn: parts.signIn)
        let configuration = MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(
                name: "mustdo-relay-local", title: "MustDo (local)", version: RelayCommand.version),
            instructions: Configuration.instructions
                + " If a tool answers NOT_SIGNED_IN, call sign_in (the user signs in on Apple's page in their browser).",
            onToolCall: { record in logger.log(.toolCall(record)) },
            onError: { tool, error in logger.log(.toolFailed(tool, error)) })
        let tools: [any Tool<LocalPrincipal>] =
            MCPFeatures.tools(client: parts.client, for: LocalPrincipal.self) + [SignInTool()]
        let server = try MCPStdioServer(
            configuration: configuration, tools: tools, prompts: MCPFeatures.prompts,
            resources: MCPFeatures.resources, extensions: MCPFeatures.extensions, principal: principal
        ) { principal in
            ToolResult(error: ToolError(code: "NOT_SIGNED_IN", message: principal.local.notSignedInMessage))
        }
        var event = LogEvent(.info, "local.started")
        event.count = settings.callbackPort
        logger.log(event)
        await server.run()
        logger.log(LogEvent(.info, "local.stopped"))
        logger.close()
        return 0
    }

    /// Sign-in from a terminal: the link in the browser (or printed), then the wait.
    static func signIn(_ settings: LocalSettings, wait: Int) async throws -> Int32 {
        let parts = try Parts(settings)
        defer { parts.logger.close() }
        let started = try await parts.signIn.begin(window: .seconds(wait))
        if started.opened {
            print("Opened Apple's sign-in page in your browser. Waiting up to \(wait) s for you to finish…")
        } else {
            print(
                "Open this link in a browser on this computer and sign in (within \(wait) s):\n\n  \(started.attempt.startURL)\n"
            )
        }
        fflush(nil)
        switch await parts.signIn.wait(for: started.attempt) {
        case .signedIn?:
            print("Signed in. The token is saved in \(settings.tokenFile) (mode 0600).")
            return 0
        case .failed(let reason)?:
            printError("mustdo-relay local: sign-in failed: \(reason)")
            return 1
        case .timedOut?, nil:
            printError("mustdo-relay local: nobody finished signing in within \(wait) s.")
            return 1
        }
    }

    static func signOut(_ settings: LocalSettings) async throws -> Int32 {
        let parts = try Parts(settings)
        defer { parts.logger.close() }
        try await parts.session.signOut()
        print("Signed out: \(settings.tokenFile) is deleted.")
        return 0
    }
}
