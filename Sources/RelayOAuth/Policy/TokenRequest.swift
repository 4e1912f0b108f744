import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON

/// A `/token` request, parsed but not yet checked against anything stored.
enum TokenRequest: Sendable, Equatable {
    case authorizationCode(code: String, redirectURI: String?, verifier: String?, resource: String?)
    case refreshToken(token: String, scope: String?, resource: String?)

    /// Parses a form body: every parameter at most once (RFC 6749 §3.2), a known grant type, and
    /// the parameters that grant requires.
    static func parse(_ form: FormParameters) -> Result<TokenRequest, OAuthError> {
        if !form.repeatedNames.isEmpty {
            return .failure(OAuthError(.invalidRequest, "A parameter was sent more than once."))
        }
        guard let grantType = form["grant_type"] else {
            return .failure(OAuthError(.invalidRequest, "grant_type is required."))
        }
        switch grantType {
        case "authorization_code":
            guard let code = form["code"], !code.isEmpty else {
                return .failure(OAuthError(.invalidRequest, "code is required."))
            }
            return .success(
                .authorizationCode(
                    code: code, redirectURI: form["redirect_uri"], verifier: form["code_verifier"],
                    resource: form["resource"]))
        case "refresh_token":
            guard let token = form["refresh_token"], !token.isEmpty else {
                return .failure(OAuthError(.invalidRequest, "refresh_token is required."))
            }
            return .success(.refreshToken(token: token, scope: form["scope"], resource: form["resource"]))
        default:
            return .failure(OAuthError(.unsupportedGrantType, "Only authorization_code and refresh_token."))
        }
    }
}

/// How a `/token` or `/revoke` request identified its client (RFC 6749 §2.3).
struct PresentedCredentials: Sendable, Equatable {
    /// The method the request used.
    enum Method: Sendable, Equatable {
        /// `client_id` in the body, no secret.
        case none
        /// `client_id` and `client_secret` in the body.
        case post
        /// HTTP Basic.
        case basic
    }

    var clientID: String
    var secret: String?
    var method: Method

    /// The challenge every `invalid_client` answer carries (a 401 needs one, RFC 9110 §11.6.1).
    static let challenge = "Basic realm=\"MustDo Relay\", charset=\"UTF-8\""

    /// `invalid_client` with the Basic challenge.
    static func invalidClient(_ detail: String) -> OAuthError {
        OAuthError(.invalidClient, detail, headers: ["WWW-Authenticate": challenge])
    }

    /// Reads the credentials from an `Authorization: Basic` header or the form. Malformed Basic
    /// credentials, a Basic client ID that differs from the form's, and two methods at once are
    /// refused.
    static func parse(headers: HTTPHeaders, form: FormParameters) -> Result<PresentedCredentials, OAuthError> {
        if form.values("client_id").count > 1 || form.values("client_secret").count > 1 {
            return .failure(OAuthError(.invalidRequest, "A parameter was sent more than once."))
        }
        if let authorization = headers["authorization"], let basic = basicCredentials(authorization) {
            guard let (clientID, secret) = basic else {
                return .failure(invalidClient("The Basic credentials are malformed."))
            }
            if form["client_secret"] != nil {
                return .failure(OAuthError(.invalidRequest, "Use one client authentication method per request."))
            }
            if let formID = form["client_id"], formID != clientID {
                return .failure(invalidClient("The client_id does not match the Basic credentials."))
            }
            return .success(PresentedCredentials(clientID: clientID, secret: secret, method: .basic))
        }
        guard let clientID = form["client_id"] ?? assertedClientID(form), !clientID.isEmpty else {
            return .failure(invalidClient("client_id is required."))
        }
        if let secret = form["client_secret"] {
            return .success(PresentedCredentials(clientID: clientID, secret: secret, method: .post))
        }
        return .success(PresentedCredentials(clientID: clientID, secret: nil, method: .none))
    }

    /// The client a JWT client assertion names when the request has no `client_id`: RFC 7523
    /// §3 makes `client_id` optional beside an assertion, whose `iss` and `sub` must both be the
    /// client ID (ChatGPT's metadata document prefers `private_key_jwt`). The relay treats
    /// document clients as public (`none`) and does not verify the signature, exactly as when
    /// the same request also names `client_id`: the assertion only says which client is asking.
    /// nil unless it is a jwt-bearer assertion whose payload names one client.
    static func assertedClientID(_ form: FormParameters) -> String? {
        guard form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            let assertion = form["client_assertion"], form.values("client_assertion").count == 1
        else { return nil }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= 8192, let payload = Base64URL.decode(String(parts[1])),
            let claims = (try? JSONValue(parsing: payload))?.objectValue,
            let issuer = claims.string("iss"), let subject = claims.string("sub"), issuer == subject
        else { return nil }
        return issuer
    }

    /// nil when the header is not Basic; `.some(nil)` when it is Basic but malformed.
    private static func basicCredentials(_ header: String) -> (String, String)?? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        let encoded = parts[1].trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else { return .some(nil) }
        // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
        guard let clientID = FormDecoding.decode(decoded[..<colon].utf8),
            let secret = FormDecoding.decode(decoded[decoded.index(after: colon)...].utf8), !clientID.isEmpty
        else { return .some(nil) }
        return .some((clientID, secret))
    }
}
