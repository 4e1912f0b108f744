import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

extension AcceptanceSuite {
    /// A connection whose newest CloudKit token is dead waits for its person to sign in to iCloud
    /// again instead of ending (issue 39): one `mustdo-relay serve` on a real socket with SQLite, the
    /// emulator over HTTP killing a rotated token at once (Apple's documented rule), every step over
    /// HTTP as the client and the person's browser take it.
    @Suite struct SignInAgainTests {
        @Test func aDeadTokenWaitsForTheSameAppleUserAndTheSameAccessTokenWorksAgain() async throws {
            let fixture = try await RelayFixture()
            defer { fixture.remove() }
            let (http, emulator) = (fixture.http, fixture.emulator)
            let relay = try await fixture.start()
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "again@example.com", at: relay.base)
            #expect(try await client.callTool("get_me", access: tokens.access, at: relay.base).isResult)

            // Apple ends the session: the connection is kept and asks for a sign-in, never a 401.
            try await emulator.control("sessions/expire", [:])
            let first = try #require(try await client.signInLink(access: tokens.access, at: relay.base))
            let second = try #require(try await client.signInLink(access: tokens.access, at: relay.base))
            #expect(first == second, "a waiting grant shows its one live link again: no store item per call")
            #expect(relay.child.text.contains("cloudkit.sign_in_required"))
            #expect(!relay.child.text.contains(first) && !relay.child.text.contains(second), "a link is never logged")
            // The refresh token still works: the connection was not ended.
            let refreshed = try await client.refresh(tokens.refresh, at: relay.base).get()

            // The page in Japanese. Opening it spends nothing (a chat app's link preview opens it too).
            let japanese = try await client.openSignInLink(first, at: relay.base, language: "ja")
            #expect(japanese.page.status == 200)
            #expect(japanese.page.text.contains("もう一度 iCloud にサインインしてください"))
            #expect(try await client.openSignInLink(first, at: relay.base).page.status == 200)
            #expect(try await client.openSignInLink("/reconnect?h=made-up", at: relay.base).page.status == 410)

            // Another Apple Account is refused with a clear page, and changes nothing.
            let other = try await client.signInAgain(second, appleID: "someone-else@example.com", at: relay.base)
            #expect(other.status == 303)
            #expect(other.headers["location"]?.hasSuffix("failed=other_account") == true)
            let refusal = try await http.send(
                ClientRequest(
                    url: relay.base + "/oauth/apple/callback?failed=other_account", headers: ["Accept-Language": "ja"]))
            #expect(refusal.status == 403)
            #expect(refusal.text.contains("別の Apple アカウントです"))
            // Replay: "Continue with Apple" spent the link.
            let replay = try await client.openSignInLink(second, at: relay.base)
            #expect(replay.page.status == 410)
            #expect(replay.page.text.contains("This link can&#39;t be used"))
            let third = try #require(
                try await client.signInLink(access: refreshed.access, at: relay.base), "still waiting after the refusal"
            )
            let unused = try #require(try await client.signInLink(access: refreshed.access, at: relay.base))
            #expect(third != second && unused == third, "a spent link is replaced once, then shown again")

            // The same Apple user signs in again: the same access token works again, call after call.
            let back = try await client.signInAgain(third, appleID: "again@example.com", at: relay.base)
            #expect(back.status == 200)
            #expect(back.text.contains("Signed in again"))
            #expect(try await client.callTool("get_me", access: refreshed.access, at: relay.base).isResult)
            let added = try await client.callTool(
                "add_todo", ["title": "after signing in again"], access: refreshed.access, at: relay.base)
            #expect(added.isResult)
            #expect(try await client.callTool("list_todos", access: refreshed.access, at: relay.base).isResult)
            #expect(relay.child.text.contains("cloudkit.sign_in_restored"))
            // The used link, and one minted before the sign-in, no longer open anything.
            #expect(try await client.openSignInLink(third, at: relay.base).page.status == 410)
            #expect(try await client.openSignInLink(unused, at: relay.base).page.status == 410)
            #expect(try await client.openSignInLink(first, at: relay.base).page.status == 410)
            #expect(!relay.child.text.contains("after signing in again"), "no to-do content in the log")
        }
    }
}
