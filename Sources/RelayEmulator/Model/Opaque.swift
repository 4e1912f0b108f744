import Foundation

/// The emulator's opaque strings: tokens, names, tags and markers.
enum Opaque {
    /// A web auth token shaped like Apple's (`106__54__<base64>__<base64>`), always containing
    /// `+`, `/` and `=` so clients that do not encode them fail here as they would in production.
    static func webAuthToken() -> String {
        "106__54__" + base64(random(120)) + "+/" + base64(random(9)) + "__" + base64(random(32))
    }

    /// `_` and 32 lowercase hex digits, stable for one Apple ID.
    static func userRecordName(appleID: String) -> String {
        let digest = Digest.sha256(Array("cloudkit-emulator|\(normalized(appleID))".utf8))
        return "_" + digest.prefix(16).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// An Apple ID as the emulator keys it: trimmed, lowercased.
    static func normalized(_ appleID: String) -> String {
        appleID.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A random token for a pending sign-in (`oauth_token`).
    static func signInToken() -> String { base64URL(random(24)) }

    /// A random (version 4) UUID in lowercase, as `x-apple-request-uuid` carries it.
    static func uuid() -> String {
        var bytes = random(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A record name the server picks when `create` has none.
    static func recordName() -> String { UUID().uuidString }

    /// A short change tag from a counter (`"2"`, `"25d"` are the sizes seen live).
    static func changeTag(_ counter: Int) -> String { String(counter, radix: 36) }

    /// A sync token for a zone position.
    static func syncToken(zone: String, sequence: Int64) -> String {
        "AQAA" + base64(Array("\(zone)#\(sequence)".utf8))
    }

    /// The position a sync token stands for, or nil when it is not one of ours for `zone`.
    static func sequence(fromSyncToken token: String, zone: String) -> Int64? {
        guard token.hasPrefix("AQAA"), let data = Data(base64Encoded: String(token.dropFirst(4))) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix(zone + "#") else { return nil }
        return Int64(text.dropFirst(zone.count + 1))
    }

    /// A continuation marker: the offset of the next page and a fingerprint of the query.
    static func continuationMarker(offset: Int, fingerprint: String) -> String {
        base64(Array("\(offset)|\(fingerprint)".utf8))
    }

    /// The offset a marker stands for, or nil when it does not belong to this query.
    static func offset(fromMarker marker: String, fingerprint: String) -> Int? {
        guard let data = Data(base64Encoded: marker) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", maxSplits: 1)
        guard parts.count == 2, parts[1] == fingerprint, let offset = Int(parts[0]), offset >= 0 else { return nil }
        return offset
    }

    /// FNV-1a over bytes, as 16 hex digits (fingerprints, not security).
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16).leftPadded(to: 16)
    }

    static func random(_ count: Int) -> [UInt8] { RandomBytes.make(count) }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    static func base64URL(_ bytes: [UInt8]) -> String {
        base64(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
