import Foundation

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// nginx in front of the relay, run from `deploy/nginx/mustdo-relay.conf` with only what a test
/// must change: the certificate, loopback listen ports, the upstream's port, log and temp paths.
/// Every proxy setting is the shipped one; a line the derivation expects but cannot find fails
/// the test, so the test never quietly checks something other than what operators deploy.
final class NginxProxy {
    let directory: String
    /// The https port (TLS with the test certificate).
    let port: Int
    /// The plain http port, whose server only redirects to https.
    let redirectPort: Int
    private let process: ChildProcess

    /// The access log written by the shipped `relay_paths` format.
    var accessLog: String { directory + "/logs/mustdo-relay.log" }

    /// Writes the configuration, checks it with `nginx -t`, starts nginx and waits until it accepts connections.
    init(directory: String, certificates: TestCertificates, upstreamPort: Int, port: Int, redirectPort: Int)
        async throws
    {
        self.directory = directory
        self.port = port
        self.redirectPort = redirectPort
        let nginx = try ChildProcess.tool("nginx")
        for folder in ["logs", "temp"] {
            try FileManager.default.createDirectory(
                atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        let shipped = try String(
            contentsOf: PythonScript.repository.appendingPathComponent("deploy/nginx/mustdo-relay.conf"),
            encoding: .utf8)
        let site = try Self.site(
            from: shipped, certificates: certificates, upstreamPort: upstreamPort, port: port,
            redirectPort: redirectPort, logs: directory + "/logs/")
        try site.write(toFile: directory + "/site.conf", atomically: true, encoding: .utf8)
        try Self.main(directory).write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try await NginxProxy.start(nginx, directory: directory, listeningOn: port)
    }

    /// Stops nginx (fast shutdown) and returns its exit status.
    func stop() async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.waitForExit()
    }

    /// Checks `directory/nginx.conf` (`nginx -t`), starts nginx in the foreground with it and waits
    /// until it listens on `port`; the error log says why when it does not. The one way the tests
    /// start nginx (the relay's proxy here, CloudKit's TLS front in `CloudKitFront`).
    static func start(_ nginx: String, directory: String, listeningOn port: Int) async throws -> ChildProcess {
        let arguments = ["-c", directory + "/nginx.conf", "-p", directory, "-e", directory + "/logs/error.log"]
        try await ChildProcess.run(nginx, ["-t", "-q"] + arguments)
        let process = try ChildProcess(executable: nginx, arguments + ["-g", "daemon off;"])
        let deadline = Date().addingTimeInterval(30)
        while !isListening(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? ""
                throw ChildProcess.ChildProcessError.failed("nginx did not start: \(process.text) \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process
    }

    /// The shipped site file with the test's certificate, ports and log folder.
    static func site(
        from shipped: String, certificates: TestCertificates, upstreamPort: Int, port: Int, redirectPort: Int,
        logs: String
    ) throws -> String {
        var text = shipped
        let replacements = [
            ("/etc/letsencrypt/live/relay.example.com/fullchain.pem", certificates.certificateFile),
            ("/etc/letsencrypt/live/relay.example.com/privkey.pem", certificates.keyFile),
            ("/var/log/nginx/", logs),
            ("server 127.0.0.1:8080;", "server 127.0.0.1:\(upstreamPort);"),
            ("listen 443 ssl http2;", "listen 127.0.0.1:\(port) ssl http2;"),
            ("listen [::]:443 ssl http2;", ""),
            ("listen 80;", "listen 127.0.0.1:\(redirectPort);"),
            ("listen [::]:80;", ""),
        ]
        for (old, new) in replacements {
            guard text.contains(old) else {
                throw ChildProcess.ChildProcessError.failed("deploy/nginx/mustdo-relay.conf no longer has \"\(old)\"")
            }
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// The main configuration: everything inside `directory`, one worker, the site included as shipped.
    static func main(_ directory: String) -> String {
        let temp = directory + "/temp/"
        return """
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log warn;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(temp)body;
                proxy_temp_path \(temp)proxy;
                fastcgi_temp_path \(temp)fastcgi;
                uwsgi_temp_path \(temp)uwsgi;
                scgi_temp_path \(temp)scgi;
                include \(directory)/site.conf;
            }

            """
    }
}
