extension JSONParser {
    /// Where each member name of one large object sits in the parser's `members`, for the duplicate
    /// check (issue 38): an open-addressing table of 8-byte slots, each the name's 32-bit hash and
    /// its position plus one (0: empty). A lookup compares a name only when the hashes agree, and
    /// growing moves the slots without hashing a name again, so the table stays a few hundred
    /// kilobytes at the largest body and the parse stays linear where a `[String: Int]` did not:
    /// its 27,000 entries cost 17 times its 2,700 (a cache miss per lookup), these 10 to 14.
    ///
    /// The hash is Swift's seeded `hashValue` (SipHash, a new seed per process), so a client cannot
    /// choose names that collide.
    struct NameIndex {
        private var slots: [UInt64]
        private var count = 0

        /// An index of the names at `start..<members.count`.
        init(_ members: [(String, JSONValue)], from start: Int) {
            var capacity = 32
            while capacity < (members.count - start) * 2 { capacity <<= 1 }
            slots = Array(repeating: 0, count: capacity)
            for member in start..<members.count {
                _ = position(of: members[member].0, orInsert: member, in: members)
            }
        }

        /// The position of `name` among `members` if the index holds it; otherwise nil, and
        /// `position` is recorded for it.
        mutating func position(of name: String, orInsert position: Int, in members: [(String, JSONValue)]) -> Int? {
            if (count + 1) * 4 > slots.count * 3 { grow() }
            let hash = UInt64(UInt32(truncatingIfNeeded: name.hashValue))
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = slots[slot]
                if entry == 0 {
                    slots[slot] = hash << 32 | UInt64(position + 1)
                    count += 1
                    return nil
                }
                if entry >> 32 == hash {
                    let existing = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                    if members[existing].0 == name { return existing }
                }
                slot = (slot + 1) & mask
            }
        }

        private mutating func grow() {
            let old = slots
            slots = Array(repeating: 0, count: old.count * 2)
            let mask = slots.count - 1
            for entry in old where entry != 0 {
                var slot = Int(truncatingIfNeeded: entry >> 32) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = entry
            }
        }
    }
}
