import COpenSSL

/// SHA-256 through OpenSSL's EVP interface (deriving stable user record names).
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

/// Random bytes from OpenSSL's DRBG: one user-space call per token instead of a `getrandom`
/// system call per eight bytes, which dominated the emulator's profile under load.
enum RandomBytes {
    static func make(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        }
        return bytes
    }
}
