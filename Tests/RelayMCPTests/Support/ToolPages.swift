import RelayJSON
import Testing

/// Following `tools/list` cursors, the same for every protocol revision.
extension TestServer {
    /// Each page's `result`, following `nextCursor` for at most 10 pages; `fetch` posts page
    /// `page` with `cursor` (nil for the first). A page without a 200 and a result fails the test.
    static func toolPages(_ fetch: (_ page: Int, _ cursor: JSONValue?) async throws -> RawResponse) async throws
        -> [JSONValue]
    {
        var results: [JSONValue] = []
        var cursor: JSONValue?
        repeat {
            let response = try await fetch(results.count, cursor)
            #expect(response.status == 200)
            let result = try #require(response.json?["result"])
            results.append(result)
            cursor = result["nextCursor"]
        } while cursor != nil && results.count < 10
        return results
    }

    /// The tool names on `pages`, in order.
    static func toolNames(_ pages: [JSONValue]) -> [String] {
        pages.flatMap { $0["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }
    }
}
