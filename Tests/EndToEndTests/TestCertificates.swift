import Foundation
import RelayTestSupport

/// A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost, made with the
/// openssl command line the way an operator would make a private CA.
struct TestCertificates {
    /// The CA certificate clients are told to trust.
    let caFile: String
    /// The server certificate (for nginx).
    let certificateFile: String
    /// Its private key.
    let keyFile: String

    /// `names` are extra DNS names the server certificate covers (hosts a test impersonates).
    static func make(in directory: String, names: [String] = []) async throws -> TestCertificates {
        let openssl = try ChildProcess.tool("openssl")
        let result = TestCertificates(
            caFile: directory + "/ca.pem", certificateFile: directory + "/server.pem",
            keyFile: directory + "/server.key")
        let caKey = directory + "/ca.key"
        let request = directory + "/server.csr"
        let extensions = directory + "/server.ext"
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await ChildProcess.run(
            openssl,
            ["req", "-x509"] + key + [
                "-days", "2", "-subj", "/CN=MustDo Relay test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", caKey, "-out", result.caFile,
            ])
        try await ChildProcess.run(
            openssl, ["req"] + key + ["-subj", "/CN=127.0.0.1", "-keyout", result.keyFile, "-out", request])
        try """
        subjectAltName=\((["IP:127.0.0.1", "DNS:localhost"] + names.map { "DNS:" + $0 }).joined(separator: ","))
        basicConstraints=critical,CA:FALSE
        keyUsage=critical,digitalSignature
        extendedKeyUsage=serverAuth
        subjectKeyIdentifier=hash
        authorityKeyIdentifier=keyid
        """.write(toFile: extensions, atomically: true, encoding: .utf8)
        try await ChildProcess.run(
            openssl,
            [
                "x509", "-req", "-in", request, "-CA", result.caFile, "-CAkey", caKey, "-CAcreateserial", "-days", "2",
                "-extfile", extensions, "-out", result.certificateFile,
            ])
        try await ChildProcess.run(openssl, ["verify", "-CAfile", result.caFile, result.certificateFile])
        return result
    }
}
