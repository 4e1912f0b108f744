/// Size limits enforced while parsing. Defaults follow the relay's configuration defaults.
package struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line, CRLF included (414 beyond it).
    package var maxRequestLineBytes: Int
    /// Longest head, request line and CRLFs included (431 beyond it).
    package var maxHeaderBytes: Int
    /// Most header fields (431 beyond it).
    package var maxHeaderCount: Int
    /// Largest body after chunked decoding (413 beyond it).
    package var maxBodyBytes: Int

    /// Limits with the relay's defaults: 8 KiB, 16 KiB, 100 fields, 1 MiB.
    package init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
