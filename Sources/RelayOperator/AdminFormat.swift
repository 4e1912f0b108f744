import Foundation
import RelayOAuth
import RelayService

/// Text output of admin commands: aligned tables, UTC times, and untrusted text (client names,
/// redirect URIs) made safe for a terminal.
enum AdminFormat {
    /// `2026-11-30 12:34:56Z`, or `-` for nil.
    static func time(_ epochSeconds: Int?) -> String {
        guard let epochSeconds else { return "-" }
        var seconds = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// `2026-11-30` for a UTC day (days since 1970-01-01), or `-` for nil.
    static func day(_ days: Int?) -> String {
        guard let days else { return "-" }
        return String(time(days * 86400).prefix(10))
    }

    /// Text a client chose, with control, formatting, bidirectional and invisible characters
    /// (`DisplayText.isHidden`) replaced by `?` (they could rewrite the operator's terminal or hide
    /// what the name says) and cut at 200 characters.
    static func safe(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "-" }
        let cleaned = DisplayText.neutralised(text)
        return cleaned.count > 200 ? String(cleaned.prefix(200)) + "…" : cleaned
    }

    /// Columns padded to their widest cell; the last column is not padded.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        let all = [headers] + rows
        var widths = Array(repeating: 0, count: headers.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
