import Foundation
import Testing

@testable import RelayAWS

/// The parsers behind the credential sources: STS's XML, AWS timestamps, the shared files.
struct CredentialParsingTests {
    /// An answer shaped as STS documents it (AssumeRoleWithWebIdentity, "Examples").
    static let stsAnswer = """
        <?xml version="1.0" encoding="UTF-8"?>
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <AssumeRoleWithWebIdentityResult>
            <SubjectFromWebIdentityToken>system:serviceaccount:relay:mustdo-relay</SubjectFromWebIdentityToken>
            <Audience>sts.amazonaws.com</Audience>
            <AssumedRoleUser>
              <Arn>arn:aws:sts::123456789012:assumed-role/relay/mustdo-relay</Arn>
              <AssumedRoleId>AROACLKWSDQRAOEXAMPLE:mustdo-relay</AssumedRoleId>
            </AssumedRoleUser>
            <Credentials>
              <SessionToken>AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE&amp;/+=</SessionToken>
              <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
              <Expiration>2026-12-01T20:58:45Z</Expiration>
              <AccessKeyId>ASgeIAIOSFODNN7EXAMPLE</AccessKeyId>
            </Credentials>
            <!-- a comment -->
            <Provider>www.amazon.com</Provider>
          </AssumeRoleWithWebIdentityResult>
          <ResponseMetadata><RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId></ResponseMetadata>
        </AssumeRoleWithWebIdentityResponse>
        """

    @Test func stsCredentialsAreRead() throws {
        let credentials = try WebIdentityCredentialSource.credentials(Array(Self.stsAnswer.utf8))
        #expect(credentials.accessKeyID == "ASgeIAIOSFODNN7EXAMPLE")
        #expect(credentials.secretAccessKey == "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY")
        #expect(credentials.sessionToken == "AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE&/+=", "entities decoded")
        #expect(credentials.expiration == ISO8601Time.epochSeconds("2026-12-01T20:58:45Z"))
    }

    @Test func stsErrorsGiveTheirCodeOnly() {
        let error = """
            <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
              <Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>
              <Message>the token eyJhbGciOiJSUzI1NiJ9.secret is expired</Message></Error>
              <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
            </ErrorResponse>
            """
        #expect(WebIdentityCredentialSource.errorCode(Array(error.utf8)) == "InvalidIdentityToken")
        #expect(WebIdentityCredentialSource.errorCode(Array("<html>503</html>".utf8)) == nil)
        #expect(throws: AWSError.self) { try WebIdentityCredentialSource.credentials(Array(error.utf8)) }
    }

    @Test func xmlThatIsNotWellFormedOrCarriesADTDIsRefused() {
        let bad = [
            "", "text", "<a>", "<a></b>", "<a><b></a></b>", "<a/><b/>", "<a>x</a>trailing", "<a x=1></a>",
            "<a x=\"1></a>", "<a>&unknown;</a>", "<a>&amp</a>", "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>",
            "<a><?php x ?></a>", "<a><!-- open</a>", "<a><![CDATA[open</a>", "</a>", "<>x</>",
            String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40),
        ]
        for text in bad {
            #expect(throws: XMLTree.Malformed.self, "\(text)") { try XMLTree.parse(Array(text.utf8)) }
        }
    }

    @Test func xmlEntitiesCDATAAndPrefixes() throws {
        let tree = try XMLTree.parse(
            Array("<s:r a='1' b=\"2\"><s:v>&lt;&#65;&#x42;&quot;&apos;&gt;<![CDATA[<raw>&amp;]]></s:v><e/></s:r>".utf8))
        #expect(tree.name == "r")
        #expect(tree["v"]?.text == "<AB\"'><raw>&amp;")
        #expect(tree["e"] == XMLTree(name: "e"))
    }

    @Test func timestamps() {
        #expect(ISO8601Time.epochSeconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601Time.epochSeconds("2026-12-01T19:58:45Z") == 1_796_155_125)
        #expect(ISO8601Time.epochSeconds("2026-12-01T19:58:45.5Z") == 1_796_155_125.5)
        #expect(ISO8601Time.epochSeconds("2026-12-01T21:58:45+02:00") == 1_796_155_125)
        #expect(ISO8601Time.epochSeconds("2024-02-29T00:00:00Z") == 1_709_164_800)
        for bad in [
            "2026-12-01 19:58:45Z", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-12-01T24:00:00Z",
            "2026-12-01T19:58:45", "2026-12-01T19:58:45.Z", "2026-12-01T19:58:45Zjunk", "tomorrow",
        ] {
            #expect(ISO8601Time.epochSeconds(bad) == nil, "\(bad)")
        }
        // Cross-check against Foundation on a range of dates.
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: 0.0, to: 4_000_000_000, by: 86_399 * 97) {
            let text = formatter.string(from: Date(timeIntervalSince1970: seconds))
            #expect(ISO8601Time.epochSeconds(text) == seconds, "\(text)")
        }
    }

    @Test func credentialDocumentsNeverQuoteTheirBody() {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
        let bodies = [
            #"{"AccessKeyId":"ASIA1","SecretAccessKey":"\#(secret)","Token":"t"}"#,
            #"{"Code":"AssumeRoleUnauthorizedAccess","SecretAccessKey":"\#(secret)"}"#,
            #"{"AccessKeyId":"ASIA1","SecretAccessKey":"\#(secret)","Token":"t","Expiration":"soon"}"#, secret,
        ]
        for body in bodies {
            do {
                _ = try CredentialDocument.parse(Array(body.utf8), origin: "the test endpoint")
                Issue.record("accepted \(body)")
            } catch {
                guard case .credentials(let reason) = error else {
                    Issue.record("expected AWSError.credentials, got \(error)")
                    continue
                }
                #expect(reason.contains("the test endpoint answered"), "\(reason)")
                #expect(!"\(error)".contains(secret))
            }
        }
    }

    @Test func sharedFileSections() {
        let sections = SharedProfile.parse(
            """
            # comment
            [default]
            aws_access_key_id = AKIADEFAULT
            AWS_Secret_Access_Key=secret-default
            ; another comment
            [profile relay]
            region = eu-west-1
            s3 =
              max_concurrent_requests = 10
            role_arn = arn:aws:iam::123456789012:role/relay
            """)
        #expect(sections["default"]?["aws_access_key_id"] == "AKIADEFAULT")
        #expect(sections["default"]?["aws_secret_access_key"] == "secret-default", "keys are case-insensitive")
        #expect(sections["profile relay"]?["role_arn"] == "arn:aws:iam::123456789012:role/relay")
        #expect(sections["profile relay"]?["max_concurrent_requests"] == nil, "nested settings are skipped")
    }
}
