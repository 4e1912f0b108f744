/// Bytes from OpenSSL's CSPRNG (seeded by the kernel's getrandom).
package enum SecureRandom {
    /// `count` random bytes. A CSPRNG failure is unrecoverable for a server that mints keys and
    /// tokens, so it stops the process rather than hand out predictable bytes.
    package static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        return LibCrypto.randomBytes(count: count)
    }
}
