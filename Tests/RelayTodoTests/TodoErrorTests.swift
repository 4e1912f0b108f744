import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct TodoErrorTests {
    @Test func everyCodeRendersAsStructuredContent() {
        let errors: [TodoError] = [
            .invalidArgument("repeat.interval", "must be an integer 1–99"), .notFound(id: "x"), .paymentRequired,
            .conflict, .upstreamUnavailable(retryAfter: 5), .rateLimited(retryAfter: 12), .accountUnsupported,
            TodoError(code: .quotaExceeded, message: "The user's iCloud storage is full."),
            TodoError(code: .signInRequired, message: "Sign in to iCloud again."),
        ]
        #expect(Set(errors.map(\.code)) == Set(TodoError.Code.allCases))
        for error in errors {
            let body = error.json["error"]
            #expect(body?["code"] == .string(error.code.rawValue))
            #expect(body?["message"] == .string(error.message))
            #expect(!error.message.contains("\n"))
        }
        #expect(
            errors[0].json == [
                "error": [
                    "code": "INVALID_ARGUMENT", "message": "repeat.interval: must be an integer 1–99",
                    "field": "repeat.interval",
                ]
            ])
        #expect(errors[5].json["error"]?["retryAfter"] == 12)
        #expect(TodoError.upstreamUnavailable().json["error"]?["retryAfter"] == nil)
        #expect(errors[1].json["error"]?["field"] == "id")
    }
}
