import Foundation
import RelayCloudKit
import RelayEmulator
import RelayHTTP
import Testing

@Suite struct TokenEncodingTests {
    static let configuration = CloudKitConfiguration(
        baseURL: "https://api.apple-cloudkit.com/", container: "iCloud.jp.lightning.mustdo",
        environment: .production, apiToken: CloudKitAPIToken("a+b/c="))

    /// The `ckWebAuthToken` value that `CloudKitURL.make`, the relay's one way to an operation URL,
    /// writes for `text`.
    static func encodedToken(_ text: String) throws -> String {
        let url = CloudKitURL.make(configuration, .private, "records/query", CloudKitWebAuthToken(text))
        return String(url[try #require(url.range(of: "&ckWebAuthToken="), "\(url)").upperBound...])
    }

    @Test func tokensArePercentEncodedByHand() {
        let token = CloudKitWebAuthToken("106__54__AZx+2o9h/Zz==__eyJY+/+/=")
        let url = CloudKitURL.make(Self.configuration, .private, "records/query", token)
        #expect(
            url
                == "https://api.apple-cloudkit.com/database/1/iCloud.jp.lightning.mustdo/production/private/records/query"
                + "?ckAPIToken=a%2Bb%2Fc%3D&ckWebAuthToken=106__54__AZx%2B2o9h%2FZz%3D%3D__eyJY%2B%2F%2B%2F%3D")
        let query = String(url.split(separator: "?")[1])
        #expect(!query.contains("+"))
        #expect(!query.dropFirst("ckAPIToken=".count).contains("/"))
        let pairs = FormDecoding.pairs(query)
        #expect(pairs?.first { $0.name == "ckWebAuthToken" }?.value == token.rawValue)
        #expect(pairs?.first { $0.name == "ckAPIToken" }?.value == "a+b/c=")
    }

    /// Every ASCII character and some multi-byte ones, alone, in runs and at both ends: only RFC 3986
    /// unreserved characters stay as they are (Foundation's encoding with that set agrees).
    @Test func everyCharacterOutsideTheUnreservedSetIsEncoded() throws {
        var unreserved = CharacterSet()
        unreserved.insert(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let ascii = String(decoding: (1...127).map { UInt8($0) }, as: UTF8.self)
        for text in [ascii, "é", "a/", "/a", "ab+cd", "東京/", "~~", "", "%%41", ascii + "é東京" + ascii] {
            let expected = text.addingPercentEncoding(withAllowedCharacters: unreserved)
            #expect(try Self.encodedToken(text) == expected, "\(text)")
        }
    }

    @Test func urlComponentsWouldCorruptTheToken() throws {
        // The pitfall the hand encoding avoids (reference §2.2): URLComponents leaves + and / raw,
        // and a form decoder reads the + as a space.
        var components = try #require(URLComponents(string: "https://example.com/x"))
        components.queryItems = [URLQueryItem(name: "ckWebAuthToken", value: "a+b/c=")]
        let query = try #require(components.percentEncodedQuery)
        #expect(FormDecoding.pairs(query)?.first?.value != "a+b/c=")
        let ours = "ckWebAuthToken=" + (try Self.encodedToken("a+b/c="))
        #expect(FormDecoding.pairs(ours)?.first?.value == "a+b/c=")
    }

    @Test func everyEmulatorTokenNeedsEncoding() throws {
        let emulator = try Emulator()
        for index in 0..<20 {
            let token = try emulator.createSession(appleID: "user\(index)@example.com").webAuthToken
            #expect(token.contains("+") && token.contains("/") && token.contains("="))
            #expect(token.hasPrefix("106__54__"))
        }
    }

    @Test func aRawTokenFailsAgainstTheEmulatorAndAnEncodedOneWorks() async throws {
        let harness = try Harness()
        let token = try harness.signIn()
        let configuration = harness.client.configuration
        let tokenless = CloudKitURL.make(configuration, .private, "zones/list", nil)
        let raw = try await harness.http.send(ClientRequest(url: tokenless + "&ckWebAuthToken=" + token.rawValue))
        #expect(raw.status == 421)
        let encoded = try await harness.http.send(
            ClientRequest(url: CloudKitURL.make(configuration, .private, "zones/list", token)))
        #expect(encoded.status == 200)
    }
}
