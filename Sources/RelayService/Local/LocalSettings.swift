import Foundation
import RelayCloudKit
import RelayJSON

/// The settings of `mustdo-relay local`: `MUSTDO_*` environment variables, named as the public MustDo local
/// server names them (reference: lightning-llc-jpn/mustdo-mcp's listing), over `config.json` in the home
/// directory (its keys: `apiToken`, `environment`, `container`, `zoneName`, `callbackPort`). The environment
/// wins. Every problem is collected, so one run reports all of them.
struct LocalSettings: Sendable {
    /// `MUSTDO_CK_API_TOKEN` / `apiToken`: the container's API token for the local server (required).
    var apiToken = ""
    /// `MUSTDO_CK_CONTAINER` / `container`.
    var container = "iCloud.jp.lightning.mustdo"
    /// `MUSTDO_CK_ENV` / `environment`: production (App Store data) or development.
    var environment = CloudKitEnvironment.production
    /// `MUSTDO_CK_ZONE` / `zoneName`.
    var zone = "MustDo"
    /// `MUSTDO_CALLBACK_PORT` / `callbackPort`: where the sign-in callback is caught on localhost.
    var callbackPort = 51234
    /// `MUSTDO_HOME`: where `config.json`, `auth.json` and its lock file live (default `~/.mustdo`).
    var home = ""
    /// `MUSTDO_CK_BASE_URL`: CloudKit Web Services (the emulator, for tests and trying it out).
    var baseURL = "https://api.apple-cloudkit.com"
    /// `MUSTDO_LOG_LEVEL`: DEBUG, INFO, WARN or ERROR (JSON lines on standard error).
    var logLevel = LogEvent.Level.info
    /// `MUSTDO_BROWSER`: the command that opens a link (the link is its last argument); `none` never opens
    /// one (the link is printed and returned instead). Default: `open` on macOS, `xdg-open` when a display
    /// is available on Linux, otherwise none.
    var browser: [String]?

    /// The token file (`auth.json`).
    var tokenFile: String { home + "/auth.json" }

    /// The CloudKit configuration for these settings.
    var cloudKit: CloudKitConfiguration {
        CloudKitConfiguration(
            baseURL: baseURL, container: container, environment: environment, apiToken: CloudKitAPIToken(apiToken),
            zoneName: zone)
    }

    /// Reads the settings from `environment` (and the `config.json` it points to).
    static func load(environment: [String: String]) throws(LocalSettingsError) -> LocalSettings {
        var settings = LocalSettings()
        var problems: [String] = []
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        settings.home = value("MUSTDO_HOME", environment).map(expandTilde(home: userHome)) ?? userHome + "/.mustdo"
        var file: JSONObject = [:]
        let configPath = settings.home + "/config.json"
        if let data = FileManager.default.contents(atPath: configPath) {
            if case .object(let object)? = try? JSONValue(parsing: data) {
                file = object
            } else {
                problems.append("\(configPath) is not a JSON object")
            }
        }
        func text(_ name: String, _ key: String) -> String? {
            if let value = value(name, environment) { return value }
            guard let member = file[key] else { return nil }
            if let string = member.stringValue { return string }
            if let number = member.intValue { return String(number) }
            problems.append("\(configPath): \(key) must be a string")
            return nil
        }
        if let token = text("MUSTDO_CK_API_TOKEN", "apiToken") {
            settings.apiToken = token
        } else {
            problems.append(
                "MUSTDO_CK_API_TOKEN is not set (nor apiToken in \(configPath)): give the CloudKit API token of the "
                    + "local server (docs/local.md)")
        }
        if let container = text("MUSTDO_CK_CONTAINER", "container") { settings.container = container }
        if let environmentName = text("MUSTDO_CK_ENV", "environment") {
            if let parsed = CloudKitEnvironment(rawValue: environmentName.lowercased()) {
                settings.environment = parsed
            } else {
                problems.append("MUSTDO_CK_ENV must be production or development")
            }
        }
        if let zone = text("MUSTDO_CK_ZONE", "zoneName") { settings.zone = zone }
        if let port = text("MUSTDO_CALLBACK_PORT", "callbackPort") {
            if let number = Int(port), (1024...65535).contains(number) {
                settings.callbackPort = number
            } else {
                problems.append("MUSTDO_CALLBACK_PORT must be a port number within 1024-65535")
            }
        }
        if var base = value("MUSTDO_CK_BASE_URL", environment) {
            while base.hasSuffix("/") { base.removeLast() }
            if base.hasPrefix("https://") || base.hasPrefix("http://") {
                settings.baseURL = base
            } else {
                problems.append("MUSTDO_CK_BASE_URL must be an http(s) URL")
            }
        }
        if let level = value("MUSTDO_LOG_LEVEL", environment) {
            let levels: [String: LogEvent.Level] = [
                "DEBUG": .debug, "INFO": .info, "WARN": .warning, "WARNING": .warning, "ERROR": .error,
            ]
            if let parsed = levels[level.uppercased()] {
                settings.logLevel = parsed
            } else {
                problems.append("MUSTDO_LOG_LEVEL must be DEBUG, INFO, WARN or ERROR")
            }
        }
        settings.browser = browserCommand(value("MUSTDO_BROWSER", environment), environment: environment)
        guard problems.isEmpty else { throw LocalSettingsError(problems: problems) }
        return settings
    }

    private static func value(_ name: String, _ environment: [String: String]) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    private static func expandTilde(home: String) -> (String) -> String {
        { path in path == "~" ? home : path.hasPrefix("~/") ? home + path.dropFirst() : path }
    }

    /// The browser command: `MUSTDO_BROWSER` split on spaces, nil for `none`; otherwise the platform's
    /// opener when there is somewhere to show a window.
    static func browserCommand(_ setting: String?, environment: [String: String]) -> [String]? {
        if let setting {
            if setting.lowercased() == "none" { return nil }
            return setting.split(separator: " ").map(String.init)
        }
        #if os(macOS)
            return ["open"]
        #else
            let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
            guard display else { return nil }
            let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            guard path.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/xdg-open") }) else {
                return nil
            }
            return ["xdg-open"]
        #endif
    }
}

/// What is wrong with the local server's settings, one line each.
struct LocalSettingsError: Error, CustomStringConvertible {
    let problems: [String]
    var description: String { problems.map { "  - \($0)" }.joined(separator: "\n") }
}
