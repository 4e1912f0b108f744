/// How long the person lets a connection live, chosen on the consent page (issue 44): until they
/// end it (the default), 30 days, or 1 day from the moment it is made. The choice is stored with
/// the grant (`lifetime`) and becomes its hard end (`ends`), which every token is clamped to and
/// the store expires the grant at: a refresh past it fails with `invalid_grant`, the grant and
/// its tokens gone, and no access token lives past it. The operator's longest lifetime
/// (`RELAY_OAUTH_GRANT_LIFETIME`) still caps every choice, "until I end it" included.
enum ConnectionLifetime: String, Sendable, CaseIterable {
    case untilEnded = "until-ended"
    case thirtyDays = "30d"
    case oneDay = "1d"

    /// The form's field name.
    static let field = "lifetime"

    /// The chosen length in seconds; nil for "until I end it".
    var seconds: Int? {
        switch self {
        case .untilEnded: nil
        case .thirtyDays: 30 * 86400
        case .oneDay: 86400
        }
    }

    /// The grant's lifetime from its creation: the choice within the operator's longest.
    func lifetime(within maximum: Int) -> Int { min(seconds ?? maximum, maximum) }

    /// The form's value as one of the choices. No value is the preselected default; anything else
    /// the page did not offer (a forged "365d", "-1", a number of seconds) is refused, never
    /// rounded to something near it.
    static func chosen(_ value: String?) -> Result<ConnectionLifetime, OAuthError> {
        guard let value else { return .success(.untilEnded) }
        guard let choice = ConnectionLifetime(rawValue: value) else {
            return .failure(OAuthError(.invalidRequest, "The chosen lifetime is not one this page offered."))
        }
        return .success(choice)
    }
}
