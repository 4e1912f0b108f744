import RelayJSON

/// The JSON credentials document the ECS/EKS container endpoint and the EC2 instance metadata
/// service answer with: `AccessKeyId`, `SecretAccessKey`, `Token` and `Expiration` (ISO 8601 UTC),
/// plus `Code` (`Success`) from the instance metadata service.
enum CredentialDocument {
    /// The credentials in `body`; `origin` names the source in error messages, which never quote
    /// the body (it holds the secret key).
    static func parse(_ body: [UInt8], origin: String) throws(AWSError) -> AWSCredentials {
        guard let document = try? JSONValue(parsing: body), case .object = document else {
            throw .credentials("\(origin) answered with a body that is not a JSON object")
        }
        if let code = document["Code"]?.stringValue, code != "Success" {
            throw .credentials("\(origin) answered Code \(AWSText.safe(code)) instead of Success")
        }
        guard let id = document["AccessKeyId"]?.stringValue, let secret = document["SecretAccessKey"]?.stringValue,
            let token = document["Token"]?.stringValue, !token.isEmpty
        else {
            throw .credentials("\(origin) answered without AccessKeyId, SecretAccessKey and Token")
        }
        guard let text = document["Expiration"]?.stringValue, let expiration = ISO8601Time.epochSeconds(text) else {
            throw .credentials("\(origin) answered without a valid Expiration")
        }
        do {
            return try AWSCredentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: token, expiration: expiration)
        } catch {
            throw .credentials("\(origin) answered with unusable credentials")
        }
    }
}

/// Timestamps as AWS writes them: `2026-12-01T19:58:45Z`, with optional fractional seconds
/// (`.281632Z`, as STS and moto write) or a numeric offset (`+00:00`).
enum ISO8601Time {
    /// Seconds since the Unix epoch, or nil for anything else.
    static func epochSeconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]),
            let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number(bytes[(index + 1)..<(index + 3)]),
                let minutes = number(bytes[(index + 4)..<(index + 6)]),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Text from a response or a file that may appear in an error message: short, printable ASCII
/// only (an AWS error code, a role name), so nothing long or binary can reach a log.
enum AWSText {
    static func safe(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(64).filter {
            $0.isASCII && (0x21..<0x7F).contains($0.value) && $0 != "\"" && $0 != "\\"
        }
        return kept.isEmpty ? "(empty)" : String(String.UnicodeScalarView(kept))
    }
}
