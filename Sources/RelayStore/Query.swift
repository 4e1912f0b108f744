/// A read of one partition, in sort-key order (by UTF-8 bytes), one page at a time.
package struct Query: Sendable, Equatable {
    /// The largest page a query may ask for.
    package static let maximumLimit = 1000

    /// The partition to read.
    package var pk: String
    /// Only sort keys starting with this prefix (empty: the whole partition).
    package var skPrefix: String
    /// Ascending or descending sort-key order.
    package var order: QueryOrder
    /// At most this many items per page (1...1000).
    package var limit: Int
    /// Where the previous page stopped; nil for the first page.
    package var cursor: QueryCursor?

    /// A query; the defaults read the first 100 items of the partition in ascending order.
    package init(
        pk: String, skPrefix: String = "", order: QueryOrder = .ascending, limit: Int = 100, cursor: QueryCursor? = nil
    ) {
        self.pk = pk
        self.skPrefix = skPrefix
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }
}

/// Sort-key order of a query.
package enum QueryOrder: Sendable, Hashable {
    case ascending
    case descending
}

/// Where a page ended: the last sort key it returned. The next page starts after it.
package struct QueryCursor: Sendable, Hashable {
    /// The sort key of the last item of the previous page.
    package var lastSortKey: String

    /// A cursor after `lastSortKey`.
    package init(lastSortKey: String) {
        self.lastSortKey = lastSortKey
    }
}

/// One page of a query. A nil `next` means the partition holds nothing more; a non-nil `next` may
/// still lead to an empty page, and a page may be shorter than the limit even when more follow
/// (DynamoDB filters expired items after reading).
package struct QueryPage: Sendable, Equatable {
    /// The items of this page, in query order.
    package var items: [Item]
    /// The cursor for the next page, if there may be one.
    package var next: QueryCursor?

    /// A page from its parts.
    package init(items: [Item], next: QueryCursor?) {
        self.items = items
        self.next = next
    }
}
