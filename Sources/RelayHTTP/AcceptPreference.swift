/// Which of two media types a request's `Accept` header prefers (RFC 9110 §12.5.1): each type's
/// quality is that of the most specific range matching it (`text/html`, then `text/*`, then `*/*`).
package enum AcceptPreference {
    /// Whether `Accept` prefers `text/html` to `application/json`: a browser's navigation
    /// (`text/html,…,*/*;q=0.8`) does; `*/*`, `application/json` or no header does not.
    package static func prefersHTML(_ request: Request) -> Bool {
        guard let accept = request.headers["accept"] else { return false }
        let html = quality(of: ("text", "html"), in: accept)
        let json = quality(of: ("application", "json"), in: accept)
        return html.value > json.value || (html.value == json.value && html.value > 0 && html.exact && !json.exact)
    }

    /// The quality the header gives `type`, and whether a range named it exactly.
    static func quality(of type: (String, String), in accept: String) -> (value: Double, exact: Bool) {
        var best: (specificity: Int, value: Double) = (-1, 0)
        for entry in accept.split(separator: ",") {
            let parts = entry.split(separator: ";")
            guard let range = parts.first?.trimmingOWS.lowercased() else { continue }
            let pieces = range.split(separator: "/", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else { continue }
            let specificity: Int
            if pieces[0] == type.0 && pieces[1] == type.1 {
                specificity = 2
            } else if pieces[0] == type.0 && pieces[1] == "*" {
                specificity = 1
            } else if pieces[0] == "*" && pieces[1] == "*" {
                specificity = 0
            } else {
                continue
            }
            var value = 1.0
            for parameter in parts.dropFirst() {
                let trimmed = parameter.trimmingOWS
                if trimmed.hasPrefix("q="), let parsed = Double(trimmed.dropFirst(2)) { value = parsed }
            }
            if specificity > best.specificity { best = (specificity, value) }
        }
        return (max(0, best.value), best.specificity == 2)
    }
}
