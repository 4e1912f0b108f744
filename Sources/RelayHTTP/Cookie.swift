/// A `Set-Cookie` value (RFC 6265bis). Defaults are the safe ones: HttpOnly, Secure, SameSite=Lax,
/// Path=/.
package struct Cookie: Sendable, Equatable {
    /// `SameSite` attribute values.
    package enum SameSite: String, Sendable {
        case strict = "Strict"
        case lax = "Lax"
        case none = "None"
    }

    package var name: String
    package var value: String
    package var path: String?
    /// Lifetime in seconds; 0 deletes the cookie.
    package var maxAge: Int?
    package var httpOnly: Bool
    package var secure: Bool
    package var sameSite: SameSite?

    /// A cookie with safe defaults.
    package init(
        name: String,
        value: String,
        path: String? = "/",
        maxAge: Int? = nil,
        httpOnly: Bool = true,
        secure: Bool = true,
        sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.maxAge = maxAge
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
    }

    /// The `Set-Cookie` header value.
    package var headerValue: String {
        var parts = ["\(name)=\(value)"]
        if let path { parts.append("Path=\(path)") }
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        if let sameSite { parts.append("SameSite=\(sameSite.rawValue)") }
        return parts.joined(separator: "; ")
    }
}

extension Request {
    /// Cookies sent with the request, in order; a name sent twice appears twice.
    package var cookies: [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for header in headers.values("cookie") {
            for part in header.split(separator: ";") {
                let pair = part.trimmingOWS
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = String(pair[..<equals].trimmingOWS)
                var value = pair[pair.index(after: equals)...].trimmingOWS
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                if !name.isEmpty { result.append((name: name, value: String(value))) }
            }
        }
        return result
    }

    /// The value of cookie `name`, or nil when it is absent or sent more than once (a planted
    /// duplicate must not be able to choose which value wins).
    package func cookie(_ name: String) -> String? {
        let matches = cookies.filter { $0.name == name }
        return matches.count == 1 ? matches[0].value : nil
    }
}

extension Response {
    /// Adds a `Set-Cookie` header.
    package mutating func setCookie(_ cookie: Cookie) { headers.add("Set-Cookie", cookie.headerValue) }
}
