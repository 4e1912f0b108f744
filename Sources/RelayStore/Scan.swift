/// Where a scan page ended: the key of the last item the backend looked at (which need not be an
/// item of the page: DynamoDB reports the last item it read, matching or not). The next page
/// starts after it.
package struct ScanCursor: Sendable, Hashable {
    /// The key after which the next page starts.
    package var lastKey: ItemKey

    /// A cursor after `lastKey`.
    package init(lastKey: ItemKey) {
        self.lastKey = lastKey
    }
}

/// One page of a scan across partitions (`Store.scan`). A nil `next` means the scan is complete;
/// a non-nil `next` may lead to an empty page.
package struct ScanPage: Sendable, Equatable {
    /// The live items of this page, in the backend's order.
    package var items: [Item]
    /// The cursor for the next page, if there may be one.
    package var next: ScanCursor?

    /// A page from its parts.
    package init(items: [Item], next: ScanCursor?) {
        self.items = items
        self.next = next
    }
}

extension Store {
    /// Every live item under `pkPrefix`, following cursors; fails with `invalid` past
    /// `maximumItems` rather than loading an unbounded store. Admin only, like `scan`.
    package func scanAll(pkPrefix: String, maximumItems: Int = 100_000) async throws(StoreError) -> [Item] {
        var items: [Item] = []
        var cursor: ScanCursor?
        repeat {
            let page = try await scan(pkPrefix: pkPrefix, cursor: cursor, limit: Query.maximumLimit)
            items += page.items
            guard items.count <= maximumItems else { throw .invalid("scan returned more than \(maximumItems) items") }
            cursor = page.next
        } while cursor != nil
        return items
    }

    /// Calls `body` with each page of live items under `pkPrefix` until the scan is complete, so
    /// counting a large store holds one page in memory at a time. Admin only, like `scan`.
    package func scanPages(
        pkPrefix: String, _ body: ([Item]) throws(StoreError) -> Void
    ) async throws(StoreError) {
        var cursor: ScanCursor?
        repeat {
            let page = try await scan(pkPrefix: pkPrefix, cursor: cursor, limit: Query.maximumLimit)
            try body(page.items)
            cursor = page.next
        } while cursor != nil
    }
}
