import Foundation
import RelayHTTP
import Testing

@testable import RelayOAuth

/// `/token` form parsing and client credential presentation (RFC 6749 §2.3, §3.2, §5.2).
struct TokenRequestTests {
    func form(_ pairs: [(String, String)]) -> FormParameters {
        FormParameters(pairs.map { (name: $0.0, value: $0.1) })
    }

    func basic(_ id: String, _ secret: String) -> HTTPHeaders {
        let raw = "\(FormDecoding.encode(id)):\(FormDecoding.encode(secret))"
        return ["authorization": "Basic " + Data(raw.utf8).base64EncodedString()]
    }

    @Test func grantTypes() throws {
        let code = try TokenRequest.parse(
            form([("grant_type", "authorization_code"), ("code", "C"), ("code_verifier", "V"), ("resource", "R")])
        ).get()
        #expect(code == .authorizationCode(code: "C", redirectURI: nil, verifier: "V", resource: "R"))
        let refresh = try TokenRequest.parse(form([("grant_type", "refresh_token"), ("refresh_token", "T")])).get()
        #expect(refresh == .refreshToken(token: "T", scope: nil, resource: nil))
    }

    @Test func refusals() {
        func code(_ pairs: [(String, String)]) -> OAuthError.Code? {
            if case .failure(let error) = TokenRequest.parse(form(pairs)) { return error.code }
            return nil
        }
        #expect(code([]) == .invalidRequest)
        #expect(code([("grant_type", "password")]) == .unsupportedGrantType)
        #expect(code([("grant_type", "client_credentials")]) == .unsupportedGrantType)
        #expect(code([("grant_type", "implicit")]) == .unsupportedGrantType)
        #expect(code([("grant_type", "authorization_code")]) == .invalidRequest)
        #expect(code([("grant_type", "refresh_token")]) == .invalidRequest)
        #expect(code([("grant_type", "authorization_code"), ("code", "a"), ("code", "b")]) == .invalidRequest)
        #expect(
            code([("grant_type", "refresh_token"), ("grant_type", "refresh_token"), ("refresh_token", "t")])
                == .invalidRequest)
    }

    @Test func credentialsFromTheForm() throws {
        let none = try PresentedCredentials.parse(headers: [:], form: form([("client_id", "c")])).get()
        #expect(none == PresentedCredentials(clientID: "c", secret: nil, method: .none))
        let post = try PresentedCredentials.parse(
            headers: [:], form: form([("client_id", "c"), ("client_secret", "s")])
        ).get()
        #expect(post == PresentedCredentials(clientID: "c", secret: "s", method: .post))
        guard case .failure(let missing) = PresentedCredentials.parse(headers: [:], form: form([])) else {
            Issue.record("a request without client_id must fail")
            return
        }
        #expect(missing.code == .invalidClient)
        #expect(missing.status.code == 401)
        #expect(missing.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
    }

    @Test func basicCredentialsDecodeFormEncoding() throws {
        let parsed = try PresentedCredentials.parse(headers: basic("id:with&stuff", "s3cr+t/=%"), form: form([])).get()
        #expect(parsed == PresentedCredentials(clientID: "id:with&stuff", secret: "s3cr+t/=%", method: .basic))
        let lower = try PresentedCredentials.parse(
            headers: ["authorization": "basic " + Data("c:s".utf8).base64EncodedString()], form: form([])
        ).get()
        #expect(lower.method == .basic)
        // The same client_id in the form is fine.
        #expect(throws: Never.self) {
            try PresentedCredentials.parse(headers: basic("c", "s"), form: form([("client_id", "c")])).get()
        }
    }

    @Test(arguments: [
        "Basic !!!notbase64", "Basic " + Data("nocolon".utf8).base64EncodedString(),
        "Basic " + Data("bad%zz:s".utf8).base64EncodedString(), "Basic " + Data(":secret".utf8).base64EncodedString(),
        "Basic " + Data([0xFF, 0x3A, 0x61]).base64EncodedString(),
    ])
    func malformedBasicIsInvalidClient(header: String) {
        guard case .failure(let error) = PresentedCredentials.parse(headers: ["authorization": header], form: form([]))
        else {
            Issue.record("\(header) must be refused")
            return
        }
        #expect(error.code == .invalidClient)
        #expect(error.headers["WWW-Authenticate"] != nil)
    }

    @Test func basicConflictsAreRefused() {
        if case .failure(let error) = PresentedCredentials.parse(
            headers: basic("c", "s"), form: form([("client_id", "d")]))
        {
            #expect(error.code == .invalidClient)
        } else {
            Issue.record("a different form client_id must be refused")
        }
        if case .failure(let error) = PresentedCredentials.parse(
            headers: basic("c", "s"), form: form([("client_secret", "s")]))
        {
            #expect(error.code == .invalidRequest)
        } else {
            Issue.record("two methods at once must be refused")
        }
    }
}
