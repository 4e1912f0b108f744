"""Lists the task-frame size of every async function in a Swift binary, largest first.

    python3 bench/lib/async_frames.py .build/release/mustdo-relay [NAME-PART] [MINIMUM-BYTES]
    python3 bench/lib/async_frames.py .build/release/mustdo-relay GrantSession 0

Why: a task's frames come from its allocator's slabs of 984 bytes; a frame larger than that gets a
slab of its own, a `malloc` of the frame's size on every call (over 1,032 bytes, glibc's slow
path). `bench/counts` with `EVENTS=probe_libc:malloc_large` counts them; this says which
functions they are, without running anything.

How: the compiler emits, for each async function, an "async function pointer" (mangled name
ending in `Tu`): a 32-bit relative offset to the code, then the 32-bit size of the function's
context (its frame). The symbol table gives the pointer's address, the section headers its place
in the file. Names are demangled by `swift demangle --simplified`. Inlined functions have no
pointer of their own: their locals are in their caller's frame.
"""

import re
import struct
import subprocess
import sys


def sections(binary):
    """(address, file offset, size) of each section that has bytes in the file."""
    listing = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if match and match.group(2) != "NOBITS":
            found.append((int(match.group(3), 16), int(match.group(4), 16), int(match.group(5), 16)))
    return found


def frame_sizes(binary):
    """[(frame bytes, mangled name)] of every async function pointer in the binary."""
    data = open(binary, "rb").read()
    spans = sections(binary)
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    sizes = []
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[2].endswith("Tu"):
            continue
        address = int(parts[0], 16)
        for start, offset, size in spans:
            if start <= address < start + size:
                _, context_size = struct.unpack_from("<iI", data, offset + address - start)
                sizes.append((context_size, parts[2]))
                break
    return sizes


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n", 2)[1], file=sys.stderr)
        return 2
    binary = argv[1]
    part = argv[2] if len(argv) > 2 else ""
    minimum = int(argv[3]) if len(argv) > 3 else 984
    sizes = frame_sizes(binary)
    demangled = subprocess.run(
        ["swift", "demangle", "--simplified"], input="\n".join(name for _, name in sizes),
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    rows = sorted(
        ((size, name.removeprefix("async function pointer to ")) for (size, _), name in zip(sizes, demangled)),
        reverse=True,
    )
    for size, name in rows:
        if size >= minimum and part in name:
            print(f"{size:6d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
