/// The languages pages are written in, chosen from `Accept-Language` (RFC 9110 §12.5.4): the
/// supported language with the highest q-value, English when nothing matches.
enum PageLocale: String, Sendable, CaseIterable {
    case english = "en"
    case japanese = "ja"

    init(acceptLanguage: String?) {
        var best: (PageLocale, Double)?
        for entry in (acceptLanguage ?? "").split(separator: ",") {
            let parts = entry.split(separator: ";")
            guard let tag = parts.first?.drop(while: { $0 == " " }).lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let trimmed = parameter.drop { $0 == " " }
                if trimmed.hasPrefix("q="), let value = Double(trimmed.dropFirst(2)) { quality = value }
            }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard quality > 0, let locale = PageLocale(rawValue: primary) else { continue }
            if best == nil || quality > best!.1 { best = (locale, quality) }
        }
        self = best?.0 ?? .english
    }
}
