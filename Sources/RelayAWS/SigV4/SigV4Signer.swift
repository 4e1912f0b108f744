import RelayCrypto

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for header-signed requests: canonical request,
/// string to sign, signing key and the `Authorization` field. Pinned by AWS's published SigV4
/// test suite and cross-checked against botocore in RelayAWSTests.
package struct SigV4Signer: Sendable {
    /// Whose key signs.
    package let credentials: AWSCredentials
    /// The region in the credential scope, e.g. `eu-west-1`.
    package let region: String
    /// The service in the credential scope, e.g. `dynamodb` or `kms`.
    package let service: String
    /// Whether the path is normalized (dot segments, repeated slashes) before encoding; true for
    /// every service but S3.
    package var normalizesPath = true
    /// Whether to add and sign `X-Amz-Content-SHA256` (S3 needs it; the JSON APIs do not).
    package var addsContentHashHeader = false

    /// Header fields never signed (hop-by-hop, or changed by proxies and HTTP libraries), as in the
    /// AWS SDKs.
    static let unsignedHeaders: Set<String> = [
        "authorization", "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id",
    ]

    /// A signer for one service in one region.
    package init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// Signs `request` as of `epochSeconds` (UTC). Add the returned `headers` to the request.
    package func sign(_ request: SigV4Request, epochSeconds: Int) -> SigV4Signature {
        let timestamp = SigV4Encoding.amzDate(epochSeconds: epochSeconds)
        let date = String(timestamp.prefix(8))
        let payloadHash = SigV4Encoding.hex(SHA256.hash(request.body))

        var added: [(name: String, value: String)] = [("X-Amz-Date", timestamp)]
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        if addsContentHashHeader { added.append(("X-Amz-Content-SHA256", payloadHash)) }

        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(request.headers + added)
        let canonicalRequest = [
            request.method,
            SigV4Encoding.uriEncode(
                normalizesPath ? SigV4Encoding.normalizePath(request.path) : request.path, keepSlash: true),
            Self.canonicalQuery(request.query),
            canonicalHeaders,
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")

        let scope = "\(date)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, SigV4Encoding.hex(SHA256.hash(canonicalRequest)),
        ].joined(separator: "\n")
        let signature = SigV4Encoding.hex(
            HMACSHA256.authenticationCode(for: stringToSign, key: signingKey(date: date)))

        added.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
                    + "Signature=\(signature)"
            ))
        return SigV4Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            signedHeaders: signedHeaders, headers: added)
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
    func signingKey(date: String) -> SymmetricKey {
        var key = SymmetricKey(bytes: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [date, region, service, "aws4_request"] {
            key = SymmetricKey(bytes: HMACSHA256.authenticationCode(for: part, key: key))
        }
        return key
    }

    /// The canonical header block (each `name:value\n`, names lowercase and sorted, values trimmed
    /// with inner whitespace runs collapsed, repeated fields joined with commas) and the signed
    /// header list.
    static func canonicalHeaders(_ fields: [(name: String, value: String)]) -> (block: String, signed: String) {
        var names: [String] = []
        var values: [String: [String]] = [:]
        for field in fields {
            let name = field.name.lowercased()
            guard !unsignedHeaders.contains(name) else { continue }
            let value = field.value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
                .joined(separator: " ")
            if values[name] == nil { names.append(name) }
            values[name, default: []].append(value)
        }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let block = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// Query parameters decoded, re-encoded and sorted by name, then value (by bytes).
    static func canonicalQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: true)
            .map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = SigV4Encoding.uriEncode(bytes: SigV4Encoding.percentDecode(parts[0]))
                let value = parts.count > 1 ? SigV4Encoding.uriEncode(bytes: SigV4Encoding.percentDecode(parts[1])) : ""
                return (name, value)
            }
            .sorted {
                $0.0 == $1.0
                    ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8)
            }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
