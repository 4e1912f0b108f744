import RelayTestSupport
import Testing

@testable import RelayAWS

/// AWS's published SigV4 test suite (the `v4` cases of the AWS signing test suite, as shipped with
/// aws-c-auth): every case signed in header mode at 2015-08-30T12:36:00Z with the suite's example
/// key, checked step by step (canonical request, string to sign, signature, Authorization).
/// `post-sts-header-after` is left out: it adds the session token after signing, which the relay
/// never does.
struct SigV4VectorTests {
    @Test(arguments: SigV4Vector.all)
    func publishedVector(_ vector: SigV4Vector) throws {
        let credentials = try AWSCredentials(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: vector.sessionToken)
        var signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        signer.normalizesPath = vector.normalize
        signer.addsContentHashHeader = vector.signBody
        let signature = signer.sign(try vector.parsedRequest(), epochSeconds: 1_440_938_160)
        #expect(signature.canonicalRequest == vector.canonicalRequest)
        #expect(signature.stringToSign == vector.stringToSign)
        #expect(signature.signature == vector.signature)
        #expect(
            signature.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=\(signature.signedHeaders), Signature=\(vector.signature)")
        #expect(signature.headers.first?.name == "X-Amz-Date" && signature.headers.first?.value == "20150830T123600Z")
        #expect(signature.headers.contains { $0.name == "X-Amz-Security-Token" } == (vector.sessionToken != nil))
    }

    @Test func signingKeyDerivation() throws {
        // The derived key of AWS's worked example in the SigV4 documentation (iam, us-east-1, 20150830).
        let credentials = try AWSCredentials(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        let key = SigV4Signer(credentials: credentials, region: "us-east-1", service: "iam").signingKey(
            date: "20150830")
        #expect(
            key.withUnsafeBytes { SigV4Encoding.hex(Array($0)) }
                == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
    }

    @Test func timestampsAreUTC() {
        #expect(SigV4Encoding.amzDate(epochSeconds: 0) == "19700101T000000Z")
        #expect(SigV4Encoding.amzDate(epochSeconds: 1_440_938_160) == "20150830T123600Z")
        #expect(SigV4Encoding.amzDate(epochSeconds: 951_782_400) == "20000229T000000Z")
        #expect(SigV4Encoding.amzDate(epochSeconds: 4_102_444_799) == "20991231T235959Z")
    }
}

/// One case of the suite: the request as text (request line, fields, blank line, body) and the
/// published results.
struct SigV4Vector: Sendable, CustomStringConvertible {
    let name: String
    let normalize: Bool
    let signBody: Bool
    let sessionToken: String?
    let request: String
    let canonicalRequest: String
    let stringToSign: String
    let signature: String

    var description: String { name }

    /// The request text as a `SigV4Request`; folded continuation lines join their field's value.
    func parsedRequest() throws -> SigV4Request {
        let (head, body) =
            request.range(of: "\n\n").map { (String(request[..<$0.lowerBound]), String(request[$0.upperBound...])) }
            ?? (request, "")
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let requestLine = lines.removeFirst()
        guard let firstSpace = requestLine.firstIndex(of: " "), let lastSpace = requestLine.lastIndex(of: " ") else {
            throw TestSupportFailure("bad request line in \(name)")
        }
        let method = String(requestLine[..<firstSpace])
        let target = requestLine[requestLine.index(after: firstSpace)..<lastSpace]
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [(name: String, value: String)] = []
        for line in lines {
            if line.first == " " || line.first == "\t" {
                headers[headers.count - 1].value += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
        }
        return SigV4Request(
            method: method, path: String(path[0]), query: path.count > 1 ? String(path[1]) : "", headers: headers,
            body: Array(body.utf8))
    }
}
