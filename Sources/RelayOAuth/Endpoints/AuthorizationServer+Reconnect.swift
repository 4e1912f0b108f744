import RelayHTTP

/// Signing in to iCloud again for a connection whose CloudKit token died (`Reconnections`).
extension AuthorizationServer {
    /// `GET /reconnect?h=<handle>`: spends the link (single use) and shows the form that goes to
    /// Apple's sign-in from this tab; the callback accepts only the connection's own Apple user.
    func reconnectPage(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            try await admitPage(request)
            let query = (try? request.query()) ?? FormParameters([])
            guard query.repeatedNames.isEmpty, let handle = query["h"] else {
                return pages.reconnectUnusable(locale: locale)
            }
            let grant: GrantRecord
            do throws(OAuthError) {
                grant = try await reconnections.spend(handle)
            } catch  where error.code == .alreadyUsed {
                return pages.reconnectUnusable(locale: locale)
            }
            let created = try await pending.create(purpose: .reconnect, request: nil, grantID: grant.id)
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
