import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// One AES-256-GCM operation on the calling thread's own `EVP_CIPHER_CTX`, into buffers the caller
/// sized. Callers check lengths: keys of 32 bytes, nonces of 12 (GCM's default IV length, so none
/// is set), tags of 16.
///
/// One context per thread, reused (docs/performance.md says what a context per call cost). This is
/// safe: an operation runs from init to final inside one synchronous call, so nothing
/// else can use the thread's context meanwhile, and it is re-initialised (key and IV) at the start
/// of every operation. After each operation it is re-keyed with zeros, so it keeps no grant key
/// between calls; it is freed when its thread exits.
enum GCMCipher {
    static func seal(
        _ plaintext: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>, nonce: UnsafeBufferPointer<UInt8>,
        aad: UnsafeBufferPointer<UInt8>, ciphertext: UnsafeMutablePointer<UInt8>, tag: UnsafeMutablePointer<UInt8>
    ) throws(CryptoError) {
        let context = try ThreadCipherContext.current()
        defer { ThreadCipherContext.scrub(context) }
        guard
            EVP_EncryptInit_ex2(context, FetchedAlgorithms.shared.aes256GCM, key.baseAddress, nonce.baseAddress, nil)
                == 1
        else { throw .library("EVP_EncryptInit_ex2") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count)) == 1 else {
                throw .library("EVP_EncryptUpdate(aad)")
            }
        }
        var written = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, ciphertext, &length, plaintext.baseAddress, Int32(plaintext.count)) == 1
            else { throw .library("EVP_EncryptUpdate") }
            written = Int(length)
        }
        // GCM is a stream mode: Final writes nothing, but it is where the tag is computed.
        guard EVP_EncryptFinal_ex(context, ciphertext + written, &length) == 1,
            written + Int(length) == plaintext.count
        else { throw .library("EVP_EncryptFinal_ex") }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(AES256GCM.tagByteCount), tag) == 1 else {
            throw .library("EVP_CTRL_GCM_GET_TAG")
        }
    }

    /// Decrypts into `plaintext` (`ciphertext.count` bytes); on any failure the output is zeroed
    /// and `.authenticationFailed` thrown.
    static func open(
        _ ciphertext: UnsafeBufferPointer<UInt8>, tag: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
        nonce: UnsafeBufferPointer<UInt8>, aad: UnsafeBufferPointer<UInt8>, plaintext: UnsafeMutablePointer<UInt8>
    ) throws(CryptoError) {
        let context = try ThreadCipherContext.current()
        defer { ThreadCipherContext.scrub(context) }
        guard
            EVP_DecryptInit_ex2(context, FetchedAlgorithms.shared.aes256GCM, key.baseAddress, nonce.baseAddress, nil)
                == 1
        else { throw .library("EVP_DecryptInit_ex2") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count)) == 1 else {
                throw .authenticationFailed
            }
        }
        var written = 0
        if !ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, plaintext, &length, ciphertext.baseAddress, Int32(ciphertext.count)) == 1
            else {
                plaintext.update(repeating: 0, count: ciphertext.count)
                throw .authenticationFailed
            }
            written = Int(length)
        }
        // SET_TAG only reads the tag (OpenSSL copies it into the context).
        guard
            EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: tag.baseAddress))
                == 1
        else {
            plaintext.update(repeating: 0, count: ciphertext.count)
            throw .library("EVP_CTRL_GCM_SET_TAG")
        }
        // DecryptFinal is where GCM checks the tag; anything but 1 means the box is not authentic.
        guard EVP_DecryptFinal_ex(context, plaintext + written, &length) == 1,
            written + Int(length) == ciphertext.count
        else {
            plaintext.update(repeating: 0, count: ciphertext.count)
            throw .authenticationFailed
        }
    }
}

/// The calling thread's `EVP_CIPHER_CTX` (a pthread key: Swift has no thread-local storage on Linux).
private enum ThreadCipherContext {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { context in
            if let context { EVP_CIPHER_CTX_free(OpaquePointer(context)) }
        }
        precondition(status == 0, "pthread_key_create failed")
        return key
    }()

    /// 32 zero bytes: the key a context holds between operations.
    private static let zeroKey = [UInt8](repeating: 0, count: AES256GCM.keyByteCount)

    static func current() throws(CryptoError) -> OpaquePointer {
        if let existing = pthread_getspecific(key) { return OpaquePointer(existing) }
        _ = LibCrypto.initialized
        guard let context = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        guard pthread_setspecific(key, UnsafeRawPointer(context)) == 0 else {
            EVP_CIPHER_CTX_free(context)
            throw .library("pthread_setspecific")
        }
        return context
    }

    /// Overwrites the context's key schedule with an all-zero key's (the context stays for the
    /// thread's next operation). A context that was never initialised has none.
    static func scrub(_ context: OpaquePointer) {
        guard EVP_CIPHER_CTX_get0_cipher(context) != nil else { return }
        _ = zeroKey.withUnsafeBufferPointer { EVP_CipherInit_ex2(context, nil, $0.baseAddress, nil, -1, nil) }
    }
}
