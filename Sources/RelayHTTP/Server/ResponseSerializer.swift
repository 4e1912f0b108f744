/// Writes responses in HTTP/1.1 wire format.
enum ResponseSerializer {
    /// Appends the status line, headers, framing headers and (unless `omitBody`) the body.
    /// Header values holding CR or LF are dropped, so no handler can split a response.
    static func write(
        _ response: Response,
        into output: inout [UInt8],
        date: [UInt8],
        close: Bool,
        http10KeepAlive: Bool,
        omitBody: Bool
    ) {
        if response.status.code == 200 && response.status.reason == "OK" {
            output.append(contentsOf: statusOK)
        } else {
            output.append(contentsOf: "HTTP/1.1 ".utf8)
            output.append(contentsOf: String(response.status.code).utf8)
            output.append(ByteClass.space)
            output.append(contentsOf: response.status.reason.utf8)
            output.append(contentsOf: crlf)
        }
        for field in response.headers where isSafe(field.name) && isSafe(field.value) && !isFraming(field.name) {
            output.append(contentsOf: field.name.utf8)
            output.append(contentsOf: ": ".utf8)
            output.append(contentsOf: field.value.utf8)
            output.append(contentsOf: crlf)
        }
        if !response.status.forbidsBody {
            output.append(contentsOf: "Content-Length: ".utf8)
            output.append(contentsOf: String(response.body.count).utf8)
            output.append(contentsOf: crlf)
        }
        output.append(contentsOf: date)
        if close {
            output.append(contentsOf: "Connection: close\r\n".utf8)
        } else if http10KeepAlive {
            output.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        output.append(contentsOf: crlf)
        if !omitBody && !response.status.forbidsBody { output.append(contentsOf: response.body) }
    }

    /// A short plain-text error response that closes the connection.
    static func writeError(_ status: HTTPStatus, into output: inout [UInt8], date: [UInt8]) {
        let response = Response.text(status.reason + "\n", status: status)
        write(response, into: &output, date: date, close: true, http10KeepAlive: false, omitBody: false)
    }

    private static let statusOK = Array("HTTP/1.1 200 OK\r\n".utf8)
    static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let overloaded = Array(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n".utf8
    )
    private static let crlf: [UInt8] = [13, 10]

    /// The server writes these itself; a handler's copy would contradict the real framing.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: HTTPHeaders.equalsIgnoringCase(name, "connection")
        case 14: HTTPHeaders.equalsIgnoringCase(name, "content-length")
        case 17: HTTPHeaders.equalsIgnoringCase(name, "transfer-encoding")
        default: false
        }
    }

    private static func isSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }
}
