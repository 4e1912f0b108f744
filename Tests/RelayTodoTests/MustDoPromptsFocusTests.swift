import RelayMCP
import XCTest

@testable import RelayTodo

// XCTest on purpose, the package's only one: `swift test` prints its closing summary line only when XCTest runs.
/// A prompt's `focus` argument is quoted, trimmed, in the person's language, and left out when not given.
final class MustDoPromptsFocusTests: XCTestCase {
    func text(_ name: String, _ arguments: [String: String] = [:]) throws -> String {
        let prompt = try XCTUnwrap(MustDoPrompts.all.first { $0.definition.name == name }, name)
        let result = try prompt.render(arguments)
        XCTAssertEqual(result.messages.count, 1)
        XCTAssertEqual(result.messages.first?.role, .user)
        return result.messages.first?.text ?? ""
    }

    func testFocusIsQuotedWhenGiven() throws {
        XCTAssertTrue(
            try text("plan_my_day", ["focus": "  finish the tax return "]).contains("“finish the tax return”"))
        XCTAssertTrue(try text("plan_my_day_ja", ["focus": "\u{3000}確定申告\u{3000}"]).contains("「確定申告」"))
        XCTAssertFalse(try text("plan_my_day").contains("“"))
    }
}
