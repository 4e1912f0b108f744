/// Text a client chose that a person or an operator reads: `client_name` (DCR and metadata
/// documents) on the consent page and in `mustdo-relayctl clients`. Such text must show what it
/// says. A bidirectional override (U+202E) reverses what follows it, also past the name on the
/// page; zero-width and other invisible characters make two different names look alike or hide text;
/// line separators and controls break the one line a name is shown on or rewrite a terminal.
///
/// Refused ("hidden") scalars: every control (Cc, tab and newline included, and U+0085), every format
/// character (Cf: U+200B–U+200F, U+202A–U+202E, U+2060–U+2064, U+2066–U+2069, U+061C, U+00AD,
/// U+FEFF, the tag characters U+E0001–U+E007F…), the line and paragraph separators (U+2028,
/// U+2029), private-use characters (their glyph depends on the font: U+F8FF is Apple's logo on
/// Apple systems), noncharacters, and the remaining default-ignorable code points that render as
/// nothing (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, U+034F, U+180B–U+180F, U+17B4–U+17B5…).
///
/// Kept although Cf or default-ignorable: U+200C and U+200D (zero-width non-joiner and joiner, which
/// Persian, the Indic scripts and emoji sequences need) and the variation selectors U+FE00–U+FE0F and
/// U+E0100–U+E01EF (emoji and ideograph presentation). They change how neighbouring characters join or
/// look, never the order of the text around them.
package enum DisplayText {
    /// Whether `scalar` may not appear in a name shown to a person.
    package static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C, 0x200D, 0xFE00...0xFE0F, 0xE0100...0xE01EF: return false
        default: break
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate: return true
        default: return properties.isNoncharacterCodePoint || properties.isDefaultIgnorableCodePoint
        }
    }

    /// Whether `text` holds no hidden scalar.
    package static func isShowable(_ text: String) -> Bool { !text.unicodeScalars.contains(where: isHidden) }

    /// `text` with every hidden scalar replaced by `replacement` (for an operator's terminal, where the
    /// name must stay recognisable and the replacement shows that something was there).
    package static func neutralised(_ text: String, replacement: Unicode.Scalar = "?") -> String {
        guard !isShowable(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isHidden(scalar) ? replacement : scalar) }
        return String(scalars)
    }
}
