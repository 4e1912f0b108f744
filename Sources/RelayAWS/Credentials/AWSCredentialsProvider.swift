/// Where a request's signing credentials come from at the moment it is signed: fixed keys, or
/// temporary role credentials that are renewed before they expire (`RefreshingCredentialsProvider`).
package protocol AWSCredentialsProvider: Sendable {
    /// Credentials to sign one request with now. Never expired ones: temporary credentials are
    /// handed out only while at least a minute of their life remains.
    func credentials() async throws(AWSError) -> AWSCredentials
}

/// Fixed credentials, used as given: long-term keys, or temporary ones that someone else renews
/// (and a restart picks up).
package struct StaticCredentialsProvider: AWSCredentialsProvider, CustomStringConvertible {
    /// The credentials every request is signed with.
    package let value: AWSCredentials

    /// A provider of `credentials`.
    package init(_ credentials: AWSCredentials) { value = credentials }

    package func credentials() async throws(AWSError) -> AWSCredentials { value }

    package var description: String { "StaticCredentialsProvider(\(value))" }
}

/// The kinds of credential source, in the order the chain tries them; the raw value is what logs
/// and metrics show.
package enum AWSCredentialSourceKind: String, Sendable, CaseIterable {
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    case environment
    /// STS `AssumeRoleWithWebIdentity` with the token in `AWS_WEB_IDENTITY_TOKEN_FILE` (EKS IRSA).
    case webIdentity = "web-identity"
    /// Keys of a profile in the shared credentials or config file.
    case profile
    /// The ECS task role or EKS Pod Identity endpoint (`AWS_CONTAINER_CREDENTIALS_*`).
    case container
    /// The EC2 instance profile, through the instance metadata service (IMDSv2).
    case instanceMetadata = "instance-metadata"
    /// Credentials given in code (tests, tools).
    case code
}

/// One place that hands out temporary credentials with an expiration; the refreshing provider
/// calls `fetch` whenever it needs new ones.
protocol AWSCredentialSource: Sendable {
    var kind: AWSCredentialSourceKind { get }
    /// Fresh credentials from the source, with their expiration when it has one.
    func fetch() async throws(AWSError) -> AWSCredentials
}
