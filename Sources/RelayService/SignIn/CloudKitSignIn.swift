import RelayCloudKit
import RelayOAuth

/// The CloudKit half of the Apple sign-in bridge: the sign-in URL from a 421, and `users/caller`
/// with the token Apple's callback brought.
struct CloudKitSignIn: AppleSignIn {
    let client: CloudKitClient

    func signInURL() async throws -> String {
        try await client.signInURL()
    }

    func identify(webAuthToken: String) async throws -> AppleIdentity {
        let result: Result<CloudKitResponse<CloudKitUser>, CloudKitError>
        do {
            result = .success(try await client.caller(token: CloudKitWebAuthToken(webAuthToken)))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let response):
            return AppleIdentity(
                userRecordName: response.value.userRecordName, rotatedToken: response.rotatedToken?.rawValue)
        case .failure(let error):
            switch error.kind {
            case .accountUnsupported, .accessDenied:
                throw OAuthError(.accountUnsupported, "This Apple account cannot be used through the web.")
            case .sessionDead, .authenticationFailed, .badRequest:
                throw OAuthError(.signInFailed, "Apple did not accept the sign-in.")
            default:
                throw error
            }
        }
    }
}
