import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot HTTP GET over a fresh connection (URLSession would pool and retry).
func httpGet(port: Int, path: String) throws -> (status: Int, body: String) {
    let connection = try LoopbackConnection(port: port)
    try connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
    var response: [UInt8] = []
    while let chunk = try? connection.receive(), !chunk.isEmpty { response += chunk }
    let text = String(decoding: response, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}
