import COpenSSL

/// SHA-256 through OpenSSL's EVP interface (the emulator's only cryptography: deriving stable
/// user record names).
enum Digest {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        return output
    }
}
