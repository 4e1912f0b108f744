import RelayEmulator
import RelayHTTP
import RelayJSON
import Testing

/// The envelope: URL form, authentication, error bodies and headers (reference §1, §2, §5, §7).
@Suite struct EmulatorProtocolTests {
    @Test func noTokenGets421WithTheDocumentedBody() async throws {
        let client = try EmulatorClient()
        let reply = try await client.database("users/caller", token: nil, database: "public")
        #expect(reply.status == 421)
        #expect(reply.json["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(reply.json["reason"] == "request needs authorization")
        #expect(reply.json["uuid"]?.stringValue?.count == 36)
        #expect(
            reply.json["redirectURL"]?.stringValue?.hasPrefix(client.base + "/IDMSWebAuth/auth?oauth_token=") == true)
        #expect(reply.headers["content-type"] == "application/json; charset=UTF-8")
        #expect(reply.headers["x-apple-cloudkit-version"] == "1.0")
        #expect(reply.headers["x-apple-request-uuid"] != nil)
        #expect(reply.headers["x-apple-cloudkit-web-auth-token"] == nil)
        let privateCall = try await client.database("zones/list", token: nil)
        #expect(privateCall.status == 421)
    }

    @Test func wrongAPITokenIsAuthenticationFailed() async throws {
        let client = try EmulatorClient()
        let reply = try await client.database("zones/list", token: try client.signIn(), apiToken: "nope")
        #expect(reply.status == 401)
        #expect(reply.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
    }

    @Test func usersCallerLivesOnThePublicDatabase() async throws {
        let client = try EmulatorClient()
        let token = try client.signIn("alice@example.com")
        let reply = try await client.database("users/caller", token: token, database: "public")
        #expect(reply.status == 200)
        let user = try #require(reply.json["users"]?.arrayValue?.first)
        let name = try #require(user["userRecordName"]?.stringValue)
        #expect(name == Emulator.userRecordName(appleID: "alice@example.com"))
        #expect(name.count == 33 && name.hasPrefix("_"))
        #expect(name.dropFirst().allSatisfy { "0123456789abcdef".contains($0) })
        #expect(Emulator.userRecordName(appleID: " Alice@Example.com ") == name)
        #expect(Emulator.userRecordName(appleID: "bob@example.com") != name)
        let rotated = try #require(reply.headers["x-apple-cloudkit-web-auth-token"])
        let wrongDatabase = try await client.database("users/caller", token: rotated, database: "private")
        #expect(wrongDatabase.status == 400)
        #expect(wrongDatabase.json["serverErrorCode"] == "BAD_REQUEST")
    }

    @Test func rawPlusInATokenIsReadAsASpace() async throws {
        let client = try EmulatorClient()
        let token = try client.signIn()
        let url = "\(client.base)/database/1/iCloud.test/production/private/zones/list?ckAPIToken=emulator-api-token"
        let raw = try await client.send(ClientRequest(url: url + "&ckWebAuthToken=" + token))
        #expect(raw.status == 421)
        let legacy = try await client.send(ClientRequest(url: url + "&ckSession=" + FormDecoding.encode(token)))
        #expect(legacy.status == 200)
    }

    @Test func unknownOperationsMethodsAndBodies() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        #expect(try await session.call("records/explode", [:]).status == 404)
        #expect(try await session.call("records/query").status == 400)
        let notJSON = try await client.send(
            ClientRequest(
                method: .post,
                url:
                    "\(client.base)/database/1/iCloud.test/production/private/records/query?ckAPIToken=emulator-api-token"
                    + "&ckWebAuthToken=" + FormDecoding.encode(session.token),
                body: Array("{nope".utf8)))
        #expect(notJSON.status == 400)
        #expect(notJSON.json["reason"]?.stringValue?.hasPrefix("BadRequestException") == true)
    }

    @Test func invalidatedAndKeptTokens() async throws {
        let client = try EmulatorClient()
        let token = try client.signIn()
        let first = try await client.database("zones/list", token: token)
        #expect(first.status == 200)
        let next = try #require(first.headers["x-apple-cloudkit-web-auth-token"])
        #expect(next != token && next.contains("+") && next.contains("/") && next.contains("="))
        #expect(try await client.database("zones/list", token: token).status == 421)
        _ = try await client.control("/control/settings", ["rotation": "keep"])
        let kept = try await client.database("zones/list", token: next)
        #expect(kept.status == 200)
        #expect(try await client.database("zones/list", token: next).status == 200)
    }

    @Test func injectedFaultShapes() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        _ = try await client.control(
            "/control/faults", ["status": 429, "serverErrorCode": "THROTTLED", "retryAfter": 110207])
        let throttled = try await session.call("zones/list")
        #expect(throttled.status == 429)
        #expect(throttled.json["serverErrorCode"] == "THROTTLED")
        #expect(throttled.json["retryAfter"] == 110207)
        #expect(throttled.json["error_code"] == "THROTTLED")
        #expect(throttled.headers["x-apple-cloudkit-web-auth-token"] == nil)

        _ = try await client.control(
            "/control/faults", ["status": 503, "body": "html", "operations": ["records/query"]])
        #expect(try await session.call("zones/list").status == 200)
        let html = try await session.call(
            "records/query", ["query": ["recordType": "Todo"], "zoneID": ["zoneName": "MustDo"]])
        #expect(html.status == 503)
        #expect(html.json == .null)
        #expect(html.text.contains("<html>"))

        _ = try await client.control("/control/faults", ["status": 503, "count": 2])
        #expect(try await session.call("zones/list").json["serverErrorCode"] == "TRY_AGAIN_LATER")
        #expect(try await session.call("zones/list").status == 503)
        #expect(try await session.call("zones/list").status == 200)
        let stats = try await client.control("/control/stats")
        #expect(stats.json["faultsServed"] == 4)
        #expect(stats.json["pendingFaults"] == 0)
    }
}
