import Foundation
import RelayEmulator
import RelayHTTP
import RelayJSON
import RelaySync
import Testing

/// The fake Apple sign-in, driven like a browser: GET the page, POST the form, follow the
/// redirect to a real callback server.
@Suite struct EmulatorSignInTests {
    /// A callback endpoint on a free port that records the raw query it was called with.
    final class Callback: Sendable {
        final class Log: Sendable {
            let items = Locked<[String]>([])
        }

        let server: Server
        let log = Log()

        init() throws {
            var router = Router()
            let log = log
            router.get("/cloudkit/callback") { request in
                log.items.withLock { $0.append(String(request.rawQuery ?? "")) }
                return .text("connected")
            }
            server = Server(
                configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1),
                responder: router.responder)
            try server.start()
        }

        deinit { server.shutdown() }

        var url: String { "http://127.0.0.1:\(server.port)/cloudkit/callback" }
    }

    /// Runs the page flow for `appleID`; returns the final response of the form POST.
    static func submit(
        _ client: EmulatorClient, appleID: String, keepSignedIn: Bool = false
    ) async throws -> EmulatorClient.Reply {
        let start = try await client.database("users/caller", token: nil, database: "public")
        let redirect = try #require(start.json["redirectURL"]?.stringValue)
        let page = try await client.send(ClientRequest(url: redirect))
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("<form method=\"post\" action=\"/IDMSWebAuth/signin\">"))
        let link = try #require(FormDecoding.pairs(String(redirect.split(separator: "?")[1]))?.first?.value)
        #expect(page.text.contains("value=\"\(link)\""))
        var fields = [("oauth_token", link), ("appleID", appleID), ("password", "ignored")]
        if keepSignedIn { fields.append(("keepSignedIn", "1")) }
        return try await client.send(
            ClientRequest(
                method: .post, url: client.base + "/IDMSWebAuth/signin",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormDecoding.encode(fields).utf8)))
    }

    @Test func pageFormAndCallbackRedirect() async throws {
        let callback = try Callback()
        let client = try EmulatorClient(EmulatorConfiguration(callbackURL: callback.url))
        let reply = try await Self.submit(client, appleID: "alice@example.com")
        #expect(reply.status == 302)
        let location = try #require(reply.headers["location"])
        #expect(location.hasPrefix(callback.url + "?ckWebAuthToken="))

        // Follow the redirect as the browser would; the callback sees both parameters.
        let landed = try await client.send(ClientRequest(url: location))
        #expect(landed.text == "connected")
        let query = try #require(callback.log.items.withLock { $0.first })
        let pairs = try #require(FormDecoding.pairs(query))
        #expect(pairs.map(\.name) == ["ckWebAuthToken", "ckSession"])
        let token = pairs[0].value
        #expect(pairs[1].value == token)
        #expect(token.contains("+") && token.contains("/") && token.contains("="))

        // The token works, for the user the Apple ID names, whose MustDo zone now exists.
        let caller = try await client.database("users/caller", token: token, database: "public")
        #expect(
            caller.json["users"]?[0]?["userRecordName"]
                == .string(Emulator.userRecordName(appleID: "alice@example.com")))
        let next = try #require(caller.headers["x-apple-cloudkit-web-auth-token"])
        let zones = try await client.database("zones/list", token: next)
        let names = zones.json["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue }
        #expect(names == ["MustDo", "_defaultZone"])
        #expect(try await client.control("/control/stats").json["signIns"] == 1)
    }

    @Test func callbackWithAQueryAndRawEncoding() async throws {
        let client = try EmulatorClient(
            EmulatorConfiguration(callbackURL: "http://127.0.0.1:9/cb?purpose=connect"))
        _ = try await client.control("/control/settings", ["callbackEncoding": "raw"])
        let reply = try await Self.submit(client, appleID: "bob@example.com")
        let location = try #require(reply.headers["location"])
        #expect(location.hasPrefix("http://127.0.0.1:9/cb?purpose=connect&ckWebAuthToken="))
        // Raw + survives only for a reader that does not treat it as a space.
        let rawToken = String(location.split(separator: "=", maxSplits: 2)[2].split(separator: "&")[0])
        #expect(rawToken.contains("+"))
        #expect(FormDecoding.pairs(String(location.split(separator: "?")[1]))?[1].value.contains("+") == false)
    }

    @Test func linksAreSingleUseAndAppleIDIsRequired() async throws {
        let client = try EmulatorClient(EmulatorConfiguration(callbackURL: "http://127.0.0.1:9/cb"))
        let start = try await client.database("users/caller", token: nil, database: "public")
        let redirect = try #require(start.json["redirectURL"]?.stringValue)
        let link = try #require(FormDecoding.pairs(String(redirect.split(separator: "?")[1]))?.first?.value)
        func post(_ appleID: String) async throws -> EmulatorClient.Reply {
            try await client.send(
                ClientRequest(
                    method: .post, url: client.base + "/IDMSWebAuth/signin",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array(FormDecoding.encode([("oauth_token", link), ("appleID", appleID)]).utf8)))
        }
        let empty = try await post("  ")
        #expect(empty.status == 400)
        #expect(empty.text.contains("Enter an Apple ID."))
        #expect(try await post("carol@example.com").status == 302)
        let reused = try await post("carol@example.com")
        #expect(reused.status == 400)
        #expect(reused.text.contains("expired"))
        #expect(
            try await client.send(ClientRequest(url: client.base + "/IDMSWebAuth/auth?oauth_token=forged")).status
                == 400)
    }

    @Test func advancedDataProtectionAndWebAccessOffFailLikeApple() async throws {
        let client = try EmulatorClient(EmulatorConfiguration(callbackURL: "http://127.0.0.1:9/cb"))
        _ = try await client.control("/control/users/dave@example.com/flags", ["advancedDataProtection": true])
        let protected = try await Self.submit(client, appleID: "dave@example.com")
        #expect(protected.status == 200)
        #expect(protected.headers["location"] == nil)
        #expect(protected.text.contains("Authentication Error"))
        #expect(protected.text.contains("data-status=\"13\""))
        _ = try await client.control("/control/users/erin@example.com/flags", ["webAccessOff": true])
        let off = try await Self.submit(client, appleID: "erin@example.com")
        #expect(off.text.contains("iCloud Data Web Access is Off"))
        #expect(try await client.control("/control/stats").json["signIns"] == 0)
        _ = try await client.control("/control/users/dave@example.com/flags", ["advancedDataProtection": false])
        #expect(try await Self.submit(client, appleID: "dave@example.com").status == 302)
    }

    @Test func keepMeSignedInLastsLonger() async throws {
        let client = try EmulatorClient(EmulatorConfiguration(callbackURL: "http://127.0.0.1:9/cb"))
        func token(_ reply: EmulatorClient.Reply) throws -> String {
            let location = try #require(reply.headers["location"])
            return try #require(FormDecoding.pairs(String(location.split(separator: "?")[1]))?.first?.value)
        }
        let short = try token(try await Self.submit(client, appleID: "frank@example.com"))
        let long = try token(try await Self.submit(client, appleID: "grace@example.com", keepSignedIn: true))
        _ = try await client.control("/control/clock", ["advanceSeconds": 3600])
        #expect(try await client.database("zones/list", token: short).status == 421)
        #expect(try await client.database("zones/list", token: long).status == 200)
    }

    @Test func withoutACallbackTheTokenIsShown() async throws {
        let client = try EmulatorClient()
        let reply = try await Self.submit(client, appleID: "heidi@example.com")
        #expect(reply.status == 200)
        #expect(reply.text.contains("id=\"ckWebAuthToken\""))
        // A callback set after start (the demo learns its port late) takes effect.
        client.emulator.setCallbackURL("http://127.0.0.1:9/late")
        #expect(
            try await Self.submit(client, appleID: "heidi@example.com").headers["location"]?.hasPrefix(
                "http://127.0.0.1:9/late?") == true)
        _ = try await client.control("/control/callback", ["url": "http://127.0.0.1:9/other"])
        _ = try await client.control("/control/reset", [:])
        #expect(
            try await Self.submit(client, appleID: "ivan@example.com").headers["location"]?.hasPrefix(
                "http://127.0.0.1:9/other?") == true)
    }
}
