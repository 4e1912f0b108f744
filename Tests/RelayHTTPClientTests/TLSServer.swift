import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nginx serving HTTPS (HTTP/2 offered through ALPN, or with `http2: false` HTTP/1.1 only) on a
/// free loopback port, with a fresh self-signed certificate for `localhost` and 127.0.0.1. It
/// answers `ok`, or with `upstreamPort` proxies to a local server (kept-alive connections). Its
/// access log has one line per request: `connection-serial protocol session-reused status`.
final class TLSServer {
    let directory: URL
    let port: Int
    private let process: Subprocess

    var certificate: String { directory.appendingPathComponent("cert.pem").path }

    static let available =
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    /// The access log's lines so far.
    var log: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The access log once it has `lines` lines, waiting up to 5 s: nginx writes a request's line
    /// after its response went out, so a client may read the response before the line exists.
    @discardableResult
    func log(lines: Int) async -> [String] {
        for _ in 0..<500 where log.count < lines { try? await Task.sleep(for: .milliseconds(10)) }
        return log
    }

    /// nginx's error log so far.
    var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    }

    /// How many TCP connections the requests logged so far came over.
    var connectionsLogged: Int { Set(log.compactMap { $0.split(separator: " ").first }).count }

    /// Async: openssl and nginx start in child processes, and waiting for them must not hold a
    /// thread of the cooperative pool.
    /// `protocols`: nginx's `ssl_protocols`; `directives`: more of the `server` block
    /// (`http2_max_concurrent_streams 2;`, `keepalive_requests 10;`…). The error log is at `info`,
    /// so `errorLog` shows refused streams. `rsa`: an RSA key instead of P-256 (for RSA key exchange).
    init(
        http2: Bool = true, upstreamPort: Int? = nil, keepAliveTimeout: String = "75s",
        protocols: String = "TLSv1.2 TLSv1.3", directives: String = "", rsa: Bool = false
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await Self.makeCertificate(in: directory, rsa: rsa)
        port = try freePort()
        let path = directory.path
        let location =
            upstreamPort == nil
            ? #"location / { default_type text/plain; return 200 "ok"; }"#
            : #"location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }"#
        let configuration = """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log info;
            events { worker_connections 2048; }
            http {
                log_format probe '$connection $server_protocol $ssl_session_reused $status';
                access_log \(path)/access.log probe;
                keepalive_timeout \(keepAliveTimeout);
                client_body_temp_path \(path)/tmp;
                proxy_temp_path \(path)/tmp;
                fastcgi_temp_path \(path)/tmp;
                uwsgi_temp_path \(path)/tmp;
                scgi_temp_path \(path)/tmp;
                upstream backend {
                    server 127.0.0.1:\(upstreamPort ?? 9);
                    keepalive 64;
                }
                server {
                    listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");
                    ssl_certificate \(path)/cert.pem;
                    ssl_certificate_key \(path)/key.pem;
                    ssl_protocols \(protocols);
                    ssl_session_cache shared:relay_test:1m;
                    \(directives)
                    \(location)
                }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = try Subprocess(
            "/usr/sbin/nginx", ["-c", "\(path)/nginx.conf", "-p", path, "-g", "daemon off;"], output: .discard)
        try await waitUntil("nginx listens on \(port)", timeout: .seconds(4)) { isListening(port: port) }
    }

    deinit {
        // The last release can happen on a thread of the cooperative pool, which must never block:
        // nginx is waited for, and its directory removed, on a thread of its own.
        let process = process
        let directory = directory
        process.signal(SIGTERM)
        Thread {
            if (try? process.waitBlocking(timeout: .seconds(10))) == nil { process.signalGroup(SIGKILL) }
            try? FileManager.default.removeItem(at: directory)
        }.start()
    }

    /// A fresh self-signed certificate for `localhost` and 127.0.0.1: `cert.pem` and `key.pem` in
    /// `directory`, with a P-256 key (or with `rsa`, a 2048-bit RSA one).
    static func makeCertificate(in directory: URL, rsa: Bool = false) async throws {
        let key = rsa ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        try await Subprocess.run(
            "/usr/bin/openssl",
            ["req", "-x509"] + key + [
                "-nodes", "-keyout", directory.appendingPathComponent("key.pem").path, "-out",
                directory.appendingPathComponent("cert.pem").path, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
    }
}
