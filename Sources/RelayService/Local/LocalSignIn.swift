import Foundation
import RelayCloudKit
import RelayCrypto
import RelayHTTP
import RelayOAuth
import RelaySync

/// The local server's iCloud sign-in: CloudKit's 421 `redirectURL` opened in the person's browser, and the
/// callback caught on `http://localhost:<port>`.
///
/// CloudKit's callback goes to the fixed URL set on the API token and carries no state of ours
/// (`reference/cloudkit-ws.md`), so a page anywhere could send a browser to the callback with a session of
/// its own and have this server save it (login CSRF: the person's AI would then write to someone else's
/// iCloud). The attempt is therefore tied to the browser tab that starts it, as the hosted relay ties its
/// callback (`TabBinding`): the link opened is a local start page (`/mustdo/sign-in?n=<nonce>`) that
/// works once (the first browser to open it owns the attempt; a second open is refused), sets an HttpOnly,
/// SameSite=Lax cookie for `localhost`, keeps the attempt's tab nonce in the tab's `sessionStorage` and
/// only then goes on to Apple. A SameSite=Lax cookie travels with another site's navigation too, so the
/// callback URL itself stores nothing: it answers with a page whose script takes the token out of the
/// address bar and POSTs it with the tab's nonce, and only that POST (same origin, the cookie, the
/// nonce, once, while the attempt is open) saves a sign-in. A callback in any other tab is refused and
/// leaves the attempt open for the tab that started it. The listener exists only for the attempt's
/// window, on 127.0.0.1, and answers only for `localhost:<port>` and `127.0.0.1:<port>`.
///
/// After a callback the browser is sent on to a clean page (`/mustdo/done`), so the token does not stay in
/// its address bar or history. The token is checked with `users/caller` before it is saved.
final class LocalSignIn: Sendable {
    static let startPath = "/mustdo/sign-in"
    static let callbackPath = LocalBounce.targetPath
    static let donePath = "/mustdo/done"
    static let cookieName = "mustdo_sign_in"

    let client: CloudKitClient
    let session: LocalSession
    let port: Int
    let browser: [String]?
    let logger: Logger
    private let current = Locked<Attempt?>(nil)
    /// The last attempt that ended, whose listener may still be lingering for its result page.
    private let ended = Locked<Attempt?>(nil)

    init(client: CloudKitClient, session: LocalSession, port: Int, browser: [String]?, logger: Logger) {
        self.client = client
        self.session = session
        self.port = port
        self.browser = browser
        self.logger = logger
    }

    /// How an attempt ended.
    enum Outcome: Sendable, Equatable {
        case signedIn
        case failed(String)
        case timedOut
    }

    /// One sign-in window: its secrets, its listener and, once known, how it ended.
    final class Attempt: Sendable {
        let nonce = Base64URL.encode(SecureRandom.bytes(count: 24))
        let cookie = Base64URL.encode(SecureRandom.bytes(count: 24))
        /// The nonce the start page keeps in the tab's `sessionStorage` (`TabBinding`).
        let tab = TabBinding.newNonce()
        let appleURL: String
        let deadline: ContinuousClock.Instant
        let startURL: String
        fileprivate let server = Locked<Server?>(nil)
        private let ending = Locked<Outcome?>(nil)
        private let opened = Locked(false)
        private let claimed = Locked(false)

        init(appleURL: String, port: Int, window: Duration) {
            self.appleURL = appleURL
            deadline = ContinuousClock.now + window
            startURL = "http://localhost:\(port)\(LocalSignIn.startPath)?n=\(nonce)"
        }

        /// How it ended, nil while open.
        var outcome: Outcome? { ending.withLock { $0 } }

        /// Whether a browser has opened the start link.
        var isStarted: Bool { opened.withLock { $0 } }

        /// Takes the start link for the browser asking; false when one already has it.
        fileprivate func takeStart() -> Bool {
            opened.withLock { opened in
                guard !opened else { return false }
                opened = true
                return true
            }
        }

        /// Takes the callback for the one POST that goes on to CloudKit; false when another already has it.
        fileprivate func claim() -> Bool {
            claimed.withLock { claimed in
                guard !claimed else { return false }
                claimed = true
                return true
            }
        }

        /// Records the end once; false when it had ended already.
        fileprivate func end(_ outcome: Outcome) -> Bool {
            ending.withLock { ending in
                guard ending == nil else { return false }
                ending = outcome
                return true
            }
        }

        var secondsLeft: Int { max(0, Int((deadline - ContinuousClock.now).components.seconds)) }
    }

    /// Opens a sign-in window of `window` (or joins the one still open, as long as no browser has opened its
    /// link: a link works once) and hands its link to the browser. `opened` is false when no browser could be
    /// asked: the caller gives the person the link instead.
    func begin(window: Duration) async throws(LocalSignInError) -> (attempt: Attempt, opened: Bool) {
        if let open = current.withLock({ $0 }), open.outcome == nil, ContinuousClock.now < open.deadline,
            !open.isStarted
        {
            return (open, await openBrowser(open))
        }
        let appleURL: String
        do {
            appleURL = try await client.signInURL()
        } catch {
            throw LocalSignInError(
                code: "UPSTREAM_UNAVAILABLE",
                "iCloud did not give a sign-in page (\(error)). Check the API token and the network, then retry.")
        }
        let attempt = Attempt(appleURL: appleURL, port: port, window: window)
        // An open attempt whose link a browser already took is replaced; its listener holds the port, so it
        // is stopped here (and waited for) before the attempt ends.
        if let open = current.withLock({ $0 }) {
            await Self.stopListener(of: open)
            finish(open, .timedOut, linger: .zero)
        }
        // A lingering listener of an ended attempt still holds the port (a server never shares its port
        // with another): close it first.
        if let previous = ended.withLock({ ended -> Attempt? in
            defer { ended = nil }
            return ended
        }) {
            await Self.stopListener(of: previous)
        }
        let server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: port, eventLoops: 1),
            responder: Responder { [self] request in .later { await self.respond(to: request, attempt: attempt) } })
        do {
            try server.start()
        } catch {
            throw LocalSignInError(
                code: "CALLBACK_PORT_IN_USE",
                "Cannot listen on localhost:\(port) for Apple's callback (\(error)). Close what uses the port, or "
                    + "set MUSTDO_CALLBACK_PORT to the port the API token's callback names.")
        }
        attempt.server.withLock { $0 = server }
        let replaced = current.withLock { current -> Attempt? in
            defer { current = attempt }
            return current
        }
        if let replaced { finish(replaced, .timedOut, linger: .zero) }
        Task { [self] in
            try? await Task.sleep(until: attempt.deadline)
            finish(attempt, .timedOut, linger: .zero)
        }
        var event = LogEvent(.info, "local.sign_in_started")
        event.count = port
        logger.log(event)
        return (attempt, await openBrowser(attempt))
    }

    private func openBrowser(_ attempt: Attempt) async -> Bool {
        guard let browser else { return false }
        return await BrowserOpener.open(attempt.startURL, command: browser)
    }

    /// Waits until `attempt` ends (or the calling task is cancelled: then nil).
    func wait(for attempt: Attempt) async -> Outcome? {
        while !Task.isCancelled {
            if let outcome = attempt.outcome { return outcome }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Ends `attempt` with `outcome` and closes its listener after `linger` (time for the browser to load
    /// the page it was just sent to).
    private func finish(_ attempt: Attempt, _ outcome: Outcome, linger: Duration) {
        guard attempt.end(outcome) else { return }
        current.withLock { if $0 === attempt { $0 = nil } }
        ended.withLock { $0 = attempt }
        var event = LogEvent(outcome == .signedIn ? .info : .warning, "local.sign_in_ended")
        event.outcome = StaticOrRoute(
            name: outcome == .signedIn ? "signed_in" : outcome == .timedOut ? "timed_out" : "failed")
        logger.log(event)
        Task {
            if linger > .zero { try? await Task.sleep(for: linger) }
            await Self.stopListener(of: attempt)
        }
    }

    /// Shuts `attempt`'s listener down (once: whoever takes it from the attempt stops it).
    private static func stopListener(of attempt: Attempt) async {
        let server = attempt.server.withLock { server -> Server? in
            defer { server = nil }
            return server
        }
        server?.shutdown()
        await server?.waitUntilStopped()
    }

    // MARK: - The listener's pages

    private func respond(to request: Request, attempt: Attempt) async -> Response {
        let host = (request.headers["host"] ?? "").lowercased()
        guard host == "localhost:\(port)" || host == "127.0.0.1:\(port)" else {
            return LocalSignInPages.page(.misdirectedRequest, .wrongHost)
        }
        if request.method == .post, request.path == Self.callbackPath {
            return await finishCallback(request, attempt: attempt)
        }
        guard request.method == .get || request.method == .head else {
            return LocalSignInPages.page(.methodNotAllowed, .unknown)
        }
        switch request.path {
        case Self.startPath:
            return start(request, attempt: attempt)
        case Self.callbackPath:
            return await callback(request, attempt: attempt)
        case Self.donePath:
            return LocalSignInPages.done(request)
        default:
            return LocalSignInPages.page(.notFound, .unknown)
        }
    }

    /// The start page: the nonce from the link (taken once: the first browser owns the attempt), then the
    /// binding cookie, the tab's nonce into `sessionStorage` and on to Apple.
    private func start(_ request: Request, attempt: Attempt) -> Response {
        let nonce = (try? request.query()["n"]) ?? ""
        guard attempt.outcome == nil, ConstantTime.equals(Array(nonce.utf8), Array(attempt.nonce.utf8)) else {
            return LocalSignInPages.page(.forbidden, .expired)
        }
        guard request.method == .get, attempt.takeStart() else {
            return LocalSignInPages.page(.forbidden, .alreadyOpened)
        }
        var response = LocalSignInPages.start(tab: attempt.tab, appleURL: attempt.appleURL)
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: attempt.cookie, path: "/mustdo/", maxAge: attempt.secondsLeft + 5,
                secure: false, sameSite: .lax))
        return response
    }

    /// Apple's callback (directly, or through the relay's bounce): nothing is stored here. A browser holding
    /// the attempt's cookie gets the page that POSTs the query with its tab's nonce (`finishCallback`).
    private func callback(_ request: Request, attempt: Attempt) async -> Response {
        guard attempt.outcome == nil, holdsCookie(request, attempt) else {
            return LocalSignInPages.redirect(.notStartedHere)
        }
        return LocalSignInPages.finishing()
    }

    /// The callback page's POST: same origin, cookie, the tab's nonce, then token, `users/caller`, save.
    /// Another tab (another site's navigation or `window.open`, a second tab) is refused and the attempt
    /// stays open for the tab that started it.
    private func finishCallback(_ request: Request, attempt: Attempt) async -> Response {
        guard TabBinding.isSameOrigin(request, origin: "http://" + (request.headers["host"] ?? "")) else {
            return LocalSignInPages.redirect(.wrongTab)
        }
        guard attempt.outcome == nil, holdsCookie(request, attempt) else {
            return LocalSignInPages.redirect(.notStartedHere)
        }
        guard let form = try? request.formBody(), form.repeatedNames.isEmpty,
            ConstantTime.equals(Array((form[TabBinding.nonceField] ?? "").utf8), Array(attempt.tab.utf8))
        else {
            logger.log(LogEvent(.warning, "local.sign_in_wrong_tab"))
            return LocalSignInPages.redirect(.wrongTab)
        }
        // Once: a second POST of the same page (a double submit, a replay) changes nothing.
        guard attempt.claim() else { return LocalSignInPages.redirect(.notStartedHere) }
        guard let token = CloudKitSignInCallback.webAuthToken(inQuery: form[TabBinding.queryField] ?? "") else {
            finish(attempt, .failed("Apple sent no sign-in token."), linger: .seconds(10))
            return LocalSignInPages.redirect(.noToken)
        }
        let verified: CloudKitWebAuthToken
        do {
            let response = try await client.caller(token: CloudKitWebAuthToken(token))
            verified = response.rotatedToken ?? CloudKitWebAuthToken(token)
        } catch {
            let unsupported = error.kind == .accountUnsupported || error.kind == .accessDenied
            finish(
                attempt,
                .failed(
                    unsupported
                        ? "This Apple account cannot be used through the web (Advanced Data Protection on, or iCloud "
                            + "data on the web off)."
                        : "Apple did not accept the sign-in (\(error.kind.rawValue))."),
                linger: .seconds(10))
            return LocalSignInPages.redirect(unsupported ? .unsupported : .refused)
        }
        do {
            try await session.saveSignIn(verified)
        } catch {
            finish(attempt, .failed("The sign-in could not be saved: \(error)"), linger: .seconds(10))
            return LocalSignInPages.redirect(.notSaved)
        }
        finish(attempt, .signedIn, linger: .seconds(10))
        return LocalSignInPages.redirect(.signedIn)
    }

    private func holdsCookie(_ request: Request, _ attempt: Attempt) -> Bool {
        let cookie = request.cookie(Self.cookieName) ?? ""
        return ConstantTime.equals(Array(cookie.utf8), Array(attempt.cookie.utf8))
    }
}

/// Why a sign-in could not start, with a tool error code.
struct LocalSignInError: Error, CustomStringConvertible {
    let code: String
    let description: String
    init(code: String, _ description: String) {
        self.code = code
        self.description = description
    }
}
