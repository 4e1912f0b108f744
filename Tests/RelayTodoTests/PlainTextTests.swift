import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

/// Titles and notes reach the phone's alarm screen: control characters and text-direction overrides are
/// refused with a clear error; line breaks and tabs stay allowed in notes.
@Suite struct PlainTextTests {
    /// JSON for a string holding `scalar` between two words.
    func text(_ scalar: String) -> String { "Pay\(scalar)rent" }

    func arguments(_ key: String, _ value: String, id: Bool = false) -> JSONValue {
        var object: JSONObject = [key: .string(value)]
        if key == "notes" { object["title"] = "x" }
        if id { object["id"] = "a" }
        return .object(object)
    }

    @Test(arguments: [
        "\u{0}", "\u{7}", "\u{8}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "\u{202A}", "\u{202B}", "\u{202C}",
        "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
    ])
    func refusedInTitlesAndNotes(scalar: String) throws {
        for key in ["title", "notes"] {
            let add = expectError { () throws(TodoError) in try AddTodo.parse(arguments(key, text(scalar))) }
            #expect(add?.code == .invalidArgument && add?.field == key, "\(key) \(add?.message ?? "")")
            let code = String(format: "U+%04X", scalar.unicodeScalars.first!.value)
            #expect(add?.message.contains("\(code) at character 4") == true, "\(add?.message ?? "")")
            let update = expectError { () throws(TodoError) in
                try UpdateTodo.parse(arguments(key, text(scalar), id: true))
            }
            #expect(update?.field == key)
        }
    }

    @Test func lineBreaksAndTabsOnlyInNotes() throws {
        for scalar in ["\n", "\r\n", "\t", "\u{2028}", "\u{2029}"] {
            expectInvalid("title") { () throws(TodoError) in try AddTodo.parse(arguments("title", text(scalar))) }
            let notes = try AddTodo.parse(arguments("notes", text(scalar))).notes
            #expect(notes == text(scalar))
            #expect(try UpdateTodo.parse(arguments("notes", text(scalar), id: true)).notes == .set(text(scalar)))
        }
        // Surrounding white space (line breaks included) is trimmed before the check, as before.
        #expect(try AddTodo.parse(json(#"{"title":"\n\tPay rent \r\n"}"#)).title == "Pay rent")
    }

    @Test func ordinaryTextOfEveryScriptIsFine() throws {
        // Arabic and Hebrew with their direction marks (U+200E/U+200F/U+061C), emoji with joiners, CJK.
        for title in ["دفع الإيجار\u{200F}", "לשלם\u{200E} שכר דירה", "\u{061C}x", "👩‍👩‍👧 dinner", "家賃を払う", "Zürich ½"] {
            #expect(try AddTodo.parse(arguments("title", title)).title == title)
        }
    }
}
