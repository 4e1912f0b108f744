/// A request method token, compared case-sensitively as RFC 9110 §9.1 requires.
package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method token as sent.
    package let rawValue: String

    /// A method from its token.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// The token.
    package var description: String { rawValue }

    package static let get = HTTPMethod("GET")
    package static let head = HTTPMethod("HEAD")
    package static let post = HTTPMethod("POST")
    package static let put = HTTPMethod("PUT")
    package static let options = HTTPMethod("OPTIONS")

    /// Builds the method from bytes, the common methods as their constants.
    init(bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 3 where bytes[0] == 0x47 && bytes[1] == 0x45 && bytes[2] == 0x54: self = .get
        case 4 where bytes[0] == 0x50 && bytes[1] == 0x4F && bytes[2] == 0x53 && bytes[3] == 0x54: self = .post
        default: self.init(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// The HTTP/1.x minor version of a request.
package enum HTTPVersion: Sendable, Hashable {
    case http10
    case http11
}
