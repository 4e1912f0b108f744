import Foundation
import RelayHTTP

/// Task or pod role credentials from the container credentials endpoint: ECS sets
/// `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (a path on `http://169.254.170.2`); EKS Pod Identity
/// sets `AWS_CONTAINER_CREDENTIALS_FULL_URI` (`http://169.254.170.23/v1/credentials`) and
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`, whose content goes in the `Authorization` field and is
/// read again on every fetch (the agent rotates it). `AWS_CONTAINER_AUTHORIZATION_TOKEN` gives the
/// value itself instead.
///
/// A full URI must be https, or http to a host that cannot be somewhere else on the network: a
/// loopback address, `localhost`, or the ECS and EKS agents' link-local addresses, as botocore's
/// `ContainerMetadataFetcher` allows. Otherwise a variable set by mistake could send the token to
/// any host over plain http.
struct ContainerCredentialSource: AWSCredentialSource, CustomStringConvertible, CustomReflectable {
    let url: String
    let tokenFile: String?
    let token: String?
    let http: HTTPClient
    var kind: AWSCredentialSourceKind { .container }
    /// The token (`AWS_CONTAINER_AUTHORIZATION_TOKEN`) is a secret: never shown.
    var description: String { "ContainerCredentialSource(\(url), token redacted)" }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The ECS agent's address, the base of a relative URI.
    static let ecsHost = "169.254.170.2"
    /// Hosts a plain-http full URI may name besides loopback addresses.
    static let allowedHTTPHosts: Set<String> = ["169.254.170.2", "169.254.170.23", "fd00:ec2::23", "localhost"]

    /// A source for the relative URI on `host` (the ECS agent; tests pass a loopback address).
    static func relative(
        _ path: String, host: String = ecsHost, tokenFile: String?, token: String?, http: HTTPClient
    ) throws(AWSError) -> ContainerCredentialSource {
        guard path.hasPrefix("/"), !path.contains(" "), !path.contains("#") else {
            throw .configuration("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI must be a path starting with /")
        }
        return ContainerCredentialSource(url: "http://\(host)\(path)", tokenFile: tokenFile, token: token, http: http)
    }

    /// A source for a full URI, refused unless its host is allowed (see the type's notes).
    static func full(
        _ url: String, tokenFile: String?, token: String?, http: HTTPClient
    ) throws(AWSError) -> ContainerCredentialSource {
        guard let host = host(of: url) else {
            throw .configuration("AWS_CONTAINER_CREDENTIALS_FULL_URI must be an http:// or https:// URL")
        }
        if url.lowercased().hasPrefix("http://") {
            let loopback = IPAddress(host)?.isLoopback ?? false
            guard loopback || allowedHTTPHosts.contains(host) else {
                throw .configuration(
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI: plain http is allowed only to a loopback address, localhost, "
                        + "169.254.170.2, 169.254.170.23 or fd00:ec2::23; use https for any other host")
            }
        }
        return ContainerCredentialSource(url: url, tokenFile: tokenFile, token: token, http: http)
    }

    /// The host of an http(s) URL, lowercased, without brackets or port; nil when malformed.
    static func host(of url: String) -> String? {
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("https://") ? "https://" : lowered.hasPrefix("http://") ? "http://" : nil
        guard let scheme, !url.contains(" ") else { return nil }
        let authority = lowered.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty, parts.count == 1 || parts[1].allSatisfy(\.isNumber) else {
            return nil
        }
        return String(parts[0])
    }

    func fetch() async throws(AWSError) -> AWSCredentials {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if let authorization = try authorization() { headers.add("Authorization", authorization) }
        let request = ClientRequest(
            url: url, headers: headers, connectTimeout: .seconds(1), timeout: .seconds(2))
        let origin = "the container credentials endpoint"
        let response = try await CredentialHTTP.send(http, request, attempts: 3, origin: origin)
        guard response.status == 200 else {
            throw .credentials(
                "\(origin) answered HTTP \(response.status); check the task role (ECS) or the pod identity association (EKS)"
            )
        }
        return try CredentialDocument.parse(response.body, origin: origin)
    }

    /// The `Authorization` value: the token file's content (read now), else the token variable.
    private func authorization() throws(AWSError) -> String? {
        var value = token
        if let tokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                throw .credentials("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: cannot read \(tokenFile)")
            }
            value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let value, !value.isEmpty else { return nil }
        guard !value.contains("\r"), !value.contains("\n") else {
            throw .credentials("the container authorization token is not a valid header value")
        }
        return value
    }
}
