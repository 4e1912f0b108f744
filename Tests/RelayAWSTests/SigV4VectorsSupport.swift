// The published cases, transcribed from the suite's files (request.txt, header-canonical-request.txt,
// header-string-to-sign.txt, header-signature.txt). Over 400 lines because it is data.

extension SigV4Vector {
    static let all: [SigV4Vector] = [
        SigV4Vector(
            name: "get-header-key-duplicate", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1:value2
                My-Header1:value2
                My-Header1:value1

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                my-header1:value2,value2,value1
                x-amz-date:20150830T123600Z

                host;my-header1;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c
                """#,
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        SigV4Vector(
            name: "get-header-value-multiline", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1:value1
                  value2
                     value3

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                my-header1:value1 value2 value3
                x-amz-date:20150830T123600Z

                host;my-header1;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                e99419459a677bc11de234014be3c4e72c1ea5b454ceb58b613061f5d7a162e8
                """#,
            signature: "cfd34249e4b1c8d6b91ef74165d41a32e5fab3306300901bb65a51a73575eefd"),
        SigV4Vector(
            name: "get-header-value-order", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1:value4
                My-Header1:value1
                My-Header1:value3
                My-Header1:value2

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                my-header1:value4,value1,value3,value2
                x-amz-date:20150830T123600Z

                host;my-header1;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86
                """#,
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        SigV4Vector(
            name: "get-header-value-trim", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1: value1
                My-Header2: "a   b   c"

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                my-header1:value1
                my-header2:"a b c"
                x-amz-date:20150830T123600Z

                host;my-header1;my-header2;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7
                """#,
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        SigV4Vector(
            name: "get-relative-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /example/.. HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "get-relative-relative-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /example1/example2/../.. HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "get-relative-relative-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET /example1/example2/../.. HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example1/example2/../..

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                76115030c0f3ff06c20fdff5ceb6d5e0b835a1743e00b94fea7c7f381269437b
                """#,
            signature: "dc33e0856fd4baca4d7aa2146c38958283844764f38c74252a333df5e613003b"),
        SigV4Vector(
            name: "get-relative-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET /example/.. HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example/..

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                0511f456aa502b456d135fcb9d749374a55228f9dbeedda1eacf659e05b0615b
                """#,
            signature: "eca7ead57bb5aa5c8e28007acd4ff04e1ff9a0ff3b237ec1554a184887ff9282"),
        SigV4Vector(
            name: "get-slash-dot-slash-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /./ HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "get-slash-dot-slash-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET /./ HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /./

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                d67825e2268bd77a97c7688b8d72c31a3c1855b309808505ba0a9747d2465aa7
                """#,
            signature: "68714168e6557f8f2de0ef956fc24dc2593a4bd2961f8df51898d8a134695145"),
        SigV4Vector(
            name: "get-slash-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET // HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "get-slash-pointless-dot-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /./example HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                214d50c111a8edc4819da6a636336472c916b5240f51e9a51b5c3305180cf702
                """#,
            signature: "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"),
        SigV4Vector(
            name: "get-slash-pointless-dot-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET /./example HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /./example

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                73895e0e829507e28e39fd24669aedc2434a8e179e547e3c075b42921f952cdb
                """#,
            signature: "beb03f223f7deae4146464f06e29eebbee9c8afbe15c290cf07aa8b119e14cff"),
        SigV4Vector(
            name: "get-slash-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET // HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                //

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                80cb39203d058af815de2b79250ff56e1b73eb9b4718c86556cdc6f150c5d209
                """#,
            signature: "c88bcd3d312d75078c0cd961d6deae3f4c754924b01669efcfcb439fd5e5b76e"),
        SigV4Vector(
            name: "get-slashes-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET //example// HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example/

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                cb96b4ac96d501f7c5c15bc6d67b3035061cfced4af6585ad927f7e6c985c015
                """#,
            signature: "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
        SigV4Vector(
            name: "get-slashes-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET //example// HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                //example//

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                528ec3105ee1f34ab014bb0a1a45da0ed2742a4fea3555149e5b4d5d201eb240
                """#,
            signature: "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5"),
        SigV4Vector(
            name: "get-space-normalized", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /example space/ HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example%20space/

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86
                """#,
            signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        SigV4Vector(
            name: "get-space-unnormalized", normalize: false, signBody: false, sessionToken: nil,
            request: #"""
                GET /example space/ HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /example%20space/

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86
                """#,
            signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        SigV4Vector(
            name: "get-unreserved", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9
                """#,
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        SigV4Vector(
            name: "get-utf8", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /ሴ HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /%E1%88%B4

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102
                """#,
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        SigV4Vector(
            name: "get-vanilla-empty-query-key", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /?Param1=value1 HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /
                Param1=value1
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab
                """#,
            signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        SigV4Vector(
            name: "get-vanilla-query-order-encoded", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /?Param-3=Value3&Param=Value2&%E1%88%B4=Value1 HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /
                %E1%88%B4=Value1&Param=Value2&Param-3=Value3
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                868294f5c38bd141c4972a373a76654f1418a8e4fc18b2e7903ae45e8ae0ec71
                """#,
            signature: "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"),
        SigV4Vector(
            name: "get-vanilla-query-order-key-case", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /?Param2=value2&Param1=value1 HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /
                Param1=value1&Param2=value2
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0
                """#,
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        SigV4Vector(
            name: "get-vanilla-query-unreserved", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /
                -._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177
                """#,
            signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        SigV4Vector(
            name: "get-vanilla-query", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "get-vanilla-utf8-query", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET /?ሴ=bar HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /
                %E1%88%B4=bar
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073
                """#,
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        SigV4Vector(
            name: "get-vanilla-with-session-token", normalize: true, signBody: false,
            sessionToken: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267",
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z
                x-amz-security-token:6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267

                host;x-amz-date;x-amz-security-token
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                067b36aa60031588cea4a4cde1f21215227a047690c72247f1d70b32fbbfad2b
                """#,
            signature: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"),
        SigV4Vector(
            name: "get-vanilla", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                GET / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """#,
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SigV4Vector(
            name: "post-header-key-case", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                POST
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87
                """#,
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        SigV4Vector(
            name: "post-header-key-sort", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1:value1

                """#,
            canonicalRequest: #"""
                POST
                /

                host:example.amazonaws.com
                my-header1:value1
                x-amz-date:20150830T123600Z

                host;my-header1;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65
                """#,
            signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        SigV4Vector(
            name: "post-header-value-case", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Host:example.amazonaws.com
                My-Header1:VALUE1

                """#,
            canonicalRequest: #"""
                POST
                /

                host:example.amazonaws.com
                my-header1:VALUE1
                x-amz-date:20150830T123600Z

                host;my-header1;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                d51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93
                """#,
            signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        SigV4Vector(
            name: "post-sts-header-before", normalize: true, signBody: false,
            sessionToken:
                "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==",
            request: #"""
                POST / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                POST
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z
                x-amz-security-token:AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==

                host;x-amz-date;x-amz-security-token
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                c237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6
                """#,
            signature: "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"),
        SigV4Vector(
            name: "post-vanilla-empty-query-value", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST /?Param1=value1 HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                POST
                /
                Param1=value1
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd
                """#,
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        SigV4Vector(
            name: "post-vanilla-query", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST /?Param1=value1 HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                POST
                /
                Param1=value1
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd
                """#,
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        SigV4Vector(
            name: "post-vanilla", normalize: true, signBody: false, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Host:example.amazonaws.com

                """#,
            canonicalRequest: #"""
                POST
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87
                """#,
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        SigV4Vector(
            name: "post-x-www-form-urlencoded-parameters", normalize: true, signBody: true, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Content-Type:application/x-www-form-urlencoded; charset=utf-8
                Host:example.amazonaws.com
                Content-Length:13

                Param1=value1
                """#,
            canonicalRequest: #"""
                POST
                /

                content-length:13
                content-type:application/x-www-form-urlencoded; charset=utf-8
                host:example.amazonaws.com
                x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e
                x-amz-date:20150830T123600Z

                content-length;content-type;host;x-amz-content-sha256;x-amz-date
                9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                a89f1a5b53e37702ee6363ce1da3ce8f54386f3c8f352ae652153c2982a0bc4d
                """#,
            signature: "328d1b9eaadca9f5818ef05e8392801e091653bafec24fcab71e7344e7f51422"),
        SigV4Vector(
            name: "post-x-www-form-urlencoded", normalize: true, signBody: true, sessionToken: nil,
            request: #"""
                POST / HTTP/1.1
                Content-Type:application/x-www-form-urlencoded
                Host:example.amazonaws.com
                Content-Length:13

                Param1=value1
                """#,
            canonicalRequest: #"""
                POST
                /

                content-length:13
                content-type:application/x-www-form-urlencoded
                host:example.amazonaws.com
                x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e
                x-amz-date:20150830T123600Z

                content-length;content-type;host;x-amz-content-sha256;x-amz-date
                9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e
                """#,
            stringToSign: #"""
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                b1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb
                """#,
            signature: "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"),
    ]
}
