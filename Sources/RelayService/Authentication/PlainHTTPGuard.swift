import RelayHTTP

/// With an https issuer, a request that a trusted proxy says arrived over plain http
/// (`X-Forwarded-Proto: http`) is refused rather than answered: bearer tokens, codes and consent
/// must not be served in the clear because a proxy also listens on port 80 and forwards instead of
/// redirecting. Only a trusted proxy's word counts (a client's own header never reaches here as
/// the scheme); health probes are exempt, since load balancers check over http.
struct PlainHTTPGuard: Sendable {
    let issuer: String
    let trustedProxies: TrustedProxies
    let exempt: Set<Substring> = ["/healthz", "/readyz"]

    /// Nil when there is nothing to guard: an http issuer (the local demo) or no trusted proxy.
    init?(issuer: String, trustedProxies: TrustedProxies) {
        guard issuer.hasPrefix("https://"), !trustedProxies.ranges.isEmpty else { return nil }
        self.issuer = issuer
        self.trustedProxies = trustedProxies
    }

    /// Whether `request` came through a trusted proxy from a plain http client.
    func refuses(_ request: Request) -> Bool {
        request.origin.scheme == "http" && request.headers["x-forwarded-proto"] != nil
            && trustedProxies.trusts(request.origin.peer) && !exempt.contains(request.path)
    }

    /// `inner`, behind the check.
    func wrap(_ inner: Responder) -> Responder {
        var response = Response.text("This relay answers only over https: \(issuer)\n", status: .forbidden)
        response.headers.set("Cache-Control", "no-store")
        let refusal = response
        return Responder { request in refuses(request) ? .now(refusal) : inner(request) }
    }
}
