import RelayHTTP
import RelayJSON

extension AuthorizationServer {
    /// Adds every route: discovery (with CORS and preflights), `/register`, `/authorize`, the
    /// consent POST, the Apple callback, `/token`, `/revoke`, `/disconnect` and `/connections`.
    package func register(on router: inout Router) {
        let pages = self.pages
        router.notFound = { pages.notFound($0) }
        let resourceDocument = discovery.protectedResource
        let serverDocument = discovery.authorizationServer
        router.get(paths.protectedResource, immediate: { _ in Self.document(resourceDocument) })
        router.get(
            paths.protectedResource + configuration.resourcePath, immediate: { _ in Self.document(resourceDocument) })
        let slashedDocument = discovery.protectedResourceWithSlash
        router.get(
            paths.protectedResource + configuration.resourcePath + "/",
            immediate: { _ in Self.document(slashedDocument) })
        router.get(paths.authorizationServer, immediate: { _ in Self.document(serverDocument) })
        router.get(
            paths.openIDConfiguration,
            immediate: { _ in
                var response = HTTPError(.notFound, message: "This server publishes RFC 8414 metadata only.").response()
                CORS.apply(to: &response)
                return response
            })
        for path in [
            paths.protectedResource, paths.protectedResource + configuration.resourcePath,
            paths.protectedResource + configuration.resourcePath + "/", paths.authorizationServer,
            paths.openIDConfiguration,
        ] {
            router.on(.options, path, immediate: { _ in CORS.preflight(methods: "GET, OPTIONS") })
        }
        for path in [paths.register, paths.token, paths.revoke] {
            router.on(.options, path, immediate: { _ in CORS.preflight(methods: "POST, OPTIONS") })
        }
        router.post(paths.register, machine { try await self.registerClient($0) })
        router.post(paths.token, machine { try await self.token($0) })
        router.post(paths.revoke, machine { try await self.revoke($0) })
        router.get(paths.authorize) { await self.authorize($0) }
        router.post(paths.consent) { await self.consent($0) }
        router.get(paths.callback) { await self.callback($0) }
        router.post(paths.callback) { await self.callbackFinish($0) }
        router.get(paths.disconnect) { await self.disconnectPage($0) }
        router.post(paths.disconnect) { await self.confirmDisconnect($0) }
        router.get(paths.connections) { await self.connectionsPage($0) }
        router.post(paths.connections) { await self.confirmConnections($0) }
        router.post(paths.connectionsEnd) { await self.endConnections($0) }
        router.get(Reconnections.path) { await self.reconnectPage($0) }
        router.post(Reconnections.path) { await self.confirmWithApple($0, purpose: .reconnect) }
    }

    /// A JSON discovery document, cacheable for a while, with CORS.
    static func document(_ bytes: [UInt8]) -> Response {
        var response = Response(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "public, max-age=3600"],
            body: bytes)
        CORS.apply(to: &response)
        return response
    }

    /// A machine endpoint: OAuth errors render as JSON, and every answer carries CORS headers.
    func machine(_ body: @escaping @Sendable (Request) async throws -> Response) -> Router.Handler {
        { request in
            var response: Response
            do {
                response = try await body(request)
            } catch let error as OAuthError {
                response = error.response()
            }
            CORS.apply(to: &response)
            return response
        }
    }

    /// The decoded form body, as an OAuth error when it is not a form.
    static func form(_ request: Request) throws(OAuthError) -> FormParameters {
        do {
            return try request.formBody()
        } catch {
            throw OAuthError(.invalidRequest, "The body must be application/x-www-form-urlencoded.")
        }
    }

    /// The locale of a browser request.
    static func locale(_ request: Request) -> PageLocale {
        PageLocale(acceptLanguage: request.headers["accept-language"])
    }

    /// A redirect out of a page flow: 303 after a POST (never 307, RFC 9700 §4.12), 302 after a GET,
    /// with the page headers so nothing is cached or leaks through `Referer`.
    static func pageRedirect(_ location: String, after method: HTTPMethod) -> Response {
        var response = Response.redirect(to: location, status: method == .post ? .seeOther : .found)
        PageLayout.secure(&response)
        return response
    }

    /// A cookie that deletes the binding cookie `name`.
    func expiredCookie(_ name: String) -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, secure: !configuration.isLoopbackDemo)
    }
}
