extension Configuration {
    /// Checks a service configuration beyond syntax: an issuer, a CloudKit container, usable
    /// OAuth settings. Secret files and the store are checked when they are opened.
    package func validateForService() throws(ConfigurationErrors) {
        var problems: [Problem] = []
        if issuer.isEmpty {
            problems.append(Problem(setting: "RELAY_ISSUER", message: "must be set to the public https base URL"))
        }
        if cloudKit.container.isEmpty {
            problems.append(
                Problem(setting: "RELAY_CLOUDKIT_CONTAINER", message: "must be set (e.g. iCloud.com.example.app)"))
        }
        do {
            _ = try oauthConfiguration()
        } catch {
            problems += error.problems
        }
        if !problems.isEmpty { throw ConfigurationErrors(problems: problems) }
    }
}
