"""Creates the peer's SQLite database with COUNT grants and prints one bearer token per line.

    PEER_DB=… PEER_SECRETS=… PEER_URL=… PEER_CLOUDKIT_URL=… PEER_CLOUDKIT_API_TOKEN_FILE=… \
        python provision.py COUNT [PREFIX]

Each grant is a real CloudKit session: the Apple ID PREFIX<i>@example.com signs in at the emulator
(control API, the same sign-in the relay's OAuth flow ends with) and gets an Account record; its
web auth token is sealed with AES-256-GCM under the peer's key, and a random access token is
stored by its peppered hash, like a token endpoint would.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from oauth_client import seed_account  # noqa: E402

SCHEMA = """
CREATE TABLE IF NOT EXISTS grants (
    id TEXT PRIMARY KEY, client_id TEXT NOT NULL, user_record TEXT NOT NULL, sealed BLOB NOT NULL,
    version INTEGER NOT NULL, state TEXT NOT NULL, ends_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
    hash BLOB PRIMARY KEY, grant_id TEXT NOT NULL, scopes TEXT NOT NULL, resource TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
"""


def main() -> None:
    count = int(sys.argv[1])
    prefix = sys.argv[2] if len(sys.argv) > 2 else "peer"
    secrets_file = os.environ["PEER_SECRETS"]
    if not os.path.exists(secrets_file):
        with open(os.open(secrets_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as file:
            file.write(os.urandom(64))
    import peer_relay  # reads the settings and the secrets just written

    emulator = os.environ["PEER_CLOUDKIT_URL"]
    db = sqlite3.connect(os.environ["PEER_DB"], isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    now = int(time.time())
    for index in range(count):
        apple_id = f"{prefix}{index}@example.com"
        request = urllib.request.Request(
            f"{emulator}/control/users/{urllib.parse.quote(apple_id, safe='')}/sessions",
            data=b'{"keepSignedIn":true}',
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            session = json.loads(response.read())
        seed_account(emulator, apple_id)
        grant_id = secrets.token_urlsafe(16)
        token = "peer_at_" + secrets.token_urlsafe(32)
        db.execute(
            "INSERT INTO grants VALUES (?, ?, ?, ?, 1, 'active', ?)",
            (grant_id, "bench-client", session["userRecordName"], peer_relay.seal(session["webAuthToken"], grant_id),
             now + 90 * 86400),
        )
        db.execute(
            "INSERT INTO tokens VALUES (?, ?, ?, ?, ?)",
            (peer_relay.token_hash(token), grant_id, "todos:read todos:write", peer_relay.RESOURCE, now + 86400),
        )
        print(token)


if __name__ == "__main__":
    main()
