import RelayCrypto
import Testing

@testable import RelayVault

/// The envelope's associated data is part of the stored format: a change to how it is built
/// would leave every stored grant unopenable. Pinned here byte for byte, written by hand.
@Suite struct EnvelopeFormatTests {
    private let context: EncryptionContext = ["purpose": "p", "userId": "u1", "grantId": "g", "keyVersion": "1"]

    /// Entries sorted by name bytes, each `u32 length ‖ name ‖ u32 length ‖ value`.
    private var expectedCanonical: [UInt8] {
        var bytes: [UInt8] = []
        for part in ["grantId", "g", "keyVersion", "1", "purpose", "p", "userId", "u1"] {
            bytes += [0, 0, 0, UInt8(part.utf8.count)] + Array(part.utf8)
        }
        return bytes
    }

    @Test func canonicalContextBytesArePinned() {
        #expect(context.canonicalBytes == expectedCanonical)
        var appended: [UInt8] = [9]
        context.writeCanonicalBytes(to: &appended)
        #expect(appended == [9] + expectedCanonical)
        #expect(EncryptionContext().canonicalBytes.isEmpty)
    }

    /// A `SealContext` writes its context without the dictionary: the same bytes as the dictionary
    /// it stands for (the pinned ones above), whatever the lengths, digits and characters.
    @Test func sealContextWritesTheDictionarysBytes() {
        var pinned: [UInt8] = [7]
        SealContext(purpose: "p", userId: "u1", grantId: "g", keyVersion: 1).writeCanonicalBytes(to: &pinned)
        #expect(pinned == [7] + expectedCanonical)
        let contexts = [
            SealContext(purpose: "", userId: "", grantId: "", keyVersion: 0),
            SealContext(purpose: "cloudkit-web-auth-token", userId: String(repeating: "a", count: 300), grantId: "é✓"),
            SealContext(purpose: "x", userId: "y", grantId: "z", keyVersion: 1_234_567),
            SealContext(purpose: "x", userId: "y", grantId: "z", keyVersion: -1),
        ]
        for context in contexts {
            var direct: [UInt8] = []
            context.writeCanonicalBytes(to: &direct)
            #expect(direct == context.encryptionContext.canonicalBytes)
        }
    }

    /// A box sealed by hand with `label ‖ 0 ‖ version ‖ canonical context` as AAD opens as an
    /// envelope of that kind, and the same box does not open under another kind or context.
    @Test func envelopeAssociatedDataIsPinned() throws {
        let key = SymmetricKey.random()
        let aad = Array("mustdo-relay/sealed-grant".utf8) + [0, Envelope.version] + expectedCanonical
        let envelope = [Envelope.version] + (try AES256GCM.seal(Array("secret".utf8), key: key, authenticatedData: aad))
        let opened = try Envelope.open(envelope, kind: .sealedGrant, key: key, context: context)
        #expect(opened == Array("secret".utf8))
        #expect(throws: VaultError.self) { try Envelope.open(envelope, kind: .tokenBound, key: key, context: context) }
        var other = context
        other["userId"] = "u2"
        #expect(throws: VaultError.self) { try Envelope.open(envelope, kind: .sealedGrant, key: key, context: other) }
        // And what this code seals opens with the hand-built AAD.
        let sealed = try Envelope.seal(Array("again".utf8), kind: .sealedGrant, key: key, context: context)
        #expect(sealed.first == Envelope.version)
        #expect(try AES256GCM.open(Array(sealed.dropFirst()), key: key, authenticatedData: aad) == Array("again".utf8))
    }
}
