import RelayJSON
import Testing

@testable import RelayOAuth

/// `POST /register` replaces what this server does not offer by what it does (RFC 7591 §3.2.1)
/// and says so in its response; the client then connects with what it got.
struct LenientRegistrationTests {
    /// VS Code's registration against a server whose metadata lists no grant types
    /// (microsoft/vscode `src/vs/base/common/oauth.ts`, `fetchDynamicRegistration`), with a scope
    /// that belongs to another server.
    static let vsCodeBody = """
        {"client_name":"Visual Studio Code","client_uri":"https://code.visualstudio.com",\
        "grant_types":["authorization_code","refresh_token","urn:ietf:params:oauth:grant-type:device_code"],\
        "response_types":["code"],"redirect_uris":["https://insiders.vscode.dev/redirect","https://vscode.dev/redirect",\
        "http://127.0.0.1/","http://127.0.0.1:33418/"],"scope":"todos:read mail.read",\
        "token_endpoint_auth_method":"none","application_type":"native"}
        """

    @Test func unofferedGrantTypesAndScopesAreReplacedAndTheClientConnects() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON("/register", Self.vsCodeBody)
            #expect(response.status == 201, "\(response.text)")
            let json = try JSONValue(parsing: response.body)
            #expect(json["grant_types"] == ["authorization_code", "refresh_token"])
            #expect(json["response_types"] == ["code"])
            #expect(json["scope"] == "todos:read")
            #expect(
                json["redirect_uris"]
                    == [
                        "https://insiders.vscode.dev/redirect", "https://vscode.dev/redirect", "http://127.0.0.1/",
                        "http://127.0.0.1:33418/",
                    ])
            let clientID = try #require(json["client_id"]?.stringValue)
            // VS Code in a remote window answers on vscode.dev: the flow completes there, and the
            // scope granted is the one registered, whatever the request asks for.
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(
                clientID: clientID, verifier: verifier, redirectURI: "https://vscode.dev/redirect")
            let tokens = try await h.exchange(
                code: code, verifier: verifier, clientID: clientID, redirectURI: "https://vscode.dev/redirect")
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(try JSONValue(parsing: tokens.body)["scope"] == "todos:read")
        }
    }

    @Test func withoutTheAuthorizationCodeGrantItIsStillRefused() async throws {
        try await withHarness { h in
            for body in [
                #"{"redirect_uris":["http://localhost/cb"],"grant_types":["client_credentials","refresh_token"]}"#,
                #"{"redirect_uris":["http://localhost/cb"],"response_types":["token"]}"#,
                #"{"redirect_uris":["http://localhost/cb"],"grant_types":"authorization_code"}"#,
            ] {
                let response = try await h.client.postJSON("/register", body)
                #expect(response.status == 400, "\(body)")
                #expect(try JSONValue(parsing: response.body)["error"] == "invalid_client_metadata", "\(body)")
            }
        }
    }
}
