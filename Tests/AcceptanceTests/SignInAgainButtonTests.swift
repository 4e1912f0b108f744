import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

extension AcceptanceSuite {
    /// The connections page makes a waiting connection's sign-in link only when the person asks for it
    /// (issue 39 follow-up): one `mustdo-relay serve` on a real socket with its SQLite file, the emulator
    /// over HTTP killing a rotated token at once, every step over HTTP as the person's browser takes it.
    /// Viewing the page writes no `RECONNECT#` item; the "Sign in to iCloud again" button (a form with the
    /// page's single-use CSRF token, the rules of "End this connection") makes one and goes to it.
    @Suite struct SignInAgainButtonTests {
        static func links(_ database: String) async throws -> Int {
            try await SignInAgainFloodTests.linkItems(database).all
        }

        @Test func viewingThePageMakesNoLinkAndOnlyThePersonsButtonMakesOne() async throws {
            let http = try HTTPClient(
                configuration: HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: .seconds(30)))
            defer { http.shutdown() }
            let emulator = try await EmulatorProcess(http: http)
            let setup = try await RelaySetup(emulator: emulator)
            defer { setup.remove() }
            let relay = try await setup.start(http: http)
            let database = setup.directory + "/relay.sqlite"
            let (client, alice) = try await RelayClient.connected(
                http: http, appleID: "button@example.com", at: relay.base)
            let (bobClient, bob) = try await RelayClient.connected(
                http: http, appleID: "bob-button@example.com", at: relay.base)

            // Apple ends both sessions: each grant waits, its tool calls showing one link (two items).
            try await emulator.control("sessions/expire", [:])
            #expect(try await client.signInLink(access: alice.access, at: relay.base) != nil)
            #expect(try await bobClient.signInLink(access: bob.access, at: relay.base) != nil)
            #expect(try await Self.links(database) == 2)

            // The person's page, viewed again and again (both languages): a button, no link, no item.
            let session = try await client.openConnections(appleID: "button@example.com", at: relay.base)
            var page = try await client.connectionsPage(session, at: relay.base)
            for language in ["en", "ja", "en", "ja", "en"] {
                page = try await client.connectionsPage(session, at: relay.base, language: language)
                #expect(page.status == 200)
                #expect(!page.text.contains("/reconnect"), "no link on the page")
                if language == "ja" {
                    #expect(page.text.contains("iCloud へのサインインが必要です"))
                    #expect(page.text.contains("もう一度 iCloud にサインイン"))
                } else {
                    #expect(page.text.contains("Needs iCloud sign-in"))
                    #expect(page.text.contains("name=action value=sign-in>Sign in to iCloud again</button>"))
                }
            }
            #expect(try await Self.links(database) == 2, "viewing the page wrote no RECONNECT# item")
            let grant = try #require(RelayClient.grantIDs(in: page.text).first)
            #expect(RelayClient.grantIDs(in: page.text) == [grant], "only the person's own connection")
            let bobSession = try await bobClient.openConnections(appleID: "bob-button@example.com", at: relay.base)
            let bobGrant = try #require(
                RelayClient.grantIDs(in: try await bobClient.connectionsPage(bobSession, at: relay.base).text).first)
            #expect(bobGrant != grant)

            // Refused, and nothing made: no CSRF token, a forged one, another site, no session, a stale page's
            // token, another person's (waiting) grant.
            func csrf() async throws -> String {
                let page = try await client.connectionsPage(session, at: relay.base)
                return try #require(RelayClient.hidden("csrf", in: page.text))
            }
            let missing = try await client.connectionsForm(
                [("action", "sign-in"), ("grant", grant)], session: session, at: relay.base)
            #expect(missing.status == 403)
            let forged = try await client.connectionsForm(
                [("csrf", "x" + (try await csrf())), ("action", "sign-in"), ("grant", grant)], session: session,
                at: relay.base)
            #expect(forged.status == 403)
            for site in ["cross-site", "same-site", "none"] {
                let crossSite = try await client.connectionsForm(
                    [("csrf", try await csrf()), ("action", "sign-in"), ("grant", grant)], session: session,
                    site: site, at: relay.base)
                #expect(crossSite.status == 403, "\(site)")
            }
            let noSession = try await client.connectionsForm(
                [("csrf", try await csrf()), ("action", "sign-in"), ("grant", grant)], session: nil, at: relay.base)
            #expect(noSession.status == 403)
            #expect(noSession.text.contains("Confirm with Apple again"))
            let stale = try await csrf()
            _ = try await csrf()
            let staleAnswer = try await client.connectionsForm(
                [("csrf", stale), ("action", "sign-in"), ("grant", grant)], session: session, at: relay.base)
            #expect(staleAnswer.status == 403)
            #expect(staleAnswer.text.contains("This page is out of date"))
            let another = try await client.connectionsForm(
                [("csrf", try await csrf()), ("action", "sign-in"), ("grant", bobGrant)], session: session,
                at: relay.base)
            #expect(another.status == 303)
            #expect(another.headers["location"] == "http://127.0.0.1/connections", "back to the page, no link")
            let undecided = try await client.connectionsForm(
                [("csrf", try await csrf()), ("action", "sign-in")], session: session, at: relay.base)
            #expect(undecided.status == 400)
            #expect(try await Self.links(database) == 2, "no refused form made a link")

            // The button: one link, straight to its page, for this grant. The same form again makes nothing.
            let token = try await csrf()
            let pressed = try await client.connectionsForm(
                [("csrf", token), ("action", "sign-in"), ("grant", grant)], session: session, at: relay.base)
            #expect(pressed.status == 303)
            #expect(pressed.headers["cache-control"] == "no-store")
            let link = try #require(pressed.headers["location"])
            #expect(link.hasPrefix("http://127.0.0.1/reconnect?h="))
            #expect(try await Self.links(database) == 3)
            let replay = try await client.connectionsForm(
                [("csrf", token), ("action", "sign-in"), ("grant", grant)], session: session, at: relay.base)
            #expect(replay.status == 403 || replay.status == 410)
            #expect(try await Self.links(database) == 3)
            let opened = try await client.openSignInLink(link, at: relay.base, language: "ja")
            #expect(opened.page.status == 200)
            #expect(opened.page.text.contains("もう一度 iCloud にサインインしてください"))
            #expect(!relay.child.text.contains(link.dropFirst("http://127.0.0.1".count)), "a link is never logged")

            // It is this grant's: signing in with it brings back the person's connection, not Bob's.
            let back = try await client.signInAgain(link, appleID: "button@example.com", at: relay.base)
            #expect(back.status == 200)
            #expect(back.text.contains("Signed in again"))
            expectResult(try await client.callTool("get_me", access: alice.access, at: relay.base))
            #expect(try await bobClient.signInLink(access: bob.access, at: relay.base) != nil, "Bob's still waits")
            #expect(try await client.openSignInLink(link, at: relay.base).page.status == 410, "spent")
            let after = try await client.connectionsPage(session, at: relay.base)
            #expect(!after.text.contains("value=sign-in"), "no button once the connection works again")
        }
    }
}
