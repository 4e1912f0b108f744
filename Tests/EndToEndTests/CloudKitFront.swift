import Foundation

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// nginx with TLS in front of the CloudKit emulator, as Apple's `https://api.apple-cloudkit.com`
/// is: a certificate from a throwaway CA (the relay trusts it through `RELAY_CLOUDKIT_CA_FILE`),
/// HTTP/2 offered through ALPN (or, with `http2: false`, HTTP/1.1 only), and the emulator behind
/// it over kept-alive plain HTTP. Its access log names, per request, the TCP connection it came
/// over, the protocol and whether the TLS session was resumed, so a test can see how the relay
/// uses its upstream.
final class CloudKitFront {
    /// One access-log line.
    struct Request: Equatable {
        /// nginx's serial number of the client connection.
        let connection: String
        /// `HTTP/2.0` or `HTTP/1.1`.
        let protocolName: String
        /// `r` when the TLS session was resumed, `.` for a full handshake.
        let sessionReused: String
        let status: Int
        let path: String
    }

    let directory: String
    let port: Int
    private let process: ChildProcess

    /// The base URL the relay is given (`RELAY_CLOUDKIT_BASE_URL`).
    var url: String { "https://127.0.0.1:\(port)" }

    /// The requests logged so far.
    var requests: [Request] {
        let text = (try? String(contentsOfFile: directory + "/logs/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let status = Int(fields[3]) else { return nil }
            return Request(
                connection: fields[0], protocolName: fields[1], sessionReused: fields[2], status: status,
                path: fields[4])
        }
    }

    /// Starts nginx on a free loopback port and waits until it accepts connections.
    init(directory: String, certificates: TestCertificates, emulatorURL: String, http2: Bool = true) async throws {
        self.directory = directory
        port = try freePort()
        let nginx = try ChildProcess.tool("nginx")
        for folder in ["logs", "temp"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        let emulator = emulatorURL.replacingOccurrences(of: "http://", with: "")
        let configuration = """
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log warn;
            events { worker_connections 1024; }
            http {
                client_body_temp_path \(directory)/temp/body;
                proxy_temp_path \(directory)/temp/proxy;
                fastcgi_temp_path \(directory)/temp/fastcgi;
                uwsgi_temp_path \(directory)/temp/uwsgi;
                scgi_temp_path \(directory)/temp/scgi;
                log_format upstream '$connection $server_protocol $ssl_session_reused $status $uri';
                access_log \(directory)/logs/access.log upstream;
                upstream emulator {
                    server \(emulator);
                    keepalive 64;
                }
                server {
                    listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");
                    ssl_certificate \(certificates.certificateFile);
                    ssl_certificate_key \(certificates.keyFile);
                    ssl_protocols TLSv1.2 TLSv1.3;
                    ssl_session_cache shared:cloudkit:1m;
                    location / {
                        proxy_pass http://emulator;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        # The emulator names its own sign-in page by Host: browsers go there
                        # directly, as they go to Apple's sign-in host, not through the API's.
                        proxy_set_header Host \(emulator);
                    }
                }
            }

            """
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try await NginxProxy.start(nginx, directory: directory, listeningOn: port)
    }

    /// Stops nginx (fast shutdown) and returns its exit status.
    func stop() async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.waitForExit(timeout: .seconds(30))
    }
}
