import Foundation
import RelayCloudKit
import RelayCrypto
import RelayJSON
import Testing

@testable import RelayTodo

/// Issue 44: the undo handle is sealed by the relay (AES-256-GCM), bound to the person and expiring, and any
/// instance with the same key material opens it.
@Suite struct UndoSealTests {
    static let now = Date(timeIntervalSince1970: 1_781_000_000)

    static let handle = UndoHandle(
        entries: [
            UndoHandle.Entry(
                todoId: "a", recordName: "a", isOccurrence: false, changeTag: "7",
                action: .restore,
                previous: [
                    "title": .string("Old title"), "notes": nil, "dueAt": .timestamp(1_781_000_000_000),
                    "repeatRule": .string(#"{"kind":"daily"}"#),
                ], digest: [1, 2, 3]),
            UndoHandle.Entry(
                todoId: "r", recordName: "r|2026-06-10", isOccurrence: true, changeTag: "8", action: .delete,
                digest: []),
            UndoHandle.Entry(
                todoId: "n", recordName: "n", isOccurrence: false, changeTag: "9", action: .remove, digest: [9]),
        ], now: now)

    @Test func anotherInstanceWithTheSameKeyMaterialOpensIt() throws {
        let key = SymmetricKey.random()
        let text = UndoSeal(toolKey: key, owner: "user-1").seal(Self.handle)
        let opened = try UndoSeal(toolKey: SymmetricKey(bytes: key.withUnsafeBytes { Array($0) }), owner: "user-1")
            .open(text, now: Self.now)
        #expect(opened == Self.handle)
        #expect(opened.expires == Int64(Self.now.timeIntervalSince1970) + 86400)
    }

    @Test func anotherPersonAnotherKeyAnEditAndTheDayAfterAreRefused() throws {
        let key = SymmetricKey.random()
        let text = UndoSeal(toolKey: key, owner: "user-1").seal(Self.handle)
        var edited = Array(text.utf8)
        edited[20] = edited[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let refusals: [(UndoSeal, String, Date)] = [
            (UndoSeal(toolKey: key, owner: "user-2"), text, Self.now),
            (UndoSeal(toolKey: .random(), owner: "user-1"), text, Self.now),
            (UndoSeal(toolKey: key, owner: "user-1"), String(decoding: edited, as: UTF8.self), Self.now),
            (UndoSeal(toolKey: key, owner: "user-1"), "u1." + String(text.dropFirst(3).dropLast(1)), Self.now),
            (UndoSeal(toolKey: key, owner: "user-1"), text, Self.now.addingTimeInterval(86400)),
        ]
        for (seal, handle, now) in refusals {
            #expect(throws: TodoError.self) { try seal.open(handle, now: now) }
        }
        #expect(throws: Never.self) {
            try UndoSeal(toolKey: key, owner: "user-1").open(text, now: Self.now.addingTimeInterval(86399))
        }
    }

    /// The sealed text shows nothing of what it carries, and two seals of the same handle differ (fresh nonce).
    @Test func theSealedTextShowsNoContent() {
        let seal = UndoSeal(toolKey: .random(), owner: "user-1")
        let text = seal.seal(Self.handle)
        #expect(text.hasPrefix("u1."))
        for shown in ["Old title", "daily", "title", "r|2026"] { #expect(!text.contains(shown)) }
        #expect(seal.seal(Self.handle) != text)
    }

    /// The digest names the fields whose value differs.
    @Test func theDigestNamesWhatChanged() {
        let names = ["title", "status", "dueAt"]
        let before = Record(
            recordName: "a", recordType: "Todo", fields: ["title": .string("x"), "status": .string("pending")])
        var after = before
        after.fields["status"] = .string("done")
        after.fields["dueAt"] = .timestamp(5)
        #expect(
            UndoDigest.changed(after, names: names, since: UndoDigest.of(before, names: names)) == ["status", "dueAt"])
        #expect(UndoDigest.changed(before, names: names, since: UndoDigest.of(before, names: names)).isEmpty)
    }
}
