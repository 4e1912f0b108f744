/// Where and how the client talks to CloudKit Web Services.
package struct CloudKitConfiguration: Sendable {
    /// `https://api.apple-cloudkit.com`, or the emulator's base URL. No trailing slash needed.
    package var baseURL: String
    /// The container ID, e.g. `iCloud.jp.lightning.mustdo`.
    package var container: String
    /// `development` or `production`.
    package var environment: CloudKitEnvironment
    /// The API token for this container and environment.
    package var apiToken: CloudKitAPIToken
    /// The database that holds the records (always `private` for the relay).
    package var database: CloudKitDatabase
    /// The custom zone that holds the records.
    package var zoneName: String
    /// Time allowed to connect (TLS included).
    package var connectTimeout: Duration
    /// Time allowed for one attempt of one call.
    package var timeout: Duration
    /// Largest response accepted.
    package var maxResponseBytes: Int
    /// Retries for reads.
    package var retry: CloudKitRetryPolicy
    /// How long a call the caller stopped waiting for at `timeout` keeps listening in the
    /// background for CloudKit's answer (`LateAnswer`): a hung CloudKit may still carry the call out
    /// and rotate the token, and with Apple's strict rotation the late answer names the only live
    /// token. Zero: the transfer ends at `timeout`, as before.
    package var lateAnswerWait: Duration

    /// A configuration; the defaults are Apple's service, the private database, zone `MustDo`,
    /// connect 5 s, total 15 s.
    package init(
        baseURL: String = "https://api.apple-cloudkit.com",
        container: String,
        environment: CloudKitEnvironment = .production,
        apiToken: CloudKitAPIToken,
        database: CloudKitDatabase = .private,
        zoneName: String = "MustDo",
        connectTimeout: Duration = .seconds(5),
        timeout: Duration = .seconds(15),
        maxResponseBytes: Int = 8 << 20,
        retry: CloudKitRetryPolicy = CloudKitRetryPolicy(),
        lateAnswerWait: Duration = .zero
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.container = container
        self.environment = environment
        self.apiToken = apiToken
        self.database = database
        self.zoneName = zoneName
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.retry = retry
        self.lateAnswerWait = lateAnswerWait
    }
}

/// A CloudKit environment (lowercase on the wire).
package enum CloudKitEnvironment: String, Sendable {
    /// The development environment (schema changes allowed).
    case development
    /// The production environment (only deployed schema).
    case production
}

/// A CloudKit database.
package enum CloudKitDatabase: String, Sendable {
    /// The app's public database (`users/caller` lives here).
    case `public`
    /// The signed-in user's private database (the to-dos).
    case `private`
    /// Zones other users shared with the signed-in user.
    case shared
}

/// Bounded retries with jitter. Only reads are retried (query, lookup, zone list, changes,
/// users/caller); writes are not idempotent and fail at once.
package struct CloudKitRetryPolicy: Sendable {
    /// Attempts in all, the first included (1 turns retries off).
    package var maxAttempts: Int
    /// Pause before the first retry when the server gives no `retryAfter`; doubles each time.
    package var baseDelay: Duration
    /// Longest pause between attempts.
    package var maxDelay: Duration
    /// A `retryAfter` longer than this is not waited for: the error goes to the caller.
    package var maxRetryAfter: Duration

    /// A policy; defaults: 3 attempts, 200 ms doubling, at most 2 s, honour `retryAfter` up to 3 s.
    package init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maxDelay: Duration = .seconds(2),
        maxRetryAfter: Duration = .seconds(3)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The pause before attempt `attempt + 1` (`attempt` counts from 1), or nil to give up.
    package func delay(after attempt: Int, retryAfter: Duration?) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter {
            guard retryAfter <= maxRetryAfter else { return nil }
            // Never earlier than asked; a little later, so many callers do not return together.
            return retryAfter + baseDelay * Double.random(in: 0...0.5)
        }
        let exponential = baseDelay * (1 << min(attempt - 1, 20))
        return min(maxDelay, exponential) * Double.random(in: 0.5...1.0)
    }
}
