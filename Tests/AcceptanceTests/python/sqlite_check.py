"""Prints one JSON line about a relay SQLite file: PRAGMA integrity_check and how many grants it holds.

Usage: python3 sqlite_check.py PATH
"""

import json
import sqlite3
import sys

connection = sqlite3.connect(sys.argv[1], timeout=10)
integrity = [row[0] for row in connection.execute("PRAGMA integrity_check")]
grants = connection.execute("SELECT count(*) FROM items WHERE pk LIKE 'GRANT#%' AND sk = 'META'").fetchone()[0]
print(json.dumps({"integrity": integrity, "grants": grants}))
