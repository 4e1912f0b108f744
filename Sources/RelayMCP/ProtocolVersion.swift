/// The MCP revisions the endpoint speaks, in two eras (the 2026-07-28 spec's terms, `basic/versioning.mdx`):
/// the three legacy revisions open with `initialize`; the modern one carries its version and the client's
/// capabilities in every request's `_meta` and has no handshake at all. Which era serves a request is
/// decided per request (see `docs/architecture.md`, "MCP endpoint").
package enum ProtocolVersion: String, Sendable, CaseIterable, Comparable {
    /// Streamable HTTP, batches, annotations.
    case v2025_03_26 = "2025-03-26"
    /// No batches; `MCP-Protocol-Version` header; `title`, `outputSchema`, `structuredContent`.
    case v2025_06_18 = "2025-06-18"
    /// Icons, tool-name guidance, 403 on a bad `Origin`.
    case v2025_11_25 = "2025-11-25"
    /// Stateless: per-request `_meta`, `server/discover`, `Mcp-Method`/`Mcp-Name` headers checked
    /// against the body, `resultType` on results, cache hints on lists, no `ping`.
    case v2026_07_28 = "2026-07-28"

    /// How a revision opens and frames its requests.
    package enum Era: Sendable {
        /// `initialize` first; the version travels in the `MCP-Protocol-Version` header (2025 revisions).
        case legacy
        /// Every request self-contained: version, capabilities and client info in `params._meta`.
        case modern
    }

    /// The era this revision belongs to.
    package var era: Era { self >= .v2026_07_28 ? .modern : .legacy }

    /// Whether this revision is of the modern (handshake-free) era.
    package var isModern: Bool { era == .modern }

    /// What `initialize` answers when a client asks for a revision it cannot negotiate there.
    package static let latestLegacy = ProtocolVersion.v2025_11_25

    /// What a request without `MCP-Protocol-Version` and without a modern `_meta` is taken to speak
    /// (as the 2025-06-18 spec says).
    package static let assumedWithoutHeader = ProtocolVersion.v2025_03_26

    /// The revisions `initialize` can negotiate, oldest first.
    package static let legacyVersions: [ProtocolVersion] = allCases.filter { !$0.isModern }

    /// The revisions served through per-request `_meta`, oldest first (`server/discover`'s
    /// `supportedVersions`).
    package static let modernVersions: [ProtocolVersion] = allCases.filter(\.isModern)

    /// Every served version as strings, oldest first: over HTTP both `server/discover`'s
    /// `supportedVersions` and the `data.supported` of a -32022 error. The two lists must agree (the
    /// conformance suite's `sep-2575-server-unsupported-version-error`), and both name the 2025
    /// revisions too: the server accepts them (through `initialize`), and a client without a mutual
    /// modern version falls back to `initialize` only when `supported` names a handshake version
    /// (the Python SDK 2.x `mcp/client/_probe.py`).
    package static let supportedStrings: [String] = allCases.map(\.rawValue)

    /// Whether JSON-RPC batch arrays are allowed in a POST body.
    package var allowsBatches: Bool { self == .v2025_03_26 }

    /// Whether `title`, `outputSchema` and `structuredContent` exist in this revision.
    package var hasStructuredOutput: Bool { self >= .v2025_06_18 }

    package static func < (lhs: ProtocolVersion, rhs: ProtocolVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}
