/// The container's API token. Its description is redacted so it cannot reach a log by accident.
package struct CloudKitAPIToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as CloudKit Console shows it.
    package let rawValue: String

    /// Wraps a token.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Always `<redacted>`.
    package var description: String { "<redacted>" }
}

/// A user's web auth token: the credential that opens their private database. Opaque, about 1 KB,
/// full of `+ / =`. Its description is redacted so it cannot reach a log by accident.
package struct CloudKitWebAuthToken: Sendable, Hashable, CustomStringConvertible {
    /// The token exactly as CloudKit issued it (not percent-encoded).
    package let rawValue: String

    /// Wraps a token.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Always `<redacted>`.
    package var description: String { "<redacted>" }
}

/// A call's value plus the token CloudKit rotated to, if it sent one. The caller must store
/// `rotatedToken` (sealed) before its next call for the same user: the old one may stop working.
package struct CloudKitResponse<Value: Sendable>: Sendable {
    /// What the call returned.
    package var value: Value
    /// The newest token from `X-Apple-CloudKit-Web-Auth-Token`, or nil when none came back.
    package var rotatedToken: CloudKitWebAuthToken?

    /// A response.
    package init(value: Value, rotatedToken: CloudKitWebAuthToken?) {
        self.value = value
        self.rotatedToken = rotatedToken
    }

    /// The token to use next: the rotated one, or `previous` when there was none.
    package func nextToken(after previous: CloudKitWebAuthToken) -> CloudKitWebAuthToken {
        rotatedToken ?? previous
    }
}
