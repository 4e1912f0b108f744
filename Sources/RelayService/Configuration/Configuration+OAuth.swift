import Foundation
import RelayOAuth

extension Configuration {
    /// The authorization server's configuration; throws when the OAuth settings are unusable.
    package func oauthConfiguration() throws(ConfigurationErrors) -> OAuthConfiguration {
        var result = OAuthConfiguration(issuer: issuer)
        var problems: [Problem] = []
        if let patterns = oauth.redirectAllowlist {
            if let invalid = RedirectAllowlist.invalidPattern(in: patterns) {
                problems.append(
                    Problem(
                        setting: "RELAY_OAUTH_REDIRECT_ALLOWLIST",
                        message:
                            "invalid pattern \"\(invalid)\": write scheme://host[:port or :*]/path, with * for one path segment and a final ** for any rest (empty keeps the defaults)"
                    ))
            } else if let allowlist = RedirectAllowlist(adding: patterns) {
                result.redirectAllowlist = allowlist
            }
            if oauth.registrationMode == nil, RedirectAllowlist.invalidPattern(in: patterns) == nil {
                // Before issue 41 this list replaced the defaults and was the only way in; now it
                // adds to them and other safe redirects are accepted too. An operator who set it
                // says which of the two they mean, rather than being loosened silently.
                problems.append(
                    Problem(
                        setting: "RELAY_OAUTH_REGISTRATION",
                        message:
                            "RELAY_OAUTH_REDIRECT_ALLOWLIST now adds to the built-in list; set RELAY_OAUTH_REGISTRATION=allowlist to accept only listed redirect URIs (as before), or =open to also accept any https, loopback or private-use redirect as self-registered"
                    ))
            }
        }
        result.registrationMode = oauth.registrationMode ?? .open
        result.lifetimes = oauth.lifetimes
        // The windows (an hour, a minute) stay RelayOAuth's; only the counts are settings.
        result.registrationRateLimit.requests = oauth.registrationsPerHour
        result.maximumUnusedClients = oauth.maximumUnusedClients
        result.tokenFailureLimit.requests = oauth.tokenFailuresPerMinute
        result.allowsLoopbackMetadataDocuments = oauth.allowLoopbackMetadataDocuments
        if let origin = Self.origin(of: cloudKit.baseURL), !cloudKit.baseURL.hasPrefix("https://api.apple-cloudkit.com")
        {
            // The emulator (demo, tests) hosts the sign-in page itself: forms must be allowed to go there.
            result.signInOrigins.append(origin)
        }
        for problem in result.problems() {
            if case .issuer = problem {
                problems.append(
                    Problem(
                        setting: "RELAY_ISSUER",
                        message:
                            "\(problem): set it to the public base URL, like https://relay.example.com (got \"\(issuer)\")"
                    ))
            } else {
                problems.append(Problem(setting: "RELAY_OAUTH_*", message: problem.description))
            }
        }
        if !problems.isEmpty { throw ConfigurationErrors(problems: problems) }
        return result
    }
}
