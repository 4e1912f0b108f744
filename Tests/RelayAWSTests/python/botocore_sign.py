"""Signs one request with botocore's SigV4Auth at a fixed time and prints what it produced.

Input on stdin (JSON): method, url, headers ([[name, value], ...]), body (base64), accessKeyID,
secret, token (or null), region, service, epochSeconds. Output on stdout (JSON): canonicalRequest,
stringToSign and the request's headers after add_auth.
"""

import base64
import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

spec = json.load(sys.stdin)
fixed = datetime.datetime.fromtimestamp(spec["epochSeconds"], datetime.timezone.utc).replace(tzinfo=None)
botocore.auth.get_current_datetime = lambda *args, **kwargs: fixed


class RecordingSigV4Auth(botocore.auth.SigV4Auth):
    def canonical_request(self, request):
        self.recorded_canonical_request = super().canonical_request(request)
        return self.recorded_canonical_request

    def string_to_sign(self, request, canonical_request):
        self.recorded_string_to_sign = super().string_to_sign(request, canonical_request)
        return self.recorded_string_to_sign


request = AWSRequest(
    method=spec["method"],
    url=spec["url"],
    data=base64.b64decode(spec["body"]),
    headers={name: value for name, value in spec["headers"]},
)
signer = RecordingSigV4Auth(
    Credentials(spec["accessKeyID"], spec["secret"], spec["token"]), spec["service"], spec["region"]
)
signer.add_auth(request)
print(
    json.dumps(
        {
            "canonicalRequest": signer.recorded_canonical_request,
            "stringToSign": signer.recorded_string_to_sign,
            "headers": {name: value for name, value in request.headers.items()},
        }
    )
)
