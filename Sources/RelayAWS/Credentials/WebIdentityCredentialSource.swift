import Foundation
import RelayHTTP

/// Role credentials for a web identity token (EKS IAM roles for service accounts): STS
/// `AssumeRoleWithWebIdentity` with the token read from `AWS_WEB_IDENTITY_TOKEN_FILE` on every
/// fetch (Kubernetes rotates the projected token in place) and the role in `AWS_ROLE_ARN`.
///
/// The call is unsigned: the token is the proof of identity. It is a POST of the query protocol
/// (`Action=AssumeRoleWithWebIdentity&Version=2011-06-15&…`) to the regional STS endpoint, or to
/// `AWS_ENDPOINT_URL_STS`, and the answer is XML. Errors name the STS error code, never the token
/// or the answer's message text.
struct WebIdentityCredentialSource: AWSCredentialSource {
    let tokenFile: String
    let roleARN: String
    let sessionName: String
    let endpoint: AWSEndpoint
    let http: HTTPClient
    var kind: AWSCredentialSourceKind { .webIdentity }

    /// STS error codes worth another attempt at once; the rest wait for the provider's backoff.
    static let retryableCodes: Set<String> = [
        "IDPCommunicationError", "Throttling", "ThrottlingException", "RequestLimitExceeded", "ServiceUnavailable",
        "InternalFailure",
    ]

    func fetch() async throws(AWSError) -> AWSCredentials {
        let token = try readToken()
        let form = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleARN),
            ("RoleSessionName", sessionName), ("WebIdentityToken", token),
        ]
        let body = form.map { "\(SigV4Encoding.uriEncode($0.0))=\(SigV4Encoding.uriEncode($0.1))" }
            .joined(separator: "&")
        let request = ClientRequest(
            method: .post, url: endpoint.base + "/",
            headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8", "Accept": "text/xml"],
            body: Array(body.utf8), connectTimeout: .seconds(2), timeout: .seconds(5))
        var attempt = 0
        while true {
            attempt += 1
            let response = try await CredentialHTTP.send(http, request, origin: "STS at \(endpoint.base)")
            if response.status == 200 { return try Self.credentials(response.body) }
            let code = Self.errorCode(response.body) ?? "HTTP \(response.status)"
            if attempt < 3, Self.retryableCodes.contains(code) || response.status >= 500 {
                do {
                    try await Task.sleep(for: .milliseconds(200 * attempt))
                } catch {
                    throw .credentials("cancelled")
                }
                continue
            }
            throw .credentials(
                "STS refused AssumeRoleWithWebIdentity for \(roleARN): \(code) (HTTP \(response.status)); "
                    + "check the role's trust policy and the token in AWS_WEB_IDENTITY_TOKEN_FILE")
        }
    }

    private func readToken() throws(AWSError) -> String {
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            throw .credentials("AWS_WEB_IDENTITY_TOKEN_FILE: cannot read \(tokenFile)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw .credentials("AWS_WEB_IDENTITY_TOKEN_FILE: \(tokenFile) is empty") }
        return token
    }

    /// The credentials of an `AssumeRoleWithWebIdentityResponse`.
    static func credentials(_ body: [UInt8]) throws(AWSError) -> AWSCredentials {
        let root: XMLTree
        do {
            root = try XMLTree.parse(body)
        } catch {
            throw .credentials("STS answered with malformed XML (\(error.reason))")
        }
        guard root.name == "AssumeRoleWithWebIdentityResponse",
            let credentials = root.find(["AssumeRoleWithWebIdentityResult", "Credentials"]),
            let id = credentials["AccessKeyId"]?.text, let secret = credentials["SecretAccessKey"]?.text,
            let token = credentials["SessionToken"]?.text, !token.isEmpty,
            let expirationText = credentials["Expiration"]?.text
        else {
            throw .credentials("STS answered without the credentials of AssumeRoleWithWebIdentity")
        }
        guard let expiration = ISO8601Time.epochSeconds(expirationText.trimmingCharacters(in: .whitespaces)) else {
            throw .credentials("STS answered with an Expiration that is not a timestamp")
        }
        do {
            return try AWSCredentials(
                accessKeyID: id.trimmingCharacters(in: .whitespaces),
                secretAccessKey: secret.trimmingCharacters(in: .whitespaces),
                sessionToken: token.trimmingCharacters(in: .whitespaces), expiration: expiration)
        } catch {
            throw .credentials("STS answered with unusable credentials")
        }
    }

    /// The `Code` of an STS `ErrorResponse`, made safe to log.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard let root = try? XMLTree.parse(body), root.name == "ErrorResponse",
            let code = root.find(["Error", "Code"])?.text
        else { return nil }
        return AWSText.safe(code)
    }
}
