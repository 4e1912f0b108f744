/// A small hand-written argument reader (no argument-parser package is available): flags,
/// `--name value` and `--name=value` options, positional words, and a check that nothing is left.
package struct ArgumentParser {
    /// A usage mistake; the message says what to fix.
    package struct Failure: Error {
        package let message: String
        package init(_ message: String) { self.message = message }
    }

    private var arguments: [String]

    /// A reader over the arguments after the program name.
    package init(_ arguments: [String]) { self.arguments = arguments }

    /// What has not been taken yet.
    package var remaining: [String] { arguments }

    /// Takes the next word if it is a positional one (commands come before their options);
    /// `-h`, `--help` and `--version` count as words so they can be dispatched like commands.
    package mutating func next() -> String? {
        guard let first = arguments.first else { return nil }
        guard !first.hasPrefix("-") || ["-h", "--help", "--version"].contains(first) else { return nil }
        return arguments.removeFirst()
    }

    /// Takes `--name`, returning whether it was present.
    package mutating func flag(_ name: String) -> Bool {
        guard let index = arguments.firstIndex(of: name) else { return false }
        arguments.remove(at: index)
        return true
    }

    /// Takes `--name value` or `--name=value`.
    package mutating func value(for name: String) throws(Failure) -> String? {
        if let index = arguments.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            return String(arguments.remove(at: index).dropFirst(name.count + 1))
        }
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
            throw Failure("\(name) needs a value")
        }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    /// Takes the one positional argument a command needs (`clients show ID`), after its options
    /// were taken. An ID that starts with `-` (base64url IDs can) goes after `--`.
    package mutating func positional(_ name: String) throws(Failure) -> String {
        let words = try positionals()
        guard words.count == 1 else {
            throw Failure(words.isEmpty ? "\(name) is missing" : "expected one \(name), got \(words.count) arguments")
        }
        return words[0]
    }

    /// Takes every remaining argument as a positional one; call after taking the options. A word
    /// shaped like an option (`--name`, `-x`) that was not taken is an unknown option; anything
    /// else is positional, so a base64url ID that starts with `-` needs no quoting. Words after
    /// `--` are positional whatever their shape.
    package mutating func positionals() throws(Failure) -> [String] {
        var words: [String] = []
        var rest = arguments[...]
        arguments = []
        while let word = rest.popFirst() {
            if word == "--" {
                words += rest
                break
            }
            guard !Self.looksLikeOption(word) else {
                throw Failure("unknown option \"\(word)\" (an argument of this shape goes after --)")
            }
            words.append(word)
        }
        return words
    }

    /// `--lower-case-name` or `-x`: what options look like (IDs are longer mixed-case base64url).
    static func looksLikeOption(_ word: String) -> Bool {
        if word.hasPrefix("--") {
            return word.count > 2 && word.dropFirst(2).allSatisfy { ($0.isLetter && $0.isLowercase) || $0 == "-" }
        }
        return word.count == 2 && word.hasPrefix("-") && word.last!.isLetter
    }

    /// Fails if anything was not taken.
    package func finish() throws(Failure) {
        if let first = arguments.first { throw Failure("unexpected argument \"\(first)\"") }
    }

    /// Parses a duration: a whole number with an optional unit `s`, `m`, `h` or `d` (seconds when
    /// none), into seconds.
    package static func duration(_ text: String) throws(Failure) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let multiplier = units[last] {
            digits = digits.dropLast()
            unit = multiplier
        }
        guard let number = Int(digits), number >= 0, number <= 3_153_600_000 / unit else {
            throw Failure("\"\(text)\" is not a duration (like 3600, 90m, 12h or 30d)")
        }
        return number * unit
    }

    /// Parses a TCP port number.
    package static func port(_ text: String) throws(Failure) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else {
            throw Failure("\"\(text)\" is not a port number")
        }
        return port
    }
}
