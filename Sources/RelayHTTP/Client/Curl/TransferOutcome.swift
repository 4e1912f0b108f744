import CCurl

/// Turns a finished transfer and libcurl's result code into the client's answer.
enum TransferOutcome {
    static func result(of transfer: Transfer, code: CURLcode) -> Result<ClientResponse, ClientError> {
        // A refused address fails the exchange only if no allowed address answered instead.
        if transfer.refusedAddress, code != CURLE_OK { return .failure(.addressRefused) }
        if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.responseTooLarge(limit: transfer.maxBytes))
        }
        guard code == CURLE_OK else { return .failure(error(for: code, message: transfer.errorMessage)) }
        let response = ClientResponse(
            status: transfer.easy.info(CURLINFO_RESPONSE_CODE),
            headers: transfer.headers,
            body: transfer.body,
            httpVersion: version(transfer.easy.info(CURLINFO_HTTP_VERSION)),
            connectionsOpened: transfer.easy.info(CURLINFO_NUM_CONNECTS)
        )
        return .success(response)
    }

    private static func error(for code: CURLcode, message: String) -> ClientError {
        let text = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(text)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE:
            return .tls(text)
        // The scheme is checked before libcurl sees a request, so CURLE_UNSUPPORTED_PROTOCOL here is
        // the server's answer (HTTP/0.9, a status line libcurl does not take): a transport failure.
        case CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT:
            return .invalidRequest(text)
        default:
            return .transport(text)
        }
    }

    private static func version(_ value: Int) -> String {
        switch value {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: "1.1"
        }
    }
}
