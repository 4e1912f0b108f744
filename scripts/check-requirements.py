"""Exit 0 when every pinned requirement in the given file is installed at that version."""
import sys
from importlib import metadata

missing = []
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line or "==" not in line:
        continue
    name, version = line.split("==", 1)
    name = name.split("[", 1)[0]
    try:
        if metadata.version(name) != version:
            missing.append(line)
    except metadata.PackageNotFoundError:
        missing.append(line)
if missing:
    print("missing: " + ", ".join(missing))
    sys.exit(1)
