extension OAuthConfiguration {
    /// One thing wrong with a configuration, as a value: the relay's settings reader decides from the
    /// case which setting to name (`RELAY_ISSUER` for every `.issuer`), never from the sentence.
    package enum Problem: Equatable, Sendable, CustomStringConvertible {
        /// The issuer is unusable as the relay's public base URL.
        case issuer(Issuer)
        case resourcePath
        case scopes
        case callbackPath
        /// A lifetime or window is zero or negative.
        case lifetimes
        case consentWindowOutlivesPendingRequest
        case noRedirectURIs
        case requestLimits
        case tokenFailureLimit
        case noUnusedClients

        /// What is wrong with the issuer.
        package enum Issuer: Equatable, Sendable {
            case notAbsolute
            case notHTTPS
            case hasPathOrQuery
            case notLowerCase
        }

        package var description: String {
            switch self {
            case .issuer(.notAbsolute): "the issuer must be an absolute https URL without user info or fragment"
            case .issuer(.notHTTPS): "the issuer must use https (plain http is allowed only on loopback)"
            case .issuer(.hasPathOrQuery): "the issuer must have no path, query or trailing slash"
            case .issuer(.notLowerCase): "the issuer's scheme and host must be lower case"
            case .resourcePath: "the resource path must start with / and not end with /"
            case .scopes: "scopes must be a non-empty list of scope tokens"
            case .callbackPath: "the callback path must start with /"
            case .lifetimes: "lifetimes must be positive"
            case .consentWindowOutlivesPendingRequest:
                "the consent window must not be longer than a pending request lives"
            case .noRedirectURIs: "at least one redirect URI per client must be allowed"
            case .requestLimits:
                "registration and page limits must allow at least one request per window of at least 1 s"
            case .tokenFailureLimit: "the token failure limit must not be negative and its window at least 1 s"
            case .noUnusedClients: "at least one unused client must be allowed"
            }
        }
    }

    /// What is wrong with this configuration; empty when it is usable.
    package func problems() -> [Problem] {
        var problems: [Problem] = []
        switch ParsedURI.parse(issuer) {
        case .failure:
            problems.append(.issuer(.notAbsolute))
        case .success(let uri):
            if uri.scheme != "https", !(uri.scheme == "http" && uri.isLoopback) {
                problems.append(.issuer(.notHTTPS))
            }
            if !uri.path.isEmpty || uri.query != nil {
                problems.append(.issuer(.hasPathOrQuery))
            }
            if uri.host != uri.host.lowercased() || uri.scheme != uri.scheme.lowercased() {
                problems.append(.issuer(.notLowerCase))
            }
        }
        if !resourcePath.hasPrefix("/") || resourcePath.hasSuffix("/") {
            problems.append(.resourcePath)
        }
        if scopes.isEmpty || ScopeSet.parse(scopes.joined(separator: " ")) == nil || scopes.contains("") {
            problems.append(.scopes)
        }
        if !callbackPath.hasPrefix("/") { problems.append(.callbackPath) }
        let windows = [
            lifetimes.accessToken, lifetimes.refreshToken, lifetimes.grant, lifetimes.code, lifetimes.pendingRequest,
            lifetimes.consentWindow, lifetimes.unusedClient, lifetimes.redeemedCode, lifetimes.connectionsSession,
        ]
        if windows.contains(where: { $0.wholeSeconds <= 0 }) || lifetimes.refreshGrace < .zero
            || lifetimes.metadataDocumentCache < .zero || lifetimes.metadataDocumentStaleIfError < .zero
        {
            problems.append(.lifetimes)
        }
        if lifetimes.consentWindow > lifetimes.pendingRequest {
            problems.append(.consentWindowOutlivesPendingRequest)
        }
        if maximumRedirectURIs < 1 { problems.append(.noRedirectURIs) }
        if [registrationRateLimit, pageRateLimit].contains(where: { $0.requests < 1 || $0.window.wholeSeconds < 1 }) {
            problems.append(.requestLimits)
        }
        if tokenFailureLimit.requests < 0 || tokenFailureLimit.window.wholeSeconds < 1 {
            problems.append(.tokenFailureLimit)
        }
        if maximumUnusedClients < 1 { problems.append(.noUnusedClients) }
        return problems
    }
}
