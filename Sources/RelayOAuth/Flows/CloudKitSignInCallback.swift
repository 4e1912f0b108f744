import RelayHTTP

/// What Apple's CloudKit web sign-in appends to the URL it sends the person back to. Read by the hosted
/// relay's callback and by `mustdo-relay local`'s listener alike.
package enum CloudKitSignInCallback {
    /// `ckWebAuthToken` (or the older `ckSession`) from the raw query. `+` stays `+`: the token is
    /// base64 and Apple does not always percent-encode it.
    package static func webAuthToken(in request: Request) -> String? {
        guard let query = request.rawQuery else { return nil }
        return webAuthToken(inQuery: query)
    }

    /// The same, from a raw query string (as the callback page POSTs it: `TabBinding`).
    package static func webAuthToken(inQuery query: some StringProtocol) -> String? {
        var session: String?
        for part in query.split(separator: "&") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, let value = FormDecoding.decode(pieces[1].utf8, plusAsSpace: false), !value.isEmpty
            else { continue }
            if pieces[0] == "ckWebAuthToken" { return value }
            if pieces[0] == "ckSession" { session = value }
        }
        return session
    }
}
