import Foundation

/// Reads the env-file format shared by `--config`, systemd's `EnvironmentFile=` and the demo:
/// `KEY=value` lines, `#` comments, optional single or double quotes around the value.
package enum EnvFile {
    /// A line that is not `KEY=value`.
    package struct SyntaxError: Error, CustomStringConvertible {
        package let path: String
        package let line: Int
        package var description: String { "\(path):\(line): expected KEY=value" }
    }

    /// Parses the file's text into a dictionary; later lines win.
    package static func parse(_ text: String, path: String = "<config>") throws -> [String: String] {
        var values: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let body = line.hasPrefix("export ") ? String(line.dropFirst(7)) : line
            guard let equals = body.firstIndex(of: "=") else { throw SyntaxError(path: path, line: number + 1) }
            let key = body[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw SyntaxError(path: path, line: number + 1)
            }
            var value = body[body.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[key] = value
        }
        return values
    }

    /// Reads and parses a file.
    package static func load(_ path: String) throws -> [String: String] {
        try parse(String(contentsOfFile: path, encoding: .utf8), path: path)
    }
}
