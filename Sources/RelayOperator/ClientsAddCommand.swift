import Foundation
import RelayCrypto
import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl clients add`: a pre-registered client (issue 41).
extension ClientsCommands {
    static let add = AdminCommand(
        "clients", "add",
        arguments:
            "--redirect-uri URI [--redirect-uri URI…] [--name NAME] [--confidential [--method client_secret_post|client_secret_basic]]",
        summary: "Pre-register a client with its redirect URIs; a confidential one gets a secret, shown once.",
        details: """
            For AI clients that only accept a pasted client ID (and secret) instead of registering
            themselves: the Gemini app, Copilot Studio's manual mode, ChatGPT's user-defined OAuth
            client. Each redirect URI must be safe (https, loopback http, or a private-use scheme;
            never javascript:, data:, file:, plain http off loopback, fragments or userinfo) and is
            matched exactly. A public client authenticates with `none` (PKCE only). A confidential
            one gets a secret printed once; only its HMAC under a key derived from the user-ID key
            is stored, so it keeps working through any number of pepper rotations. The client never
            expires and the consent page shows it as verified, under its name and return host.

            Example:
              mustdo-relayctl clients add --name "Gemini" --confidential \\
                --redirect-uri https://oauth-redirect.googleusercontent.com/r/my-project
            """
    ) { parser, context in
        var redirects: [String] = []
        while let uri = try parser.value(for: "--redirect-uri") { redirects.append(uri) }
        let name = try parser.value(for: "--name")
        let confidential = parser.flag("--confidential")
        let method = try parser.value(for: "--method") ?? (confidential ? "client_secret_basic" : "none")
        try parser.finish()
        guard !redirects.isEmpty else { throw AdminContext.Failure("give at least one --redirect-uri") }
        guard confidential == (method != "none") else {
            throw AdminContext.Failure("--method client_secret_post or client_secret_basic needs --confidential")
        }
        let configuration = try context.loadConfiguration()
        let userIDKey = try Backends.readUserIDKey(configuration)
        try await context.withAdmin { admin in
            let added: OAuthAdmin.AddedClient
            do {
                added = try await admin.addClient(
                    name: name, redirectURIs: redirects, method: method,
                    userIDKey: userIDKey, now: Int(Date().timeIntervalSince1970))
            } catch let error as OAuthError {
                throw AdminContext.Failure("\(error.code.rawValue): \(error.detail ?? "refused")")
            }
            var value: JSONObject = [
                "client_id": .string(added.id), "token_endpoint_auth_method": .string(method),
                "redirect_uris": .array(redirects.map { .string($0) }),
            ]
            value["client_secret"] = added.secret.map { .string($0) } ?? .null
            context.output(
                .object(value),
                text: """
                    client_id     \(added.id)
                    auth method   \(method)
                    \(added.secret.map { "client_secret \($0)\n(shown once: only its hash is kept)" } ?? "public client: no secret (PKCE)")
                    """)
        }
        return 0
    }
}
