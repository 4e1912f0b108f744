/// What the consent page lets the person choose: what the app asked for, or — when it asked to read
/// and more — reading only (GitHub's "Read-only / Read and write" per permission). The POST is checked
/// against these choices, so an edited form can neither widen the request, nor add a scope it did
/// not ask for, nor name a set the page did not offer.
enum ScopeChoice {
    /// The scope that reading needs (`get_me`, `list_todos`).
    static let read = "todos:read"

    /// The choices for a request, the first (what was asked) preselected.
    static func choices(for asked: ScopeSet) -> [ScopeSet] {
        guard asked.tokens.contains(read), asked.tokens.count > 1 else { return [asked] }
        return [asked, ScopeSet(tokens: [read])]
    }

    /// The form's `scope` value as one of the choices. No value means the preselected one (what was
    /// asked): a form without the field cannot widen anything.
    static func chosen(_ value: String?, asked: ScopeSet) -> Result<ScopeSet, OAuthError> {
        guard let value else { return .success(asked) }
        let tokens = value.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let match = choices(for: asked).first(where: { $0.tokens.sorted() == tokens.sorted() }) else {
            return .failure(OAuthError(.invalidScope, "The chosen access is not one this page offered."))
        }
        return .success(match)
    }
}
