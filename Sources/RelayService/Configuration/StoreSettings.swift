import RelayCloudKit

/// Which single-table store the relay uses (`RELAY_STORE`).
package enum StoreSettings: Sendable, Equatable {
    /// In memory: nothing survives a restart (tests, a throwaway demo).
    case memory
    /// A SQLite file (the default): `RELAY_SQLITE_PATH`, default `<data directory>/relay.sqlite`.
    case sqlite(path: String)
    /// DynamoDB, for several relay instances: `RELAY_DYNAMODB_TABLE`, region from `RELAY_AWS_REGION`
    /// (or `AWS_REGION`), `RELAY_DYNAMODB_ENDPOINT` to point at a local stand-in.
    case dynamoDB(table: String, region: String, endpoint: String?)
}

/// Which key service wraps the per-grant data keys (`RELAY_KEY_SERVICE`).
package enum KeyServiceSettings: Sendable, Equatable {
    /// A local master key file (`RELAY_LOCAL_KEY_FILE`, default `<secrets>/master-keys`), mode 0600.
    case local(keyFile: String)
    /// AWS KMS: `RELAY_KMS_KEY_ID` (ID, ARN or alias), `RELAY_KMS_ENDPOINT` for a stand-in.
    case awsKMS(keyID: String, region: String, endpoint: String?)
}

/// Where the secrets that never enter the store are read from. Each is a file, never a flag or
/// a variable's value, and must be readable by its owner only.
package struct SecretSettings: Sendable, Equatable {
    /// `RELAY_PEPPER_FILE`: token-hash peppers, `<version> <base64url key>` per line, newest last.
    package var pepperFile: String
    /// `RELAY_USER_ID_KEY_FILE`: the key of `userID = HMAC(key, userRecordName)`.
    package var userIDKeyFile: String
    /// `RELAY_BINDING_SECRET_FILE`: the salt of the token-binding keys.
    package var bindingSecretFile: String
    /// `RELAY_CLOUDKIT_API_TOKEN_FILE`: the CloudKit API token for the container and environment.
    package var cloudKitAPITokenFile: String

    /// The default file names inside `directory`.
    package init(directory: String) {
        pepperFile = directory + "/pepper"
        userIDKeyFile = directory + "/user-id-key"
        bindingSecretFile = directory + "/binding-secret"
        cloudKitAPITokenFile = directory + "/cloudkit-api-token"
    }
}

/// How the relay reaches CloudKit Web Services.
package struct CloudKitSettings: Sendable, Equatable {
    /// `RELAY_CLOUDKIT_BASE_URL`: Apple's service, or the emulator's origin.
    package var baseURL = "https://api.apple-cloudkit.com"
    /// `RELAY_CLOUDKIT_CONTAINER`, e.g. `iCloud.jp.lightning.mustdo`.
    package var container = ""
    /// `RELAY_CLOUDKIT_ENVIRONMENT`: `production` or `development`. Typed, so nothing downstream can
    /// read an unknown name as one of them (the setting refuses any other value).
    package var environment = CloudKitEnvironment.production
    /// `RELAY_CLOUDKIT_ZONE`: the custom zone holding the records.
    package var zone = "MustDo"
    /// `RELAY_CLOUDKIT_CA_FILE`: extra CA certificates (tests behind a private CA).
    package var caFile: String?
    /// `RELAY_CLOUDKIT_CONNECT_TIMEOUT`.
    package var connectTimeout: Duration = .seconds(5)
    /// `RELAY_CLOUDKIT_TIMEOUT`, for one call.
    package var timeout: Duration = .seconds(15)
    /// `RELAY_CLOUDKIT_SESSION_END_GRACE`: how long CloudKit must keep refusing a grant's stored
    /// token before the grant ends (30 s with DynamoDB, 0 with SQLite; `SessionEndGrace`).
    package var sessionEndGrace: Duration = .zero

    package init() {}
}
