import Foundation
import RelayEmulator
import RelayHTTP
import RelayJSON
import Testing

extension EndToEndSuite {
    /// `mustdo-relayctl cloudkit check` against the strict emulator, once as it should pass and once per seeded
    /// failure: a wrong API token, a wrong container, a missing index, a missing field, a missing zone, a dead token,
    /// a callback on the wrong host, CloudKit out of reach. Each failure exits 1 and says what to fix.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlCloudKitCheckTests {
        static let issuer = "http://127.0.0.1:8181"
        static let callback = issuer + "/oauth/apple/callback"

        /// A service directory whose settings point at `emulator` (container iCloud.test.mustdo, API token
        /// test-api-token), and a helper that runs the check there.
        struct Setup {
            let emulator: Emulator
            let service: ServiceDirectory
            let tokenFile: String

            func check(_ extra: [String] = [], json: Bool = true) async throws -> Relayctl.Result {
                try await Relayctl.run(
                    ["cloudkit", "check"] + extra + (json ? ["--json"] : []) + ["--config", service.configFile])
            }

            /// Signs a test account in and writes its token (or `contents`) to the token file.
            func signIn(_ appleID: String = "tester@example.com", contents: ((String) -> String)? = nil) throws {
                let token = try emulator.createSession(appleID: appleID).webAuthToken
                try (contents?(token) ?? token).write(toFile: tokenFile, atomically: true, encoding: .utf8)
            }

            func finish() {
                emulator.shutdown()
                service.remove()
            }
        }

        func setup(
            apiToken: String = "test-api-token", container: String = "iCloud.test.mustdo",
            schema: ContainerSchema = .relay, zone: Bool = true, baseURL: String? = nil
        ) async throws -> Setup {
            let emulator = try Emulator(
                configuration: EmulatorConfiguration(
                    apiToken: apiToken, container: container, callbackURL: Self.callback, createsZoneAtSignIn: zone,
                    schema: schema))
            try emulator.start()
            let service = try await ServiceDirectory(extra: [
                "RELAY_ISSUER": Self.issuer, "RELAY_CLOUDKIT_BASE_URL": baseURL ?? emulator.baseURL,
                "RELAY_CLOUDKIT_ENVIRONMENT": "production", "RELAY_CLOUDKIT_CONNECT_TIMEOUT": "2",
            ])
            return Setup(emulator: emulator, service: service, tokenFile: service.path + "/ck-token")
        }

        /// The checks of a `--json` run by name: (status, detail, fix).
        func checks(_ result: Relayctl.Result) -> [String: (String, String, String)] {
            var byName: [String: (String, String, String)] = [:]
            for check in result.json?["checks"]?.arrayValue ?? [] {
                byName[check["name"]?.stringValue ?? ""] = (
                    check["status"]?.stringValue ?? "", check["detail"]?.stringValue ?? "",
                    check["fix"]?.stringValue ?? ""
                )
            }
            return byName
        }

        @Test func testAHealthyContainerPassesEveryCheckAndLeavesNothingBehind() async throws {
            let setup = try await setup()
            defer { setup.finish() }
            // Settings only: the sign-in check passes, the rest wait for a token.
            let bare = try await setup.check()
            #expect(bare.status == 0, "\(bare.description)")
            let first = checks(bare)
            #expect(first["sign-in"]?.0 == "ok", "\(bare.description)")
            #expect(first["sign-in"]?.1.contains(Self.callback) == true, "shows where people must come back")
            let signInURL = try #require(bare.json?["checks"]?.arrayValue?.first?["signInURL"]?.stringValue)
            #expect(signInURL.hasPrefix(setup.emulator.baseURL + "/IDMSWebAuth/auth?oauth_token="), "\(signInURL)")
            #expect(first["zone"]?.0 == "skip")
            #expect(bare.json?["ok"] == true)

            try setup.signIn()
            let full = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(full.status == 0, "\(full.description)")
            for name in [
                "sign-in", "web auth token", "zone", "query Todo", "query Todo status", "query Occurrence",
                "fields Todo",
                "fields Occurrence",
            ] {
                #expect(checks(full)[name]?.0 == "ok", "\(name): \(full.description)")
            }
            #expect(checks(full)["fields Todo"]?.1.contains("repeatRule") == true)
            // The scratch records are gone, and the file holds the token CloudKit rotated to: a second run works.
            #expect(try setup.emulator.records(of: "tester@example.com").count == 0)
            let again = try await setup.check(["--web-auth-token-file", setup.tokenFile], json: false)
            #expect(again.status == 0, "\(again.description)")
            #expect(again.stdout.contains("  ok    query Todo: "), "\(again.stdout)")
            #expect(again.stdout.contains("8 ok, 0 failed, 0 skipped"), "\(again.stdout)")
            #expect(!again.stdout.contains(try String(contentsOfFile: setup.tokenFile, encoding: .utf8).trimmed))
        }

        @Test func testTheAddressApplesSignInLandedOnIsComparedWithTheRelaysCallback() async throws {
            let setup = try await setup()
            defer { setup.finish() }
            try setup.signIn { token in "\(Self.callback)?ckWebAuthToken=\(encode(token))&ckSession=\(encode(token))\n"
            }
            let right = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(right.status == 0, "\(right.description)")
            #expect(checks(right)["callback"]?.0 == "ok")
            try setup.signIn { token in "https://old-host.example/oauth/apple/callback?ckWebAuthToken=\(encode(token))"
            }
            let wrong = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(wrong.status == 1, "\(wrong.description)")
            #expect(checks(wrong)["callback"]?.0 == "fail")
            #expect(checks(wrong)["callback"]?.2.contains("Sign in Callback") == true, "\(wrong.description)")
        }

        @Test func testAWrongAPITokenFails() async throws {
            let setup = try await setup(apiToken: "another-api-token")
            defer { setup.finish() }
            let result = try await setup.check()
            #expect(result.status == 1, "\(result.description)")
            #expect(result.json?["ok"] == false)
            #expect(result.json?["error"]?.stringValue != nil)
            let signIn = try #require(checks(result)["sign-in"])
            #expect(signIn.0 == "fail")
            #expect(signIn.1.contains("HTTP 401 AUTHENTICATION_FAILED"), "\(signIn.1)")
            #expect(signIn.2.contains("RELAY_CLOUDKIT_API_TOKEN_FILE"), "\(signIn.2)")
            #expect(!result.stdout.contains("test-api-token"), "the API token is never printed")
        }

        @Test func testAWrongContainerFails() async throws {
            let setup = try await setup(container: "iCloud.other.app")
            defer { setup.finish() }
            try setup.signIn()
            let result = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(result.status == 1, "\(result.description)")
            let signIn = try #require(checks(result)["sign-in"])
            #expect(signIn.0 == "fail")
            #expect(signIn.2.contains("RELAY_CLOUDKIT_CONTAINER"), "\(signIn.2)")
            #expect(checks(result)["zone"]?.0 == "skip")
        }

        /// No container set: the check says so, instead of blaming the network for the empty URL segment.
        @Test func testAMissingContainerIsNamed() async throws {
            let emulator = try Emulator(
                configuration: EmulatorConfiguration(
                    apiToken: "test-api-token", container: "iCloud.test.mustdo", callbackURL: Self.callback))
            try emulator.start()
            defer { emulator.shutdown() }
            let service = try await ServiceDirectory(extra: [
                "RELAY_ISSUER": Self.issuer, "RELAY_CLOUDKIT_BASE_URL": emulator.baseURL,
                "RELAY_CLOUDKIT_CONTAINER": "",
            ])
            defer { service.remove() }
            let result = try await Relayctl.run(["cloudkit", "check", "--json", "--config", service.configFile])
            #expect(result.status == 1, "\(result.description)")
            let signIn = try #require(checks(result)["sign-in"], "\(result.description)")
            #expect(signIn.1 == "RELAY_CLOUDKIT_CONTAINER is not set")
            #expect(!signIn.2.contains("network"), "\(signIn.2)")
        }

        @Test func testAMissingIndexFailsTheQueryThatNeedsIt() async throws {
            let text = ContainerSchema.relayText
                .replacingOccurrences(
                    of: "\"___recordID\"   REFERENCE QUERYABLE,", with: "\"___recordID\"   REFERENCE,"
                )
                .replacingOccurrences(of: "todoId          STRING QUERYABLE,", with: "todoId          STRING,")
            let setup = try await setup(schema: try ContainerSchema(parsing: text))
            defer { setup.finish() }
            try setup.signIn()
            let result = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(result.status == 1, "\(result.description)")
            let todo = try #require(checks(result)["query Todo"])
            #expect(todo.0 == "fail")
            #expect(todo.1.contains("Field 'recordName' is not marked queryable"), "\(todo.1)")
            #expect(todo.2.contains("recordName QUERYABLE on Todo") && todo.2.contains("schema.ckdb"), "\(todo.2)")
            let occurrence = try #require(checks(result)["query Occurrence"])
            #expect(occurrence.0 == "fail")
            #expect(occurrence.1.contains("Field 'todoId' is not marked queryable"), "\(occurrence.1)")
            #expect(checks(result)["fields Todo"]?.0 == "ok", "the fields are there")
        }

        @Test func testAMissingFieldFailsTheScratchRecord() async throws {
            let text = ContainerSchema.relayText.replacingOccurrences(of: "        sound           STRING,\n", with: "")
            let schema = try ContainerSchema(parsing: text)
            #expect(schema.recordTypes["Todo"]?.fields["sound"] == nil)
            let setup = try await setup(schema: schema)
            defer { setup.finish() }
            try setup.signIn()
            let result = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(result.status == 1, "\(result.description)")
            let fields = try #require(checks(result)["fields Todo"])
            #expect(fields.0 == "fail")
            #expect(
                fields.1.contains("Cannot create or modify field 'sound' in record 'Todo' in production schema"),
                "\(fields.1)")
            #expect(fields.2.contains("Deploy Schema Changes"), "\(fields.2)")
            #expect(checks(result)["fields Occurrence"]?.0 == "ok")
            #expect(try setup.emulator.records(of: "tester@example.com").count == 0, "no scratch record stays")
        }

        @Test func testAMissingZoneFailsUnlessAskedToCreateIt() async throws {
            let setup = try await setup(zone: false)
            defer { setup.finish() }
            try setup.signIn()
            let missing = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(missing.status == 1, "\(missing.description)")
            let zone = try #require(checks(missing)["zone"])
            #expect(zone.0 == "fail")
            #expect(zone.1.contains("MustDo does not exist") && zone.1.contains("_defaultZone"), "\(zone.1)")
            #expect(zone.2.contains("RELAY_CLOUDKIT_ZONE") && zone.2.contains("--create-zone"), "\(zone.2)")
            #expect(checks(missing)["query Todo"]?.0 == "skip")
            let before = try await setup.emulator.userZones("tester@example.com")
            #expect(!before.contains("MustDo"), "a check without --create-zone creates nothing")

            let created = try await setup.check(["--web-auth-token-file", setup.tokenFile, "--create-zone"])
            #expect(created.status == 0, "\(created.description)")
            #expect(checks(created)["zone"]?.1.contains("created") == true)
            let user = try await setup.emulator.userZones("tester@example.com")
            #expect(user.contains("MustDo"), "\(user)")
        }

        @Test func testADeadTokenAndAnUnreachableCloudKitFail() async throws {
            let setup = try await setup()
            defer { setup.finish() }
            try setup.signIn()
            try setup.emulator.expireSessions()
            let dead = try await setup.check(["--web-auth-token-file", setup.tokenFile])
            #expect(dead.status == 1, "\(dead.description)")
            #expect(checks(dead)["web auth token"]?.0 == "fail")
            #expect(checks(dead)["web auth token"]?.2.contains("sign in again") == true)

            let nowhere = try await self.setup(baseURL: "http://127.0.0.1:9")
            defer { nowhere.finish() }
            let unreachable = try await nowhere.check()
            #expect(unreachable.status == 1, "\(unreachable.description)")
            #expect(
                checks(unreachable)["sign-in"]?.2.contains("cannot reach CloudKit") == true,
                "\(unreachable.description)")
            let usage = try await nowhere.check(["--web-auth-token-file"])
            #expect(usage.status == 2, "\(usage.description)")
        }
    }
}

private func encode(_ token: String) -> String {
    token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

extension Emulator {
    /// The zones of a user, through the control API's user view.
    fileprivate func userZones(_ appleID: String) async throws -> [String] {
        let http = try HTTPClient()
        defer { http.shutdown() }
        let response = try await http.send(
            ClientRequest(method: .get, url: baseURL + "/control/users/\(appleID)"))
        let json = try JSONValue(parsing: response.body)
        return json["zones"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
