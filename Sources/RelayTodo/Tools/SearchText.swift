import Foundation

/// How `search` compares words with titles and notes. Both sides are folded the same way: Unicode
/// compatibility composition (NFKC: full-width `ＡＢＣ` is `ABC`, half-width `ｶﾀｶﾅ` is `カタカナ`, a
/// decomposed `é` is the composed one), then case folding (`Dentist` is `dentist`, `ß` is `ss`). Accents
/// and Japanese voicing marks are kept: `cafe` does not find `café`, and `カス` does not find `ガス`, which are
/// different words. A word matches anywhere inside the text, not only at word starts, because Japanese is
/// written without spaces (`牛乳` must find `牛乳を買う`); the price is that `pen` also finds `open`.
enum SearchText {
    /// `text` folded for comparison.
    static func fold(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(
            options: [.caseInsensitive, .widthInsensitive], locale: nil)
    }

    /// The folded words of a query: split at white space (the ideographic space too) and punctuation
    /// (`、` `。` `,` `?` `「」`), so "牛乳、卵" is two words and "dentist?" is "dentist"; empty pieces and
    /// repeats dropped, first `maxWords` kept.
    static func words(_ query: String, maxWords: Int) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func finish() {
            guard !current.isEmpty else { return }
            let word = fold(String(current))
            current.removeAll()
            if !word.isEmpty, !words.contains(word), words.count < maxWords { words.append(word) }
        }
        for scalar in query.unicodeScalars {
            if isSeparator(scalar) { finish() } else { current.append(scalar) }
        }
        finish()
        return words
    }

    /// White space, control characters and punctuation (general categories Z*, Cc and P*) end a word.
    /// Symbols (emoji, `+`, `$`), marks and format characters (the zero-width joiner of an emoji sequence)
    /// stay part of it.
    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .connectorPunctuation,
            .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
            .otherPunctuation:
            true
        default: false
        }
    }
}
