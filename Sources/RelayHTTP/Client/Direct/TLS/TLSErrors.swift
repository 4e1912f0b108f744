import COpenSSL

/// OpenSSL's thread-local error queue turned into `ClientError.tls`, then emptied, so one
/// connection's errors never surface in another's (ERR_get_error(3), ERR_error_string_n(3),
/// ERR_clear_error(3)). The text is OpenSSL's reason (never data from the peer or the request).
enum TLSErrors {
    /// The first queued error, or `doing` alone when the queue is empty; clears the queue.
    static func failure(_ doing: String) -> ClientError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return .tls("\(doing) failed") }
        return .tls("\(doing): \(reason(code))")
    }

    /// A failed `SSL_*` call: a certificate that did not verify says why (X509_verify_cert_error_string(3));
    /// otherwise the queued error. Clears the queue.
    static func failure(ssl: OpaquePointer, result: Int32) -> ClientError {
        let kind = SSL_get_error(ssl, result)
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            ERR_clear_error()
            return .tls("certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))")
        }
        let code = ERR_get_error()
        ERR_clear_error()
        if code != 0 { return .tls(reason(code)) }
        return .tls(kind == SSL_ERROR_SYSCALL ? "the TLS layer failed with no reason given" : "TLS error \(kind)")
    }

    private static func reason(_ code: UInt) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            ERR_error_string_n(code, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
