import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayVault

/// The vault's `KeyService` on AWS KMS: `GenerateDataKey` (KeySpec `AES_256`) makes each grant's
/// data key and `Decrypt` unwraps it, both with the vault's encryption context (purpose, userId,
/// grantId, keyVersion), which KMS binds to the ciphertext and records in CloudTrail. The wrapped
/// key is KMS's `CiphertextBlob`, as is.
///
/// A wrong context, another key's blob or altered bytes fail as `authenticationFailed`, like the
/// local key service; a down, refusing or slow KMS fails as `keyServiceUnavailable` (or
/// `keyServiceThrottled`) within the configured timeouts.
package struct KMSKeyService: KeyService {
    /// The key that wraps data keys: a key ID, key ARN, alias name (`alias/mustdo-relay`) or alias ARN.
    package let keyID: String
    private let client: AWSJSONClient

    /// A key service on `keyID`. Fails only for a malformed configuration; nothing is sent until
    /// the first call.
    package init(keyID: String, configuration: AWSConfiguration, httpClient: HTTPClient) throws(AWSError) {
        guard !keyID.isEmpty, keyID.utf8.count <= 2048 else { throw .configuration("the KMS key ID must be set") }
        self.keyID = keyID
        self.client = try AWSJSONClient(
            service: "kms", http: httpClient, configuration: configuration,
            contentType: "application/x-amz-json-1.1", targetPrefix: "TrentService")
    }

    package func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey {
        let answer = try await call(
            "GenerateDataKey",
            ["KeyId": .string(keyID), "KeySpec": "AES_256", "EncryptionContext": Self.contextObject(context)])
        guard let plaintext = Self.bytes(answer["Plaintext"]), plaintext.count == AES256GCM.keyByteCount,
            let blob = Self.bytes(answer["CiphertextBlob"]), !blob.isEmpty
        else { throw .keyServiceUnavailable("KMS GenerateDataKey answered without a 32-byte key and its blob") }
        return DataKey(plaintext: SymmetricKey(bytes: plaintext), wrapped: WrappedKey(bytes: blob))
    }

    package func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey {
        guard !wrapped.bytes.isEmpty else { throw .malformed("empty wrapped key") }
        let answer = try await call(
            "Decrypt",
            [
                "KeyId": .string(keyID), "CiphertextBlob": .string(Data(wrapped.bytes).base64EncodedString()),
                "EncryptionContext": Self.contextObject(context),
            ])
        guard let plaintext = Self.bytes(answer["Plaintext"]), plaintext.count == AES256GCM.keyByteCount else {
            throw .authenticationFailed
        }
        return SymmetricKey(bytes: plaintext)
    }

    private func call(_ operation: String, _ body: JSONObject) async throws(VaultError) -> JSONValue {
        do {
            return try await client.call(operation, body)
        } catch {
            throw Self.vaultError(error)
        }
    }

    /// KMS error types as vault errors: anything that says "this blob does not open under this
    /// key and context" is `authenticationFailed`; the rest means the key service cannot help now.
    static func vaultError(_ error: AWSError) -> VaultError {
        switch error {
        case .service(let type, _)
        where ["InvalidCiphertextException", "IncorrectKeyException", "InvalidKeyUsageException"].contains(type):
            .authenticationFailed
        case .service(let type, let status): .keyServiceUnavailable("KMS refused the request: \(type) (HTTP \(status))")
        case .transactionCanceled: .keyServiceUnavailable("KMS answered as if to a DynamoDB transaction")
        case .throttled: .keyServiceThrottled
        case .unavailable(let reason): .keyServiceUnavailable("KMS: \(reason)")
        case .configuration(let reason): .keyServiceUnavailable("KMS configuration: \(reason)")
        case .credentials(let reason): .keyServiceUnavailable("KMS: no AWS credentials: \(reason)")
        }
    }

    private static func contextObject(_ context: EncryptionContext) -> JSONValue {
        .object(
            JSONObject(
                context.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map {
                    ($0.key, .string($0.value))
                }))
    }

    private static func bytes(_ value: JSONValue?) -> [UInt8]? {
        value?.stringValue.flatMap { Data(base64Encoded: $0) }.map { Array($0) }
    }
}
