import Foundation
import RelayHTTP
import RelayStore
import RelaySync

/// Finds the relay's AWS credentials the way the AWS SDKs do: the first source the environment
/// configures wins, in this order (botocore's `create_credential_resolver`, the AWS SDKs and Tools
/// Reference Guide, "Standardized credential providers"):
///
/// 1. **environment**: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`);
/// 2. **web identity**: `AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN` (+ `AWS_ROLE_SESSION_NAME`)
///    → STS `AssumeRoleWithWebIdentity` (EKS IAM roles for service accounts);
/// 3. **profile**: keys of `AWS_PROFILE` (default `default`) in `AWS_SHARED_CREDENTIALS_FILE`
///    (`~/.aws/credentials`) or `AWS_CONFIG_FILE` (`~/.aws/config`);
/// 4. **container**: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (ECS task role) or
///    `AWS_CONTAINER_CREDENTIALS_FULL_URI` (EKS Pod Identity), with
///    `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` or `AWS_CONTAINER_AUTHORIZATION_TOKEN`;
/// 5. **instance metadata** (EC2 instance profile, IMDSv2), unless `AWS_EC2_METADATA_DISABLED=true`;
///    `AWS_EC2_METADATA_SERVICE_ENDPOINT` or `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6` move it.
///
/// A source that is configured but wrong (a token file without a role, a plain-http container URI
/// to another host, a named profile that does not exist) is an error, not a reason to fall through
/// to the next one: the relay must not end up with different credentials than the operator meant.
/// Sources 2, 4 and 5 give temporary credentials, renewed ahead of expiry by a
/// `RefreshingCredentialsProvider`; 1 and 3 are used as given.
package enum AWSCredentialChain {
    /// What the chain needs besides the environment.
    package struct Options: Sendable {
        /// The region of STS's regional endpoint (`https://sts.<region>.amazonaws.com`) for web identity.
        package var region: String
        /// The home directory holding `.aws/credentials` and `.aws/config` (nil: no default files).
        package var homeDirectory: String?
        /// When temporary credentials are renewed.
        package var timing: AWSCredentialRefreshTiming
        /// The clock that decides expiry.
        package var clock: any WallClock
        /// Called with every refresh and failed refresh (for logs and metrics).
        package var onEvent: @Sendable (AWSCredentialEvent) -> Void
        /// The ECS agent's host for a relative URI (tests point it at a loopback address).
        var containerHost = ContainerCredentialSource.ecsHost

        /// Options for `region`; the home directory defaults to `$HOME` of this process.
        package init(
            region: String, homeDirectory: String? = ProcessInfo.processInfo.environment["HOME"],
            timing: AWSCredentialRefreshTiming = AWSCredentialRefreshTiming(), clock: any WallClock = SystemClock(),
            onEvent: @escaping @Sendable (AWSCredentialEvent) -> Void = { _ in }
        ) {
            self.region = region
            self.homeDirectory = homeDirectory
            self.timing = timing
            self.clock = clock
            self.onEvent = onEvent
        }
    }

    /// The provider of the first configured source in `environment` (the `AWS_*` variables), and
    /// which source that is. Nothing is fetched yet: the first AWS call fetches, and a failure
    /// then names the source and what to check. Throws only for a source configured wrongly, or
    /// when no source is possible at all.
    package static func resolve(
        environment: [String: String], http: HTTPClient, options: Options
    ) throws(AWSError) -> (source: AWSCredentialSourceKind, provider: any AWSCredentialsProvider) {
        let variables = environment.filter { !$0.value.isEmpty }
        func refreshing(_ source: any AWSCredentialSource) -> (AWSCredentialSourceKind, any AWSCredentialsProvider) {
            let provider = RefreshingCredentialsProvider(
                source: source, timing: options.timing, clock: options.clock, onEvent: options.onEvent)
            return (source.kind, provider)
        }

        if variables["AWS_ACCESS_KEY_ID"] != nil || variables["AWS_SECRET_ACCESS_KEY"] != nil {
            return (.environment, StaticCredentialsProvider(try AWSCredentials.fromEnvironment(variables)))
        }
        if let tokenFile = variables["AWS_WEB_IDENTITY_TOKEN_FILE"] {
            return refreshing(try webIdentity(tokenFile: tokenFile, variables, http: http, options: options))
        }
        if let keys = try profileKeys(variables, home: options.homeDirectory) {
            return (.profile, StaticCredentialsProvider(keys))
        }
        let tokenFile = variables["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"]
        let token = variables["AWS_CONTAINER_AUTHORIZATION_TOKEN"]
        if let path = variables["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] {
            return refreshing(
                try ContainerCredentialSource.relative(
                    path, host: options.containerHost, tokenFile: tokenFile, token: token, http: http))
        }
        if let url = variables["AWS_CONTAINER_CREDENTIALS_FULL_URI"] {
            return refreshing(try ContainerCredentialSource.full(url, tokenFile: tokenFile, token: token, http: http))
        }
        if variables["AWS_EC2_METADATA_DISABLED"]?.lowercased() == "true" {
            throw .credentials(
                "none configured: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_WEB_IDENTITY_TOKEN_FILE and "
                    + "AWS_ROLE_ARN, AWS_PROFILE, or AWS_CONTAINER_CREDENTIALS_*; the instance metadata service is "
                    + "turned off (AWS_EC2_METADATA_DISABLED)")
        }
        return refreshing(
            InstanceMetadataCredentialSource(
                endpoint: try metadataEndpoint(variables), http: http, clock: options.clock))
    }

    private static func webIdentity(
        tokenFile: String, _ variables: [String: String], http: HTTPClient, options: Options
    ) throws(AWSError) -> WebIdentityCredentialSource {
        guard let roleARN = variables["AWS_ROLE_ARN"] else {
            throw .configuration("AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not: name the role to assume")
        }
        guard roleARN.hasPrefix("arn:"), roleARN.utf8.count <= 2048, roleARN.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .configuration("AWS_ROLE_ARN must be a role ARN (arn:aws:iam::<account>:role/<name>)") }
        let sessionName = variables["AWS_ROLE_SESSION_NAME"] ?? "mustdo-relay-\(Int(options.clock.now()))"
        guard (2...64).contains(sessionName.utf8.count),
            sessionName.utf8.allSatisfy({ SigV4Encoding.isUnreserved($0) || "+=,.@".utf8.contains($0) })
        else {
            throw .configuration("AWS_ROLE_SESSION_NAME must be 2-64 letters, digits or + = , . @ _ -")
        }
        let endpoint: AWSEndpoint
        do throws(AWSError) {
            if let url = variables["AWS_ENDPOINT_URL_STS"] {
                endpoint = try AWSEndpoint(url)
            } else {
                endpoint = try AWSEndpoint.standard(service: "sts", region: options.region)
            }
        } catch {
            throw .configuration("AWS_ENDPOINT_URL_STS: \(error.reason)")
        }
        return WebIdentityCredentialSource(
            tokenFile: tokenFile, roleARN: roleARN, sessionName: sessionName, endpoint: endpoint, http: http)
    }

    /// The keys of the selected profile, nil when there is none to use (then the chain goes on).
    private static func profileKeys(_ variables: [String: String], home: String?) throws(AWSError) -> AWSCredentials? {
        let named = variables["AWS_PROFILE"]
        let profile = named ?? "default"
        let credentialsFile = variables["AWS_SHARED_CREDENTIALS_FILE"] ?? home.map { "\($0)/.aws/credentials" }
        let configFile = variables["AWS_CONFIG_FILE"] ?? home.map { "\($0)/.aws/config" }
        if let path = variables["AWS_SHARED_CREDENTIALS_FILE"], !FileManager.default.fileExists(atPath: path) {
            throw .configuration("AWS_SHARED_CREDENTIALS_FILE: \(path) does not exist")
        }
        let files = [credentialsFile, configFile].compactMap { $0 }.joined(separator: " or ")
        switch try SharedProfile.lookup(profile: profile, credentialsFile: credentialsFile, configFile: configFile) {
        case .keys(let id, let secret, let token, let file):
            do {
                return try AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
            } catch {
                throw .configuration("profile \(profile) in \(file): \(error.reason)")
            }
        case .notFound where named != nil:
            throw .configuration("AWS_PROFILE: no profile \(profile) in \(files.isEmpty ? "any file" : files)")
        case .withoutKeys(let setting) where named != nil:
            let uses = setting.map { " (it uses \($0), which the relay does not implement)" } ?? ""
            throw .configuration(
                "AWS_PROFILE: profile \(profile) has no aws_access_key_id and aws_secret_access_key\(uses); give it "
                    + "keys, or export credentials with `aws configure export-credentials --format env`")
        case .notFound, .withoutKeys:
            return nil
        }
    }

    private static func metadataEndpoint(_ variables: [String: String]) throws(AWSError) -> AWSEndpoint {
        if let url = variables["AWS_EC2_METADATA_SERVICE_ENDPOINT"] {
            do {
                return try AWSEndpoint(url)
            } catch {
                throw .configuration("AWS_EC2_METADATA_SERVICE_ENDPOINT: \(error.reason)")
            }
        }
        switch variables["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"]?.lowercased() ?? "ipv4" {
        case "ipv4": return try AWSEndpoint("http://169.254.169.254")
        case "ipv6": return try AWSEndpoint("http://[fd00:ec2::254]")
        default: throw .configuration("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE must be IPv4 or IPv6")
        }
    }
}
