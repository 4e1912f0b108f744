/// The MCP revisions the endpoint speaks. All three use the handshake (`initialize`) and
/// Streamable HTTP; they differ in batching, the version header, `title`, `outputSchema` and
/// `structuredContent` (see `docs/architecture.md`, "MCP endpoint").
public enum ProtocolVersion: String, Sendable, CaseIterable, Comparable {
    /// Streamable HTTP, batches, annotations.
    case v2025_03_26 = "2025-03-26"
    /// No batches; `MCP-Protocol-Version` header; `title`, `outputSchema`, `structuredContent`.
    case v2025_06_18 = "2025-06-18"
    /// Icons, tool-name guidance, 403 on a bad `Origin`.
    case v2025_11_25 = "2025-11-25"

    /// What the server answers when a client asks for a revision it does not know.
    public static let latest = ProtocolVersion.v2025_11_25

    /// What a request without `MCP-Protocol-Version` is taken to speak (as the 2025-06-18 spec says).
    public static let assumedWithoutHeader = ProtocolVersion.v2025_03_26

    /// Every supported version as strings, oldest first (the `data.supported` of version errors).
    public static let supportedStrings: [String] = allCases.map(\.rawValue)

    /// Whether JSON-RPC batch arrays are allowed in a POST body.
    public var allowsBatches: Bool { self == .v2025_03_26 }

    /// Whether `title`, `outputSchema` and `structuredContent` exist in this revision.
    public var hasStructuredOutput: Bool { self >= .v2025_06_18 }

    public static func < (lhs: ProtocolVersion, rhs: ProtocolVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}
