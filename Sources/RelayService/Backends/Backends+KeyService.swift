import Foundation
import RelayAWS
import RelayHTTP
import RelayVault

extension Backends {
    /// Opens the key service; KMS signs with `awsCredentials`, or with a chain of its own when nil.
    static func openKeyService(
        _ configuration: Configuration, http: HTTPClient, awsCredentials: (any AWSCredentialsProvider)? = nil
    ) throws(Failure) -> any KeyService {
        switch configuration.keyService {
        case .local(let keyFile):
            do {
                return try LocalKeyService(keyFile: keyFile)
            } catch {
                let missing = !FileManager.default.fileExists(atPath: keyFile)
                throw Failure(description: "RELAY_LOCAL_KEY_FILE: \(error)\(missing ? "; \(createSecrets)" : "")")
            }
        case .awsKMS(let keyID, let region, let endpoint):
            do {
                let aws = try awsConfiguration(
                    configuration, region: region, endpoint: endpoint, credentials: awsCredentials, http: http)
                return try KMSKeyService(keyID: keyID, configuration: aws, httpClient: http)
            } catch let error as Failure {
                throw Failure(description: "RELAY_KEY_SERVICE=aws-kms: \(error)")
            } catch {
                throw Failure(description: "RELAY_KMS_KEY_ID: \(error)")
            }
        }
    }
}
