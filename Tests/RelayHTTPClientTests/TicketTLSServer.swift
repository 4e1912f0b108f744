import COpenSSL
import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS 1.3 HTTP/1.1 server of its own (blocking OpenSSL on a thread of its own, no ALPN) that
/// sends a fresh session ticket (SSL_new_session_ticket(3)) `ticketDelay` after each response,
/// while the client's connection sits idle: a record with no plaintext arriving on an idle
/// connection. It answers every request with its body (or `ok`) and counts the connections.
final class TicketTLSServer: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Counter()
    private let ticketsSent = Counter()

    /// Connections accepted so far, and tickets sent after a response.
    var connections: Int { accepted.load() }
    var lateTickets: Int { ticketsSent.load() }

    /// `certificate` and `key`: PEM files (a `TLSServer`'s).
    init(certificate: String, key: String, ticketDelay: Duration = .milliseconds(100)) throws {
        let (listening, port) = try loopbackListener(backlog: 16)
        listener = listening
        self.port = port
        let context = SSL_CTX_new(TLS_server_method())!
        guard SSL_CTX_use_certificate_file(context, certificate, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
        else { throw CocoaError(.fileReadUnknown) }
        let (listener, accepted, ticketsSent) = (listener, accepted, ticketsSent)
        let delay = useconds_t(
            ticketDelay.components.seconds * 1_000_000 + ticketDelay.components.attoseconds / 1_000_000_000_000)
        let contextAddress = UInt(bitPattern: context)
        Thread {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { break }
                accepted.increment()
                Thread {
                    Self.serve(
                        fd, context: OpaquePointer(bitPattern: contextAddress)!, delay: delay, ticketsSent: ticketsSent)
                }.start()
            }
        }.start()
    }

    deinit { shutdown(listener, Int32(SHUT_RDWR)) }

    private static func serve(_ fd: Int32, context: OpaquePointer, delay: useconds_t, ticketsSent: Counter) {
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let ssl = SSL_new(context) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { return }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            // One request: the head, then Content-Length bytes of body.
            var body: [UInt8]?
            while body == nil {
                if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self).lowercased()
                    let length =
                        head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if pending.count >= end.upperBound + length {
                        body = Array(pending[end.upperBound..<(end.upperBound + length)])
                        pending.removeFirst(end.upperBound + length)
                        break
                    }
                }
                let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[..<Int(count)])
            }
            let answer = body!.isEmpty ? Array("ok".utf8) : body!
            let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(answer.count)\r\n\r\n".utf8) + answer
            guard response.withUnsafeBytes({ SSL_write(ssl, $0.baseAddress, Int32($0.count)) }) > 0 else { return }
            usleep(delay)
            if SSL_new_session_ticket(ssl) == 1 && SSL_do_handshake(ssl) == 1 {
                ticketsSent.increment()
            }
        }
    }
}
