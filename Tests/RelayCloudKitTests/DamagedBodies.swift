import RelayTestSupport

/// `count` damaged copies of `original` from `seed` (one to four bytes flipped to JSON's own
/// characters or controls, deleted, duplicated, or the rest cut off): what a decoder must take,
/// refuse or fail exactly as the tree decoder does.
func damagedCopies(of original: [UInt8], seed: UInt64, count: Int = 3000) -> [[UInt8]] {
    var random = SplitMix(seed: seed)
    let replacements = Array("{}[],:\"\\0123456789-.eE tfnulra".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
    return (0..<count).map { _ in
        var body = original
        for _ in 0...(random.next() % 3) {
            guard !body.isEmpty else { break }
            let index = Int(random.next() % UInt64(body.count))
            switch random.next() % 4 {
            case 0: body[index] = replacements[Int(random.next() % UInt64(replacements.count))]
            case 1: body.remove(at: index)
            case 2: body.insert(body[index], at: index)
            default: body.removeSubrange(index...)
            }
        }
        return body
    }
}
