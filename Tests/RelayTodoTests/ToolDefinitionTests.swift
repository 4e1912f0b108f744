import Foundation
import RelayJSON
import RelayMCP
import Testing

@testable import RelayTodo

@Suite struct ToolDefinitionTests {
    /// Reading needs `todos:read`, changing anything `todos:write` (the consent page's two lines), and
    /// the scope agrees with the read-only hint clients show.
    @Test func everyToolDeclaresTheScopeItsEffectNeeds() {
        let scopes = Dictionary(uniqueKeysWithValues: TodoTools.definitions.map { ($0.name, $0.requiredScopes) })
        #expect(
            scopes == [
                "get_me": ["todos:read"], "list_todos": ["todos:read"], "search": ["todos:read"],
                "fetch": ["todos:read"], "add_todo": ["todos:write"],
                "update_todo": ["todos:write"], "complete_todo": ["todos:write"], "snooze_todo": ["todos:write"],
                "delete_todo": ["todos:write"], "add_todos": ["todos:write"], "complete_todos": ["todos:write"],
                "snooze_todos": ["todos:write"], "delete_todos": ["todos:write"], "undo": ["todos:write"],
            ])
        for tool in TodoTools.definitions {
            let readOnly = tool.annotations.readOnlyHint == true
            #expect(tool.requiredScopes == [readOnly ? TodoScope.read : TodoScope.write], "\(tool.name)")
        }
    }

    /// Issue 44 adds the four batch tools and `undo` after the nine.
    @Test func theToolsWithTheirHints() {
        let tools = TodoTools.definitions
        #expect(
            tools.map(\.name) == [
                "get_me", "list_todos", "search", "fetch", "add_todo", "update_todo", "complete_todo", "snooze_todo",
                "delete_todo", "add_todos", "complete_todos", "snooze_todos", "delete_todos", "undo",
            ])
        #expect(
            tools.map(\.title) == [
                "Account and today", "List to-dos", "Search to-dos", "Read one to-do", "Add a to-do", "Update a to-do",
                "Mark done", "Snooze",
                "Delete a to-do", "Add several to-dos", "Mark several done", "Snooze several", "Delete several to-dos",
                "Undo a change",
            ])
        let hints = Dictionary(uniqueKeysWithValues: tools.map { ($0.name, $0.annotations) })
        #expect(
            hints["get_me"]
                == ToolAnnotations(
                    readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))
        #expect(
            hints["list_todos"]
                == ToolAnnotations(
                    readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))
        #expect(
            hints["add_todo"]
                == ToolAnnotations(
                    readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
        #expect(
            hints["update_todo"]
                == ToolAnnotations(
                    readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))
        #expect(hints["complete_todo"]?.idempotentHint == true)
        #expect(hints["complete_todo"]?.readOnlyHint == false)
        #expect(hints["snooze_todo"]?.destructiveHint == false)
        #expect(
            hints["delete_todo"]
                == ToolAnnotations(
                    readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false))
        #expect(tools.allSatisfy { $0.annotations.openWorldHint == false })
    }

    /// ChatGPT's deep research and company knowledge look for tools named `search` (one string `query`) and
    /// `fetch` (one string `id`); both read only (docs/tools.md "search and fetch").
    @Test func searchAndFetchHaveChatGPTsShape() {
        let readOnly = ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false)
        for (tool, argument) in [(SearchTodos.definition, "query"), (FetchTodo.definition, "id")] {
            #expect(tool.inputSchema["required"] == [.string(argument)], "\(tool.name)")
            #expect(tool.inputSchema["properties"]?.objectValue?.keys.sorted() == [argument], "\(tool.name)")
            #expect(tool.inputSchema["properties"]?[argument]?["type"] == "string", "\(tool.name)")
            #expect(tool.annotations == readOnly, "\(tool.name)")
            #expect(tool.requiredScopes == [TodoScope.read], "\(tool.name)")
        }
        #expect(SearchTodos.definition.name == "search")
        #expect(FetchTodo.definition.name == "fetch")
        let result = SearchTodos.definition.outputSchema?["properties"]?["results"]?["items"]
        #expect(result?["required"] == ["id", "title", "url", "text"])
        #expect(FetchTodo.definition.outputSchema?["required"] == ["id", "title", "text", "url", "metadata"])
    }

    @Test func descriptionsTellTheModelWhenAndHow() {
        #expect(GetMe.definition.description.hasPrefix("Call this first, before working with dates or times."))
        for tool in [AddTodo.definition, UpdateTodo.definition, SnoozeTodo.definition] {
            #expect(tool.description.contains("YYYY-MM-DDTHH:mm"), "\(tool.name)")
            #expect(tool.description.contains("quietHoursAdjusted"), "\(tool.name)")
        }
        #expect(AddTodo.definition.description.contains("PAYMENT_REQUIRED"))
        #expect(ListTodos.definition.description.contains("nextCursor"))
        #expect(UpdateTodo.definition.description.contains("notes: null clears"))
    }

    /// Issue 44: every write says it can be undone and returns the handle; the batch tools share one result shape.
    @Test func everyWriteOffersUndo() {
        let singles = [AddTodo.definition, UpdateTodo.definition, CompleteTodo.definition, SnoozeTodo.definition]
        for tool in singles + [DeleteTodo.definition] {
            #expect(tool.description.contains("call undo with it"), "\(tool.name)")
            #expect(tool.outputSchema?["required"]?.arrayValue?.contains("undo") == true, "\(tool.name)")
        }
        #expect(DeleteTodo.definition.description.contains("tell the user it can be undone"))
        for tool in [AddTodos.definition, CompleteTodos.definition, SnoozeTodos.definition, DeleteTodos.definition] {
            #expect(tool.outputSchema?["required"] == ["results", "undo"], "\(tool.name)")
            #expect(tool.description.contains("One undo"), "\(tool.name)")
            #expect(tool.description.contains("25"), "\(tool.name)")
        }
        #expect(Undo.definition.inputSchema["required"] == ["undo"])
        #expect(Undo.definition.description.contains("24 hours"))
    }

    @Test func inputSchemasAreClosedObjects() {
        for tool in TodoTools.definitions {
            #expect(tool.inputSchema["type"] == "object", "\(tool.name)")
            #expect(tool.inputSchema["additionalProperties"] == false, "\(tool.name)")
            #expect(tool.outputSchema?["type"] == "object", "\(tool.name)")
        }
        #expect(AddTodo.definition.inputSchema["required"] == ["title"])
        #expect(SnoozeTodo.definition.inputSchema["required"] == ["id", "until"])
        #expect(AddTodo.definition.inputSchema["properties"]?["sound"]?["enum"]?.arrayValue?.count == 25)
    }
}
