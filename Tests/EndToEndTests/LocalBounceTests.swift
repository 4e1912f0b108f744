import Foundation
import RelayTestSupport
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// The local sign-in bounce on a real socket: off by default; on, it sends a browser to
    /// `http://localhost:<port>/mustdo/callback` and nowhere else, whatever the request tries; and nothing of
    /// the query string reaches the relay's log.
    @Suite(.timeLimit(.minutes(10))) struct LocalBounceTests {
        static let ports = [51234...51234, 52000...52002]

        /// One raw request (the target exactly as written, extra header lines allowed) and its status and
        /// Location.
        func send(_ port: Int, _ target: String, method: String = "GET", headers: [String] = ["Host: relay.example"])
            throws -> (status: Int, location: String?, head: String)
        {
            let connection = try LoopbackConnection(port: port)
            let head = ([method + " " + target + " HTTP/1.1"] + headers + ["Connection: close", "", ""]).joined(
                separator: "\r\n")
            try connection.send(Array(head.utf8))
            var response: [UInt8] = []
            while let chunk = try? connection.receive(), !chunk.isEmpty { response += chunk }
            let text = String(decoding: response, as: UTF8.self)
            let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
            let location = text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("location:") }
                .map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) }
            return (status, location, text.components(separatedBy: "\r\n\r\n").first ?? "")
        }

        @Test func testOffByDefault() async throws {
            let harness = try await RelayHarness()
            defer { harness.removeFiles() }
            let response = try send(harness.application.server.port, "/local/callback/51234?ckWebAuthToken=x")
            #expect(response.status == 404)
            #expect(response.location == nil)
            await harness.stop()
        }

        /// Targets the bounce must answer with exactly this Location.
        static let bounced: [(target: String, location: String)] = [
            ("/local/callback/51234", "http://localhost:51234/mustdo/callback"),
            ("/local/callback/51234?", "http://localhost:51234/mustdo/callback"),
            (
                "/local/callback/51234?ckWebAuthToken=ab%2Bc%2Fd%3D&ckSession=ab%2Bc%2Fd%3D",
                "http://localhost:51234/mustdo/callback?ckWebAuthToken=ab%2Bc%2Fd%3D&ckSession=ab%2Bc%2Fd%3D"
            ),
            // Apple does not always percent-encode the base64 token: + / = pass through untouched.
            (
                "/local/callback/52001?ckWebAuthToken=ab+c/d==",
                "http://localhost:52001/mustdo/callback?ckWebAuthToken=ab+c/d=="
            ),
            // A URL-looking query stays a query of the fixed localhost URL.
            (
                "/local/callback/52002?next=//evil.example/&u=http://evil.example@x",
                "http://localhost:52002/mustdo/callback?next=//evil.example/&u=http://evil.example@x"
            ),
        ]

        /// Targets that must get no redirect at all (404 for a path or port, 400 for a query or a request the
        /// parser refuses).
        static let refused: [(target: String, status: Int)] = [
            ("/local/callback/51235", 404),  // a port not allowed
            ("/local/callback/1999", 404),
            ("/local/callback/0", 404),
            ("/local/callback/051234", 404),  // leading zero
            ("/local/callback/99999", 404),
            ("/local/callback/65536", 404),
            ("/local/callback/-1", 404),
            ("/local/callback/+51234", 404),
            ("/local/callback/51234.0", 404),
            ("/local/callback/5e4", 404),
            ("/local/callback/%35%31%32%33%34", 404),  // encoded digits
            ("/local/callback/51234%00", 404),
            ("/local/callback/51234%2F%2Fevil.example", 404),
            ("/local/callback/51234/", 404),
            ("/local/callback/51234/evil.example", 404),
            ("/local/callback/51234@evil.example", 404),
            ("/local/callback/evil.example", 404),
            ("/local/callback/localhost:51234", 404),
            ("/local/callback/51234:80", 404),
            ("/local/callback//evil.example", 404),
            ("/local/callback/%2F%2Fevil.example", 404),
            ("/local/callback/51234\\evil.example", 404),  // a backslash some parsers read as a slash
            ("/local/callback/\\\\evil.example", 404),
            ("/local/callback/51234#@evil.example", 404),
            ("//local/callback/51234", 404),
            ("/local/callback/", 404),
            ("/LOCAL/callback/51234", 404),
            ("/local/callback/51234?a=b\\@evil.example", 400),
            ("/local/callback/51234?%0D%0ALocation:%20http://evil.example", 400),  // encoded CRLF
            ("/local/callback/51234?a=%0a", 400),
            ("/local/callback/51234?a=%00", 400),
            ("/local/callback/51234?a=%7f", 400),
            ("/local/callback/51234?a=%", 400),
            ("/local/callback/51234?a=%zz", 400),
            ("/local/callback/51234?a=\"x\"", 400),
            ("/local/callback/51234?a=<x>", 400),
            ("/local/callback/51234?a=`x`", 400),
            ("/local/callback/51234?a={x}", 400),
            ("/local/callback/51234?a=|x", 400),
            ("/local/callback/51234?a=^x", 400),
            ("/local/callback/51234?a=%E2%80%AE", 200),  // encoded non-ASCII is plain text in a query: allowed
        ]

        @Test func testOnlyLocalhostIsEverATarget() async throws {
            let harness = try await RelayHarness { $0.localBouncePorts = Self.ports }
            defer { harness.removeFiles() }
            let port = harness.application.server.port
            for (target, expected) in Self.bounced {
                let response = try send(port, target)
                #expect(response.status == 302, "\(target)")
                #expect(response.location == expected, "\(target)")
                let parsed = try #require(URLComponents(string: response.location ?? ""), "\(target)")
                #expect(parsed.scheme == "http", "\(target)")
                #expect(parsed.host == "localhost", "\(target)")
                #expect(parsed.path == "/mustdo/callback", "\(target)")
            }
            for (target, status) in Self.refused {
                let response = try send(port, target)
                if status == 200 {
                    // The one allowed oddity: still only localhost.
                    #expect(response.status == 302, "\(target)")
                    #expect(URLComponents(string: response.location ?? "")?.host == "localhost", "\(target)")
                    continue
                }
                #expect(response.status == status, "\(target)")
                #expect(response.location == nil, "\(target)")
            }
            // Bytes the HTTP parser refuses before the bounce sees them: a space, raw non-ASCII.
            for raw in ["/local/callback/51234?a=b c", "/local/callback/51234?a=\u{e9}"] {
                let response = try send(port, raw)
                #expect(response.status == 400, "\(raw.debugDescription)")
                #expect(response.location == nil, "\(raw.debugDescription)")
            }
            // A raw CRLF ends the request line: what follows is a request header, never part of the answer.
            // An absolute-form target naming another host changes nothing either.
            for raw in [
                "/local/callback/51234?a=b\r\nLocation: http://evil.example",
                "/local/callback/51234\r\nX: evil.example",
                "http://evil.example/local/callback/51234",
            ] {
                let response = try send(port, raw)
                #expect(!response.head.contains("evil.example"), "\(raw.debugDescription): \(response.head)")
                if let location = response.location {
                    #expect(location.hasPrefix("http://localhost:51234/mustdo/callback"), "\(raw.debugDescription)")
                }
            }
            // Nothing else in the request steers the target: not Host, not forwarded headers, not the method.
            let steered = try send(
                port, "/local/callback/51234?x=1",
                headers: ["Host: evil.example:9999", "X-Forwarded-Host: evil.example", "X-Forwarded-Proto: https"])
            #expect(steered.location == "http://localhost:51234/mustdo/callback?x=1")
            #expect(try send(port, "/local/callback/51234?x=1", method: "HEAD").location == steered.location)
            #expect(try send(port, "/local/callback/51234?x=1", method: "POST").status == 405)

            await harness.stop()
            // The request log has the route pattern, never the path's port, the query or its values.
            let log = try harness.logText()
            #expect(log.contains("/local/callback/:port"), "\(log)")
            for secret in ["ckWebAuthToken", "ab%2Bc", "ab+c", "evil.example", "next=", "%0D"] {
                #expect(!log.contains(secret), "\(secret) in the log:\n\(log)")
            }
        }

        @Test func testTheSettingIsChecked() throws {
            for bad in ["80", "51234-51000", "x", "1024-70000", "51234-", "-", "1023"] {
                // Refused for this setting, not for some other reason.
                let error = #expect(throws: (any Error).self, "\(bad)") {
                    try Configuration.load(from: ["RELAY_LOCAL_BOUNCE_PORTS": bad])
                }
                if let error {
                    #expect("\(error)".contains("RELAY_LOCAL_BOUNCE_PORTS"), "\(bad): \(error)")
                }
            }
            #expect(
                try Configuration.load(from: ["RELAY_LOCAL_BOUNCE_PORTS": "51234, 52000-52002"]).localBouncePorts
                    == Self.ports)
            #expect(try Configuration.load(from: [:]).localBouncePorts == [])
        }
    }
}
