import Foundation

/// An AWS access key, with a session token for temporary credentials. No description, debug
/// description or reflection shows the secret key or the token, so a credential that reaches a
/// log line by accident says only which key it was.
package struct AWSCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access key ID (`AKIA…` or `ASIA…`): an identifier, not a secret, but shown only in part.
    package let accessKeyID: String
    let secretAccessKey: String
    let sessionToken: String?
    /// When temporary credentials stop working, in seconds since the Unix epoch; nil for long-term
    /// keys and for temporary ones whose end is not known (given in the environment).
    package let expiration: Double?

    /// Credentials from their parts; `sessionToken` is set for temporary (STS) credentials, and
    /// `expiration` when their source says when they end.
    package init(
        accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Double? = nil
    ) throws(AWSError) {
        guard !accessKeyID.isEmpty, !secretAccessKey.isEmpty else {
            throw .configuration("the access key ID and the secret access key must not be empty")
        }
        guard accessKeyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .configuration("the access key ID must be printable ASCII")
        }
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.expiration = expiration
    }

    /// Credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, if set,
    /// `AWS_SESSION_TOKEN` (the variables every AWS SDK reads).
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AWSError) -> AWSCredentials {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw .configuration("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must both be set")
        }
        return try AWSCredentials(
            accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"])
    }

    /// Whether these are temporary credentials with a session token.
    package var hasSessionToken: Bool { sessionToken != nil }

    package var description: String {
        "AWSCredentials(\(accessKeyID.prefix(4))…, secret redacted\(hasSessionToken ? ", session token redacted" : ""))"
    }

    package var debugDescription: String { description }

    package var customMirror: Mirror { Mirror(self, children: ["redacted": description]) }
}
