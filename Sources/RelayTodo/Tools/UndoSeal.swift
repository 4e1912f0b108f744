import Foundation
import RelayCrypto
import RelayJSON

/// What makes an undo handle the relay's and the person's: AES-256-GCM under a key every instance derives from
/// the same key material as `list_todos` cursors (`TodoTools.tools(cursorKey:)`, itself derived from the hosted
/// relay's user-ID key), with the person (the user ID HMAC, `TodoPrincipal.cursorOwner`) as associated data. An
/// edited handle, another person's, another deployment's, or one made by a process whose key is gone opens to
/// nothing; the expiry is inside the sealed bytes, so it cannot be moved either.
///
/// The text is `u1.` and the base64url of `version byte ‖ nonce ‖ ciphertext ‖ tag` (`AES256GCM.seal`).
package struct UndoSeal: Sendable {
    let key: SymmetricKey
    let owner: String

    /// The prefix of every handle of this format.
    static let prefix = "u1."
    /// The longest handle accepted: the MCP endpoint's body limit (`MCPEndpointConfiguration.maxBodyBytes`), so
    /// nothing that can arrive is refused for its size. An update's handle carries the fields it replaced, 4,000
    /// characters of notes at most when the relay wrote them (about 22 KB sealed).
    package static let maxLength = 256 * 1024

    /// A seal for `owner` under the key derived from `toolKey` (the tools' shared key material).
    package init(toolKey: SymmetricKey, owner: String) {
        key = Self.derive(from: toolKey)
        self.owner = owner
    }

    /// The undo key for `toolKey`: a separate key for a separate purpose, so a cursor tag never doubles as one.
    static func derive(from toolKey: SymmetricKey) -> SymmetricKey {
        SymmetricKey(bytes: HMACSHA256.authenticationCode(for: "mustdo-relay undo handle key v1", key: toolKey))
    }

    private var associatedData: [UInt8] { Array("mustdo-relay undo v1\u{0}\(owner)".utf8) }

    /// The sealed text of `handle`.
    package func seal(_ handle: UndoHandle) -> String {
        // Sealing fails only for a key of the wrong size, which `derive` never makes.
        let box =
            (try? AES256GCM.seal(handle.json.bytes, key: key, authenticatedData: associatedData, prefix: [1]))
            ?? []
        return Self.prefix + Base64URL.encode(box)
    }

    /// The handle in `text`, or why it cannot be used: `INVALID_ARGUMENT` on `undo` when it is not one of this
    /// person's (or was edited), or when it expired at `now`.
    package func open(_ text: String, now: Date) throws(TodoError) -> UndoHandle {
        guard text.utf8.count <= Self.maxLength, text.hasPrefix(Self.prefix),
            let box = Base64URL.decode(text.dropFirst(Self.prefix.count)), box.first == 1,
            let plain = try? AES256GCM.open(box[1...], key: key, authenticatedData: associatedData),
            let json = try? JSONValue(parsing: plain), let handle = UndoHandle(json: json)
        else {
            throw .invalidArgument(
                "undo",
                "is not an undo handle this connection can use (it was changed, or made for another person or "
                    + "by another service). Pass the undo string from a write's result exactly as it was.")
        }
        guard Double(handle.expires) > now.timeIntervalSince1970 else {
            throw .invalidArgument(
                "undo", "has expired: a change can be undone for 24 hours. Change the to-do directly instead.")
        }
        return handle
    }
}
