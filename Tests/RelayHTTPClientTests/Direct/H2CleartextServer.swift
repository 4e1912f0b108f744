import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nginx speaking HTTP/2 in cleartext with prior knowledge (h2c; `listen … http2` without `ssl`,
/// https://nginx.org/en/docs/http/ngx_http_v2_module.html) on a free loopback port: `/` answers
/// `ok`, `/big` is a 200 KB file, `/header` answers with a field from the request.
final class H2CleartextServer {
    let directory: URL
    let port: Int
    let bigBody: [UInt8]
    private let process: Subprocess

    /// Async: waiting for nginx must not hold a thread of the cooperative pool.
    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-h2c-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("root"), withIntermediateDirectories: true)
        bigBody = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try Data(bigBody).write(to: directory.appendingPathComponent("root/big"))
        port = try freePort()
        let path = directory.path
        let configuration = """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log \(path)/access.log;
                client_body_temp_path \(path)/tmp;
                proxy_temp_path \(path)/tmp;
                fastcgi_temp_path \(path)/tmp;
                uwsgi_temp_path \(path)/tmp;
                scgi_temp_path \(path)/tmp;
                server {
                    listen 127.0.0.1:\(port) http2;
                    root \(path)/root;
                    location = / { default_type text/plain; return 200 "ok"; }
                    location = /header { add_header x-echo $http_x_probe; return 204; }
                    location = /big { default_type application/octet-stream; }
                }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = try Subprocess(
            "/usr/sbin/nginx", ["-c", "\(path)/nginx.conf", "-p", path, "-g", "daemon off;"], output: .discard)
        try await TLSServer.waitForListener(port: port)
    }

    deinit {
        // As TLSServer: never wait for nginx on a thread of the cooperative pool.
        let process = process
        let directory = directory
        process.signal(SIGTERM)
        Thread {
            if (try? process.waitBlocking(timeout: .seconds(10))) == nil { process.signalGroup(SIGKILL) }
            try? FileManager.default.removeItem(at: directory)
        }.start()
    }
}
