import Foundation
import RelayHTTP
import Testing

@testable import RelayOAuth

/// Property: whatever happens, the SQLite files (database, WAL, shared memory) and the audit
/// events never contain a token, a code, a client secret, a web auth token, a cookie or CSRF
/// value, or a CloudKit user record name.
struct StoredSecretsTests {
    @Test func noSecretReachesTheDatabaseFilesOrTheEvents() async throws {
        let harness = try await OAuthHarness.start()
        var secrets: [String] = []
        do {
            let h = harness
            h.signIn.state.withLock { $0.rotate = true }
            for round in 0..<3 {
                let appleID = "user\(round)@example.com"
                let client = try await h.register(method: round == 1 ? "client_secret_post" : "none")
                if let secret = client.secret { secrets.append(secret) }
                let verifier = OAuthHarness.newVerifier()
                let browser = h.browser()
                let page = try await browser.get(OAuthHarness.authorizePath(clientID: client.id, verifier: verifier))
                secrets += browser.cookies.values
                secrets.append(try #require(TestBrowser.hidden("csrf", in: page.text)))
                _ = try await h.pressContinue(browser: browser, page: page)
                let webAuthToken = h.signIn.token(for: appleID)
                secrets += [webAuthToken, webAuthToken + "rotated", h.signIn.recordName(for: appleID), verifier]
                let callback = try await browser.get(h.callbackPath(token: webAuthToken))
                let code = try #require(callback.locationQuery["code"]?.first)
                secrets.append(code)
                var extra: [(String, String)] = []
                if let secret = client.secret { extra.append(("client_secret", secret)) }
                var tokens = try Tokens(
                    try await h.exchange(code: code, verifier: verifier, clientID: client.id, extra: extra),
                    clientID: client.id)
                secrets += [tokens.accessToken, tokens.refreshToken ?? ""]
                for _ in 0..<2 {
                    let refreshed = try await h.client.postForm(
                        "/token",
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", tokens.refreshToken ?? ""),
                            ("client_id", client.id),
                        ]
                            + extra)
                    tokens = try Tokens(refreshed, clientID: client.id)
                    secrets += [tokens.accessToken, tokens.refreshToken ?? ""]
                }
                #expect(try await h.mcp(tokens.accessToken).status == 200)
            }
            // A disconnect's sign-in leaves nothing either.
            let browser = try await DisconnectTests.confirm(h)
            let token = h.signIn.token(for: "user0@example.com")
            secrets.append(token)
            _ = try await browser.get(h.callbackPath(token: token))
        } catch {
            await harness.stop()
            throw error
        }
        let events = harness.recordedEvents.map { "\($0)" }.joined(separator: "\n")
        await harness.stop(removeFiles: false)
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        var files: [[UInt8]] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: harness.directory) {
            files.append(Array(try Data(contentsOf: URL(fileURLWithPath: harness.directory + "/" + name))))
        }
        #expect(files.reduce(0) { $0 + $1.count } > 0)
        #expect(secrets.count > 30)
        for secret in secrets where !secret.isEmpty {
            // The whole value, and its random body alone (prefix stripped), in plain and encoded forms.
            var needles = [secret, FormDecoding.encode(secret)]
            if let body = TokenKind.allCases.first(where: { secret.hasPrefix($0.rawValue) }).map({
                String(secret.dropFirst($0.rawValue.count))
            }) {
                needles.append(String(body.prefix(43)))
            }
            for needle in needles where needle.utf8.count >= 16 {
                for file in files {
                    #expect(file.firstRange(of: Array(needle.utf8)) == nil, "a secret reached the database files")
                }
                #expect(!events.contains(needle), "a secret reached the audit events")
            }
        }
    }
}
