import Foundation
import RelayCloudKit
import RelayCrypto
import RelayJSON
import RelayMCP

/// What a tool body gets: the arguments, the person's records, and the call's instant.
typealias TodoToolBody = @Sendable (JSONValue, TodoDatabase, Date) async throws -> JSONValue

/// One of the to-do tools on the MCP endpoint, for any principal that carries a CloudKit session.
/// Its definition is static, so `tools/list` stays pre-encoded. A call parses its arguments (no I/O), reads
/// the records it needs through the principal's session, applies the pure rule, writes, and answers with
/// `structuredContent` plus the same JSON as text. Failures: `TodoError` and upstream failures become
/// `isError` results (`{code, message, field?, retryAfter?}`), a dead iCloud session becomes
/// `ToolError.sessionEnded()` (HTTP 401), anything else is rethrown for the endpoint's `INTERNAL_ERROR`.
package struct TodoTool<Principal: TodoPrincipal>: Tool {
    /// Name, title, description, schemas, annotations.
    package let definition: ToolDefinition
    let environment: TodoToolEnvironment
    let body: TodoToolBody

    /// Runs the tool for `context.principal`.
    package func call(_ arguments: JSONObject, context: ToolContext<Principal>) async throws -> ToolResult {
        let database = TodoDatabase(
            environment: environment, session: context.principal.session, owner: context.principal.cursorOwner)
        let structured: JSONValue
        do {
            // One turn of the grant for all of the call's CloudKit calls (`CloudKitSession.inOneTurn`).
            structured = try await context.principal.session.inOneTurn {
                try await body(.object(arguments), database, environment.now())
            }
        } catch let error as TodoError {
            throw error.toolError
        } catch let error as CloudKitError {
            if error.kind == .cancelled { throw CancellationError() }
            throw error.toolError ?? error
        }
        guard case .object(let object) = structured else {
            throw ToolError(code: ToolError.Code.internalError, message: "The tool failed unexpectedly.")
        }
        var result = ToolResult.structured(object)
        if AppViews.uri(for: definition.name) != nil {
            result.meta = AppViews.connectionMeta(scopes: context.principal.scopes)
        }
        return result
    }
}

/// What the tools share: the CloudKit client and the schema, one instance for every call.
final class TodoToolEnvironment: Sendable {
    let client: CloudKitClient
    let schema: RecordSchema
    let clock: @Sendable () -> Date
    /// The key `list_todos` cursors are sealed with.
    let cursorKey: SymmetricKey
    /// Each person's Account between listings, and what CloudKit does with records without a sort field.
    let listingMemory = ListingMemory()

    init(client: CloudKitClient, schema: RecordSchema, clock: @escaping @Sendable () -> Date, cursorKey: SymmetricKey) {
        self.client = client
        self.schema = schema
        self.clock = clock
        self.cursorKey = cursorKey
    }

    /// The clock's reading to the millisecond, as CloudKit stores it, so results show what was written.
    func now() -> Date { Date(cloudKitMilliseconds: clock().cloudKitMilliseconds) }
}

extension TodoTools {
    /// The tools for an `MCPEndpoint` whose authenticator yields `Principal`, in `definitions` order:
    ///
    /// ```swift
    /// let tools: [any Tool<Grant>] = TodoTools.tools(client: cloudKit)
    /// let endpoint = try MCPEndpoint(configuration: configuration, tools: tools, authenticator: authenticator)
    /// ```
    ///
    /// `schema` names the record types and fields (the app's by default); `clock` is for tests; `cursorKey` seals
    /// `list_todos` cursors (and derives the key of undo handles, `UndoSeal`) and must be the same on every instance that serves the same people (nil: a key of
    /// this process, for tests and the one-process local server).
    package static func tools<Principal: TodoPrincipal>(
        client: CloudKitClient, schema: RecordSchema = RecordSchema(),
        clock: @escaping @Sendable () -> Date = { Date() }, cursorKey: SymmetricKey? = nil,
        for principal: Principal.Type = Principal.self
    ) -> [any Tool<Principal>] {
        let environment = TodoToolEnvironment(
            client: client, schema: schema, clock: clock, cursorKey: cursorKey ?? CursorSeal.processKey)
        return TodoTools.all.map {
            TodoTool<Principal>(definition: AppViews.attach(to: $0.definition), environment: environment, body: $0.body)
        }
    }
}
