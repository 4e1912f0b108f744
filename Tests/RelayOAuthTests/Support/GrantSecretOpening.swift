import RelayHTTP

@testable import RelayOAuth

extension AuthorizationServer {
    /// Opens the grant secret bound to the request's token, through the server's own binder: what
    /// RelayService's vault does with `BearerGrant.boundSecret` on every tool call, done here so the
    /// OAuth tests can check the binding without the vault.
    func grantSecret(for grant: BearerGrant, in request: Request) throws(OAuthError) -> GrantSecret {
        let token = try bearer.presentedToken(request).get()
        return try context.unbind(
            grant.boundSecret, token: token, grant: GrantContext(userID: grant.userID, grantID: grant.grantID))
    }
}
