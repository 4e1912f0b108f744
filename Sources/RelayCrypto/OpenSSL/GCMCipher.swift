import COpenSSL

/// One AES-256-GCM operation over an `EVP_CIPHER_CTX`, which this class owns and frees.
final class GCMCipher {
    private let context: OpaquePointer

    init() throws(CryptoError) {
        _ = LibCrypto.initialized
        guard let context = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
            EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1
        else { throw .library("EVP_EncryptInit_ex") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw .library("EVP_EncryptUpdate(aad)")
            }
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &ciphertext, &length, plaintext, Int32(plaintext.count)) == 1 else {
                throw .library("EVP_EncryptUpdate")
            }
            written = Int(length)
        }
        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard finished == 1 else { throw .library("EVP_EncryptFinal_ex") }
        written += Int(length)
        var tag = [UInt8](repeating: 0, count: AES256GCM.tagByteCount)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), &tag) == 1 else {
            throw .library("EVP_CTRL_GCM_GET_TAG")
        }
        return (Array(ciphertext.prefix(written)), tag)
    }

    func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
            EVP_DecryptInit_ex(context, nil, nil, key, nonce) == 1
        else { throw .library("EVP_DecryptInit_ex") }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw .authenticationFailed
            }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written = 0
        if !ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &plaintext, &length, ciphertext, Int32(ciphertext.count)) == 1 else {
                throw .authenticationFailed
            }
            written = Int(length)
        }
        var expectedTag = tag
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &expectedTag) == 1 else {
            throw .library("EVP_CTRL_GCM_SET_TAG")
        }
        // DecryptFinal is where GCM checks the tag; anything but 1 means the box is not authentic.
        let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard verified == 1 else {
            for index in plaintext.indices { plaintext[index] = 0 }
            throw .authenticationFailed
        }
        written += Int(length)
        return Array(plaintext.prefix(written))
    }
}
