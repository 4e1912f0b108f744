/// A read of one partition, in sort-key order (by UTF-8 bytes), one page at a time.
public struct Query: Sendable, Equatable {
    /// The largest page a query may ask for.
    public static let maximumLimit = 1000

    /// The partition to read.
    public var pk: String
    /// Only sort keys starting with this prefix (empty: the whole partition).
    public var skPrefix: String
    /// Ascending or descending sort-key order.
    public var order: QueryOrder
    /// At most this many items per page (1...1000).
    public var limit: Int
    /// Where the previous page stopped; nil for the first page.
    public var cursor: QueryCursor?

    /// A query; the defaults read the first 100 items of the partition in ascending order.
    public init(
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
public enum QueryOrder: Sendable, Hashable {
    case ascending
    case descending
}

/// Where a page ended: the last sort key it returned. The next page starts after it.
public struct QueryCursor: Sendable, Hashable {
    /// The sort key of the last item of the previous page.
    public var lastSortKey: String

    /// A cursor after `lastSortKey`.
    public init(lastSortKey: String) {
        self.lastSortKey = lastSortKey
    }
}

/// One page of a query. A nil `next` means the partition holds nothing more; a non-nil `next` may
/// still lead to an empty page, and a page may be shorter than the limit even when more follow
/// (DynamoDB filters expired items after reading).
public struct QueryPage: Sendable, Equatable {
    /// The items of this page, in query order.
    public var items: [Item]
    /// The cursor for the next page, if there may be one.
    public var next: QueryCursor?

    /// A page from its parts.
    public init(items: [Item], next: QueryCursor?) {
        self.items = items
        self.next = next
    }
}
