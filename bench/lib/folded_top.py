"""Summarises a folded-stacks profile (py-spy --format raw: `frame;frame;… count` per line):
the functions with the most samples, inclusive (anywhere on the stack) and exclusive (on top).

    python3 bench/lib/folded_top.py FILE [LIMIT]
"""

import collections
import sys

path = sys.argv[1]
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 40
inclusive, exclusive, total = collections.Counter(), collections.Counter(), 0
for line in open(path):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    if not stack or not count.isdigit():
        continue
    samples = int(count)
    total += samples
    frames = [frame for frame in stack.split(";") if not frame.startswith("process ")]
    for frame in set(frames):
        inclusive[frame] += samples
    if frames:
        exclusive[frames[-1]] += samples
print(f"{total} samples")
print("inclusive:")
for frame, samples in inclusive.most_common(limit):
    print(f"  {100 * samples / total:5.1f}%  {frame[:160]}")
print("exclusive:")
for frame, samples in exclusive.most_common(limit):
    print(f"  {100 * samples / total:5.1f}%  {frame[:160]}")
