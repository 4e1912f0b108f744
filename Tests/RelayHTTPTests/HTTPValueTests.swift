import Foundation
import RelayJSON
import Testing

@testable import RelayHTTP

@Suite struct HTTPValueTests {
    @Test func formDecodingHandlesPlusPercentAndRepeats() throws {
        let pairs = try #require(FormDecoding.pairs("a=1+2&b=%2Fx%3D&c&a=3&e%C3%A9=%E2%9C%93"))
        let parameters = FormParameters(pairs)
        #expect(parameters["a"] == "1 2")
        #expect(parameters["b"] == "/x=")
        #expect(parameters["c"] == "")
        #expect(parameters.values("a") == ["1 2", "3"])
        #expect(parameters["eé"] == "✓")
        #expect(parameters.repeatedNames == ["a"])
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%C3%28"])
    func formDecodingRefusesMalformedInput(input: String) {
        #expect(FormDecoding.pairs(input) == nil)
    }

    /// Field literals match byte for byte (or case-folded), whatever the string's storage.
    @Test func fieldLiteralsMatchExactBytes() {
        func raw(_ text: String) -> [UInt8] { Array(text.utf8) }
        let bridged = ("x-apple-cloudkit-" as NSString).appending("version")  // not a native Swift string
        for literal in ["x-apple-cloudkit-version", bridged, "", "é✓"] {
            raw(literal).withUnsafeBytes { #expect(FieldLiterals.same(literal, $0)) }
            raw(literal + "x").withUnsafeBytes { #expect(!FieldLiterals.same(literal, $0)) }
        }
        raw("x-apple-cloudkit-versioN").withUnsafeBytes { #expect(!FieldLiterals.same("x-apple-cloudkit-version", $0)) }
        let literals = ["x-apple-cloudkit-version", "x-apple-request-uuid"]
        raw("X-Apple-Request-UUID").withUnsafeBytes { bytes in
            #expect(FieldLiterals.match(bytes, in: literals, foldingCase: true) == "x-apple-request-uuid")
            #expect(FieldLiterals.match(bytes, in: literals) == nil)
        }
        raw("x-apple-request-uuix").withUnsafeBytes { #expect(FieldLiterals.match($0, in: literals) == nil) }
    }

    @Test func formEncodingRoundTrips() throws {
        let encoded = FormDecoding.encode([("redirect_uri", "https://a.example/cb?x=1&y=2"), ("state", "a b+c/=")])
        #expect(encoded == "redirect_uri=https%3A%2F%2Fa.example%2Fcb%3Fx%3D1%26y%3D2&state=a%20b%2Bc%2F%3D")
        let decoded = try #require(FormDecoding.pairs(encoded))
        #expect(decoded.map(\.value) == ["https://a.example/cb?x=1&y=2", "a b+c/="])
    }

    /// Every byte on its own and inside runs of unreserved ones, against RFC 3986 §2.3 written out
    /// here (not the code's own table); `kept` leaves one more byte alone.
    @Test func percentEncodingLeavesOnlyUnreservedBytes() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        func expected(_ bytes: [UInt8], kept: UInt8? = nil) -> String {
            bytes.map { unreserved.contains($0) || $0 == kept ? String(UnicodeScalar($0)) : "%" + hex($0) }.joined()
        }
        func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        for byte in UInt8.min...UInt8.max {
            let input: [UInt8] = Array("ab".utf8) + [byte] + Array("cd".utf8) + [byte]
            #expect(PercentEncoding.encode(bytes: input) == expected(input))
            #expect(PercentEncoding.isUnreserved(byte) == unreserved.contains(byte))
        }
        #expect(PercentEncoding.encode("/a b/é+=") == "%2Fa%20b%2F%C3%A9%2B%3D")
        #expect(PercentEncoding.encode("/a b/", keeping: UInt8(ascii: "/")) == "/a%20b/")
        var output = Array("x=".utf8)
        PercentEncoding.append("1/2", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == "x=1%2F2")
    }

    @Test func requestQueryAndFormBodyErrorsAreHTTPErrors() {
        let bad = Request(method: .get, target: "/x?a=%zz")
        #expect(throws: HTTPError.self) { try bad.query() }
        let wrongType = Request(
            method: .post, target: "/x", headers: ["content-type": "application/json"], body: Array("a=1".utf8))
        #expect(throws: HTTPError(.unsupportedMediaType, message: "Expected application/x-www-form-urlencoded.")) {
            try wrongType.formBody()
        }
        let form = Request(
            method: .post, target: "/x", headers: ["content-type": "application/x-www-form-urlencoded; charset=utf-8"],
            body: Array("a=1".utf8))
        #expect((try? form.formBody())?["a"] == "1")
    }

    @Test func cookiesParseAndDuplicatesAreRefused() {
        let request = Request(method: .get, target: "/", headers: ["cookie": "a=1; b=\"two\"; c=3", "Cookie": "c=4"])
        #expect(request.cookie("a") == "1")
        #expect(request.cookie("b") == "two")
        #expect(request.cookie("c") == nil)  // sent twice: ambiguous, so refused
        #expect(request.cookie("missing") == nil)
    }

    @Test func setCookieDefaultsAreTheSafeOnes() {
        #expect(
            Cookie(name: "__Host-r", value: "v").headerValue == "__Host-r=v; Path=/; Secure; HttpOnly; SameSite=Lax")
        let cleared = Cookie(name: "r", value: "", maxAge: 0, secure: false, sameSite: .strict)
        #expect(cleared.headerValue == "r=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
    }

    @Test func htmlEscaping() {
        #expect(
            HTML.escape(#"<script>alert("x")</script> & 'y'"#)
                == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
    }

    @Test func ipAddressesAndRanges() throws {
        let v4 = try #require(IPAddress("10.1.2.3"))
        #expect(v4.isIPv4 && !v4.isLoopback)
        #expect(v4.unredacted == "10.1.2.3")
        #expect(v4.description == "<address>")
        #expect("\(v4)" == "<address>")
        #expect(try #require(IPAddress("[::1]")).isLoopback)
        #expect(try #require(IPAddress("2001:db8::5")).unredacted == "2001:db8::5")
        #expect(IPAddress("300.1.1.1") == nil)
        #expect(IPAddress("example.com") == nil)
        let range = try #require(IPAddressRange("10.0.0.0/8"))
        #expect(range.contains(v4))
        #expect(!range.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(try #require(IPAddressRange("2001:db8::/32")).contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(IPAddressRange("10.0.0.0/33") == nil)
        #expect(try #require(IPAddressRange("127.0.0.1")).contains(try #require(IPAddress("127.0.0.1"))))
    }

    @Test func forwardedForSkipsOurOwnProxies() throws {
        let proxies = TrustedProxies([try #require(IPAddressRange("10.0.0.0/8"))])
        let origin = proxies.origin(
            peer: IPAddress("10.0.0.1"),
            headers: ["x-forwarded-for": "1.1.1.1, 203.0.113.5, 10.0.0.2", "x-forwarded-proto": "https", "host": "h"])
        #expect(origin.client?.unredacted == "203.0.113.5")
        #expect(origin.scheme == "https")
        let invalidHost = proxies.origin(
            peer: IPAddress("10.0.0.1"), headers: ["host": "h", "x-forwarded-host": "a b"])
        #expect(invalidHost.host == "h")
    }

    @Test func routerCapturesSegmentsAndMapsErrors() async throws {
        var router = Router()
        router.get("/items/:id/parts/:part") { request in
            .text("\(request.parameters["id"]!)/\(request.parameters["part"]!)")
        }
        router.get("/fail") { _ in throw HTTPError(.conflict, message: "nope") }
        struct Unexpected: Error {}
        router.get("/crash", immediate: { _ in throw Unexpected() })
        let captured = await router.respond(to: Request(method: .get, target: "/items/a%2Bb+c/parts/7?x"))
        #expect(String(decoding: captured.body, as: UTF8.self) == "a+b+c/7")
        let failed = await router.respond(to: Request(method: .get, target: "/fail"))
        #expect(failed.status == .conflict)
        #expect(try JSONValue(parsing: failed.body)["error"]?["message"] == "nope")
        let crashed = await router.respond(to: Request(method: .get, target: "/crash"))
        #expect(crashed.status == .internalServerError)
        #expect(String(decoding: crashed.body, as: UTF8.self) == "Internal Server Error")
        let missing = await router.respond(to: Request(method: .get, target: "/items/a/parts"))
        #expect(missing.status == .notFound)
    }

    @Test func responderMapResponseWrapsBothKinds() async {
        var router = Router()
        router.get("/now", immediate: { _ in .text("now") })
        router.get("/later") { _ in .text("later") }
        let responder = router.responder.mapResponse { _, response in
            var response = response
            response.headers.set("X-Wrapped", "1")
            return response
        }
        for path in ["/now", "/later", "/missing"] {
            let response = await responder.respond(to: Request(method: .get, target: path))
            #expect(response.headers["x-wrapped"] == "1")
        }
        if case .now = responder(Request(method: .get, target: "/now")) {
        } else {
            Issue.record("immediate route deferred")
        }
    }
}
