/// The seam through which RelayService plugs CloudKit's sign-in into the authorization server.

/// The CloudKit half of the Apple sign-in bridge (RelayService: the CloudKit client).
package protocol AppleSignIn: Sendable {
    /// Where to send the browser: the `redirectURL` of a 421 from `users/caller` without a token.
    func signInURL() async throws -> String
    /// Who signed in: `users/caller` with the web auth token from the callback. Throw
    /// `OAuthError(.accountUnsupported)` for accounts web services cannot use (Advanced Data
    /// Protection, web access off) and `OAuthError(.signInFailed)` for a token CloudKit refuses;
    /// anything else is shown as "try again later".
    func identify(webAuthToken: String) async throws -> AppleIdentity
}

/// The result of `users/caller`.
package struct AppleIdentity: Sendable, Equatable {
    /// CloudKit's opaque user record name (`_` + 32 hex); only its HMAC is kept.
    package var userRecordName: String
    /// The token CloudKit rotated to in that response, which replaces the callback's token.
    package var rotatedToken: String?

    /// An identity.
    package init(userRecordName: String, rotatedToken: String? = nil) {
        self.userRecordName = userRecordName
        self.rotatedToken = rotatedToken
    }
}
