import Foundation
import RelayHTTP
import RelaySync

/// Typed access to `RELAY_*` variables that records a clear problem for each bad value and falls
/// back to the default, so one run reports everything that needs fixing. It also records every
/// name it was asked for: the configuration reads every name on every load, so that set is the
/// list of settings (`Configuration.settingNames`), and any other `RELAY_*` variable is a typo.
struct SettingsReader {
    private let variables: [String: String]
    private(set) var problems: [Configuration.Problem] = []
    /// Every variable name read so far.
    private(set) var names: Set<String> = []

    init(_ variables: [String: String]) { self.variables = variables }

    mutating func raw(_ name: String) -> String? {
        names.insert(name)
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    mutating func string(_ name: String, default value: String) -> String { raw(name) ?? value }

    /// A comma-separated list (spaces around items ignored).
    mutating func list(_ name: String) -> [String] {
        (raw(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Records that `name` must be set and returns "".
    mutating func missing(_ name: String, because reason: String) -> String {
        problems.append(.init(setting: name, message: "must be set because \(reason)"))
        return ""
    }

    /// Records a problem found by the caller.
    mutating func problem(_ name: String, _ message: String) {
        problems.append(.init(setting: name, message: message))
    }

    /// Records a problem for every `RELAY_*` variable that was set but never read: not a setting.
    mutating func refuseUnknownNames() {
        for name in variables.keys.sorted() where name.hasPrefix("RELAY_") && !names.contains(name) {
            problems.append(
                .init(
                    setting: name,
                    message: "is not a setting of this version (a typo? config/relay.env.example lists every setting)"))
        }
    }

    /// An http(s) URL without a trailing slash, or nil when unset.
    mutating func url(_ name: String) -> String? {
        guard var text = raw(name) else { return nil }
        while text.hasSuffix("/") { text.removeLast() }
        guard text.hasPrefix("https://") || text.hasPrefix("http://"), text.count > 8, !text.contains(" ") else {
            problems.append(.init(setting: name, message: "expected an http(s) URL, got \"\(text)\""))
            return nil
        }
        return text
    }

    /// on/off, true/false, yes/no, 1/0.
    mutating func boolean(_ name: String, default value: Bool) -> Bool {
        guard let text = raw(name)?.lowercased() else { return value }
        switch text {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default:
            problems.append(.init(setting: name, message: "expected on or off, got \"\(text)\""))
            return value
        }
    }

    mutating func integer(_ name: String, default value: Int, range: ClosedRange<Int>) -> Int {
        guard let text = raw(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            problems.append(
                .init(
                    setting: name,
                    message: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got \"\(text)\""))
            return value
        }
        return number
    }

    /// A duration written in whole seconds, within `range` (in seconds).
    mutating func seconds(_ name: String, default value: Duration, range: ClosedRange<Int>) -> Duration {
        .seconds(integer(name, default: value.wholeSeconds, range: range))
    }

    /// One of a fixed set of words.
    mutating func choice<Value>(_ name: String, default value: Value, choices: [String: Value]) -> Value {
        guard let text = raw(name) else { return value }
        guard let chosen = choices[text.lowercased()] else {
            problems.append(
                .init(
                    setting: name,
                    message: "expected one of \(choices.keys.sorted().joined(separator: ", ")), got \"\(text)\""))
            return value
        }
        return chosen
    }

    /// A duration written in seconds (fractions allowed: `0.5`), from a millisecond to a day.
    mutating func duration(_ name: String, default value: Duration) -> Duration {
        guard let text = raw(name) else { return value }
        // At least a millisecond: the server and libcurl count whole milliseconds, where 0 would mean no limit.
        guard let number = Double(text), number >= 0.001, number <= 86_400 else {
            problems.append(
                .init(
                    setting: name, message: "expected a number of seconds from 0.001 to 86400, got \"\(text)\"")
            )
            return value
        }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    mutating func addressRanges(_ name: String) -> [IPAddressRange] {
        guard let text = raw(name) else { return [] }
        var ranges: [IPAddressRange] = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            guard let range = IPAddressRange(item) else {
                problems.append(.init(setting: name, message: "\"\(item)\" is not an IP address or CIDR block"))
                continue
            }
            ranges.append(range)
        }
        return ranges
    }
}
