"""Prints one JSON line: how many items of a relay SQLite file have a partition key starting with PREFIX,
every one the file holds (`all`) and those not yet expired (`live`).

Usage: python3 sqlite_prefix_count.py PATH PREFIX
"""

import json
import sqlite3
import sys
import time

connection = sqlite3.connect(sys.argv[1], timeout=10)
pattern = sys.argv[2].replace("%", "").replace("_", "") + "%"
every = connection.execute("SELECT count(*) FROM items WHERE pk LIKE ?", (pattern,)).fetchone()[0]
live = connection.execute(
    "SELECT count(*) FROM items WHERE pk LIKE ? AND (expires_at IS NULL OR expires_at > ?)",
    (pattern, int(time.time())),
).fetchone()[0]
print(json.dumps({"all": every, "live": live}))
