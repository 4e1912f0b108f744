import RelayHTTP

/// Signing in to iCloud again for a connection whose CloudKit token died (`Reconnections`).
extension AuthorizationServer {
    /// `GET /reconnect?h=<handle>`: the form that goes to Apple's sign-in from this tab, for a live
    /// link (pressing it spends the link: `Reconnections.spend`); the callback accepts only the
    /// connection's own Apple user.
    func reconnectPage(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            try await admitPage(request)
            let query = (try? request.query()) ?? FormParameters([])
            guard query.repeatedNames.isEmpty, let handle = query["h"] else {
                return pages.reconnectUnusable(locale: locale)
            }
            let grant: GrantRecord
            let linkHash: String
            do throws(OAuthError) {
                (grant, linkHash) = try await reconnections.peek(handle)
            } catch  where error.code == .alreadyUsed {
                return pages.reconnectUnusable(locale: locale)
            }
            let created = try await pending.create(
                purpose: .reconnect, request: nil, grantID: grant.id, linkHash: linkHash)
            var response = pages.reconnect(
                requestID: created.record.id, csrf: created.csrfToken, tab: created.tabNonce, label: grant.label,
                locale: locale)
            response.setCookie(created.cookie)
            return response
        } catch {
            return pages.error(error, locale: locale)
        }
    }
}
