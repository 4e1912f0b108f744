import RelayCloudKit
import RelayJSON
import RelayMCP
import RelayTodo

/// Who the local server acts for: the person who started it, through their token file. It holds every
/// scope: there is no OAuth consent locally, the person runs the server for themselves, and what iCloud
/// lets their token do is the only limit.
struct LocalPrincipal: TodoPrincipal {
    let local: LocalSession
    let signIn: LocalSignIn
    var session: any CloudKitSession { local }
    var scopes: [String] { [TodoScope.read, TodoScope.write] }
}

/// `sign_in`, the local server's eighth tool (as in the public MustDo local server): Apple's sign-in page in
/// the person's browser, the callback caught on localhost, the token saved to `auth.json`.
struct SignInTool: Tool {
    static let name = "sign_in"

    let definition = ToolDefinition(
        name: SignInTool.name, title: "Sign in to iCloud",
        description: """
            Signs the user in to iCloud with their Apple ID, so the other tools can reach their MustDo to-dos. Use \
            it when a tool answers NOT_SIGNED_IN, and only when the user can use a web browser on this computer. \
            It opens Apple's sign-in page in their browser and waits up to waitSeconds (default 90) for them to \
            finish. If no browser can be opened, it returns at once with status "open_link" and a url: give the \
            user that link to open on this computer; the server keeps waiting for them, and once they say they \
            are done, call the other tool again. Never ask for the user's Apple ID password: they type it on \
            Apple's page only.
            """,
        // What sign_in opens is read access to the person's to-dos (and write, for the other tools); every
        // tool declares a scope, and the local principal holds both.
        requiredScopes: [TodoScope.read],
        inputSchema: [
            "type": "object",
            "properties": [
                "waitSeconds": [
                    "type": "integer", "minimum": 10, "maximum": 600,
                    "description": "How long to wait for the user to finish signing in (default 90).",
                ]
            ],
            "additionalProperties": false,
        ],
        outputSchema: [
            "type": "object",
            "properties": [
                "status": ["type": "string", "enum": ["signed_in", "open_link"]],
                "url": ["type": "string", "description": "The link to open (status open_link)."],
                "expiresInSeconds": ["type": "integer"],
                "message": ["type": "string"],
            ],
            "required": ["status", "message"],
        ],
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true))

    func call(_ arguments: JSONObject, context: ToolContext<LocalPrincipal>) async throws -> ToolResult {
        let seconds = arguments["waitSeconds"]?.intValue ?? 90
        let signIn = context.principal.signIn
        let started: (attempt: LocalSignIn.Attempt, opened: Bool)
        do {
            started = try await signIn.begin(window: .seconds(seconds))
        } catch {
            throw ToolError(code: error.code, message: error.description)
        }
        guard started.opened else {
            let attempt = started.attempt
            printLink(attempt.startURL)
            return .structured([
                "status": "open_link", "url": .string(attempt.startURL),
                "expiresInSeconds": .int(attempt.secondsLeft),
                "message": .string(
                    "No browser could be opened from here. Ask the user to open this link in a browser on this "
                        + "computer and sign in with their Apple ID within \(attempt.secondsLeft) seconds; then try the "
                        + "other tool again."),
            ])
        }
        switch await signIn.wait(for: started.attempt) {
        case .signedIn?:
            return .structured([
                "status": "signed_in", "message": "Signed in to iCloud. The other tools work now.",
            ])
        case .failed(let reason)?:
            throw ToolError(code: "SIGN_IN_FAILED", message: reason + " Call sign_in again to retry.")
        case .timedOut?:
            throw ToolError(
                code: "SIGN_IN_TIMEOUT",
                message:
                    "Nobody finished signing in within \(seconds) seconds. Call sign_in again when the user is ready.")
        case nil:
            throw CancellationError()
        }
    }

    /// The link on standard error too, for a person watching the server's log.
    private func printLink(_ url: String) {
        printError("mustdo-relay local: to sign in to iCloud, open this link on this computer: \(url)")
    }
}
