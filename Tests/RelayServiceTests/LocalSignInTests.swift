import Foundation
import RelayCloudKit
import RelayEmulator
import RelayHTTP
import RelayTestSupport
import Testing

@testable import RelayService

#if canImport(Glibc)
    import Glibc
#endif

/// The local sign-in listener on a real socket, with the emulator standing in for Apple: a callback is
/// taken only from the browser tab that opened the start page (its cookie and the tab's nonce, POSTed by
/// the callback page: issue 37), only for the attempt's nonce, only for `localhost`/`127.0.0.1` at the
/// port, and only once; the start link itself works once. A page elsewhere that sends the person's
/// browser to the callback with a session of its own (login CSRF) saves nothing.
@Suite struct LocalSignInTests {
    final class Fixture: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signin-\(UUID().uuidString)")
            .path
        let emulator: Emulator
        let http: HTTPClient
        let client: CloudKitClient
        let tokens: LocalAuthFile
        let session: LocalSession
        let signIn: LocalSignIn
        let port: Int
        let logFile: String
        let logger: Logger

        init() throws {
            emulator = try Emulator(configuration: EmulatorConfiguration(apiToken: "local-api-token"))
            try emulator.start()
            http = try HTTPClient()
            client = CloudKitClient(
                configuration: CloudKitConfiguration(
                    baseURL: emulator.baseURL, container: "iCloud.jp.lightning.mustdo", environment: .production,
                    apiToken: CloudKitAPIToken("local-api-token"), zoneName: "MustDo"),
                http: http)
            tokens = LocalAuthFile(path: directory + "/home/auth.json")
            try tokens.ensureDirectory()
            session = LocalSession(
                tokens: tokens, lock: FileLock(path: tokens.path + ".lock"), container: "iCloud.jp.lightning.mustdo",
                environment: "production")
            logFile = directory + "/local.log"
            let fd = open(logFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            logger = Logger(minimumLevel: .debug, fd: fd)
            port = try freePort()
            signIn = LocalSignIn(client: client, session: session, port: port, browser: nil, logger: logger)
        }

        deinit {
            emulator.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// GET `path` on the listener, with `host` as the Host header and `cookie` if given.
        func get(_ path: String, host: String? = nil, cookie: String? = nil) async throws -> ClientResponse {
            var headers = HTTPHeaders([("Host", host ?? "localhost:\(port)")])
            if let cookie { headers.set("Cookie", cookie) }
            return try await http.send(
                ClientRequest(url: "http://127.0.0.1:\(port)" + path, headers: headers, timeout: .seconds(20)))
        }

        /// The callback page's POST (what its script sends): the raw query and the tab's nonce.
        func finish(
            _ token: String?, cookie: String?, tab: String, site: String = "same-origin"
        ) async throws -> ClientResponse {
            var headers = HTTPHeaders([
                ("Host", "localhost:\(port)"), ("Content-Type", "application/x-www-form-urlencoded"),
                ("Sec-Fetch-Site", site),
            ])
            if let cookie { headers.set("Cookie", cookie) }
            let query = token.map { "ckWebAuthToken=" + PercentEncoding.encode($0) } ?? "errorMessage=x"
            return try await http.send(
                ClientRequest(
                    method: .post, url: "http://127.0.0.1:\(port)" + LocalSignIn.callbackPath, headers: headers,
                    body: Array(FormDecoding.encode([("q", query), ("tab", tab)]).utf8), timeout: .seconds(20)))
        }

        func log() throws -> String {
            logger.close()
            return try String(contentsOfFile: logFile, encoding: .utf8)
        }
    }

    static func callback(_ token: String) -> String {
        LocalSignIn.callbackPath + "?ckWebAuthToken=" + PercentEncoding.encode(token)
    }

    @Test func onlyTheBrowserThatStartedItCanFinishIt() async throws {
        let fixture = try Fixture()
        let started = try await fixture.signIn.begin(window: .seconds(60))
        #expect(!started.opened)
        let attempt = started.attempt
        #expect(attempt.startURL.hasPrefix("http://localhost:\(fixture.port)\(LocalSignIn.startPath)?n="))

        // Someone else's session, sent to the callback by another page: no cookie, or a wrong one.
        let intruder = try fixture.emulator.createSession(appleID: "mallory@example.com").webAuthToken
        for cookie in [nil, "\(LocalSignIn.cookieName)=guess", "other=\(attempt.cookie)"] {
            let forged = try await fixture.get(Self.callback(intruder), cookie: cookie)
            #expect(forged.status == 303)
            #expect(forged.headers["location"] == "/mustdo/done?result=not-started-here")
        }
        #expect(try fixture.tokens.read() == nil)
        #expect(attempt.outcome == nil, "a forged callback must not end the person's attempt")

        // The start page wants the attempt's nonce and the listener its own host names.
        #expect(try await fixture.get(LocalSignIn.startPath + "?n=wrong").status == 403)
        #expect(try await fixture.get(LocalSignIn.startPath).status == 403)
        let startPath = String(attempt.startURL.dropFirst("http://localhost:\(fixture.port)".count))
        for host in ["evil.example", "evil.example:\(fixture.port)", "localhost", "localhost:1"] {
            #expect(try await fixture.get(startPath, host: host).status == 421, "Host \(host)")
        }
        #expect(try await fixture.get(LocalSignIn.callbackPath, host: "127.0.0.1:\(fixture.port)").status == 303)

        // The person's browser: the start page sets the cookie, keeps the tab's nonce and goes on to Apple
        // (its script, allowed by hash); the link works once.
        let start = try await fixture.get(startPath)
        #expect(start.status == 200)
        #expect(start.text.contains("data-tab=\"\(attempt.tab)\" data-next=\"\(HTML.escape(attempt.appleURL))\""))
        #expect(start.headers["content-security-policy"]?.contains("script-src 'sha256-") == true)
        #expect(start.headers["cross-origin-opener-policy"] == "same-origin")
        let second = try await fixture.get(startPath)
        #expect(second.status == 403)
        #expect(second.text.contains("data-result=\"already-opened\""))
        #expect(second.headers["set-cookie"] == nil)
        let setCookie = try #require(start.headers["set-cookie"])
        #expect(setCookie.hasPrefix("\(LocalSignIn.cookieName)=\(attempt.cookie);"))
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        #expect(start.headers["cache-control"] == "no-store")
        #expect(start.headers["referrer-policy"] == "no-referrer")

        // Another tab of that browser (the cookie, no nonce, a wrong one, or another site's POST): the callback
        // page stores nothing and the attempt stays open.
        let cookie = "\(LocalSignIn.cookieName)=\(attempt.cookie)"
        let page = try await fixture.get(Self.callback(intruder), cookie: cookie)
        #expect(page.status == 200 && page.text.contains("<form id=finish method=post action=\"/mustdo/callback\">"))
        #expect(!page.text.contains(intruder) && !page.text.contains(PercentEncoding.encode(intruder)))
        for (tab, site) in [("", "same-origin"), ("guess", "same-origin"), (attempt.tab, "cross-site")] {
            let other = try await fixture.finish(intruder, cookie: cookie, tab: tab, site: site)
            #expect(other.headers["location"] == "/mustdo/done?result=wrong-tab", "\(tab) \(site)")
        }
        #expect(try fixture.tokens.read() == nil)
        #expect(attempt.outcome == nil, "another tab must not end the person's attempt")

        // Apple's callback in the starting tab: checked with users/caller, saved 0600.
        let person = try fixture.emulator.createSession(appleID: "alice@example.com").webAuthToken
        let done = try await fixture.finish(person, cookie: cookie, tab: attempt.tab)
        #expect(done.headers["location"] == "/mustdo/done?result=signed-in")
        #expect(await fixture.signIn.wait(for: attempt) == .signedIn)
        let saved = try #require(try fixture.tokens.read())
        #expect(saved.container == "iCloud.jp.lightning.mustdo" && saved.environment == "production")
        let user = try await fixture.session.perform { token async throws(CloudKitError) in
            try await fixture.client.caller(token: token)
        }
        #expect(!user.userRecordName.isEmpty)

        // Used once: the callback again (a replay from history) changes nothing. (The call above may have
        // rotated the saved token, so compare with what the file holds now.)
        let current = try fixture.tokens.read()
        let replay = try await fixture.get(Self.callback(intruder), cookie: cookie)
        #expect(replay.headers["location"] == "/mustdo/done?result=not-started-here")
        let replayed = try await fixture.finish(intruder, cookie: cookie, tab: attempt.tab)
        #expect(replayed.headers["location"] == "/mustdo/done?result=not-started-here")
        #expect(try fixture.tokens.read() == current)

        // Neither token is in the log.
        let log = try fixture.log()
        for token in [intruder, person, saved.token, current?.token ?? saved.token] {
            #expect(!log.contains(token) && !log.contains(PercentEncoding.encode(token)))
        }
        #expect(!log.contains("ckWebAuthToken"))
    }

    @Test func aTokenAppleRefusesIsNotSaved() async throws {
        let fixture = try Fixture()
        let attempt = try await fixture.signIn.begin(window: .seconds(60)).attempt
        let cookie = "\(LocalSignIn.cookieName)=\(attempt.cookie)"
        let refused = try await fixture.finish("106__54__forged+token/==", cookie: cookie, tab: attempt.tab)
        #expect(refused.headers["location"] == "/mustdo/done?result=refused")
        guard case .failed? = await fixture.signIn.wait(for: attempt) else {
            Issue.record("the attempt did not fail")
            return
        }
        #expect(try fixture.tokens.read() == nil)
        // A retry at once gets the port to itself: the failed attempt's listener, still lingering for its
        // result page, is closed first (it would otherwise share the port and answer "not started here").
        let missing = try await fixture.signIn.begin(window: .seconds(60)).attempt
        let none = try await fixture.finish(
            nil, cookie: "\(LocalSignIn.cookieName)=\(missing.cookie)", tab: missing.tab)
        #expect(none.headers["location"] == "/mustdo/done?result=no-token")
        #expect(try fixture.tokens.read() == nil)
    }

    /// Issue 37: a link a browser already opened is not handed out again; asking again (the `sign_in` tool
    /// twice) replaces the attempt with a new link on the same port.
    @Test func askingAgainAfterTheLinkWasOpenedGivesANewLink() async throws {
        let fixture = try Fixture()
        let first = try await fixture.signIn.begin(window: .seconds(60)).attempt
        let joined = try await fixture.signIn.begin(window: .seconds(60)).attempt
        #expect(joined === first, "an unopened link is joined")
        let path = String(first.startURL.dropFirst("http://localhost:\(fixture.port)".count))
        #expect(try await fixture.get(path).status == 200)
        let second = try await fixture.signIn.begin(window: .seconds(60)).attempt
        #expect(second !== first && second.startURL != first.startURL)
        #expect(first.outcome == .timedOut)
        let secondPath = String(second.startURL.dropFirst("http://localhost:\(fixture.port)".count))
        #expect(try await fixture.get(secondPath).status == 200)
        #expect(try await fixture.get(path).status == 403, "the old link is dead")
    }
}
