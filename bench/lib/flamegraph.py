"""Draws a flame graph (an SVG picture) from sampled call stacks.

    perf script -i perf.data | swift demangle --simplified | python3 bench/lib/flamegraph.py --title T >out.svg
    python3 bench/lib/flamegraph.py --title T <profile.folded >out.svg     # py-spy --format raw

Input is either `perf script` text (a header line per sample, then one frame per line, innermost
first, a blank line after the sample) or folded stacks (`outer;…;inner count` per line, as py-spy's
raw format writes them); perf script's indented frame lines tell the two apart. Each box is one function
on a stack, its width the share of samples with that stack below it; the bottom row is the whole
process, callers sit under their callees, siblings are in name order (a flame graph, not a time
line: left to right means nothing). Hovering over a box shows its name, samples and share of all.

Colours say where the code lives, so a glance tells the program's own work from the rest: the
kernel orange, libraries yellow (C libraries such as libc, libcrypto, nghttp2, SQLite; for Python,
installed packages), the language runtime blue-green (the Swift runtime and Foundation; Python's
standard library), the program itself red, each shade fixed by the name's hash so the same
function keeps its colour from one picture to the next.

The layout follows Brendan Gregg's flame graphs (https://www.brendangregg.com/flamegraphs.html);
this is a separate, small implementation (no JavaScript, nothing fetched).
"""

import argparse
import html
import re
import sys
import zlib

FRAME_HEIGHT = 16
FONT_SIZE = 11
CHAR_WIDTH = FONT_SIZE * 0.59  # average width of a character of the monospace font at FONT_SIZE
MIN_WIDTH = 1.0  # pixels; narrower boxes are not drawn (their samples still count in their caller)
TOP_MARGIN = 40
BOTTOM_MARGIN = 24
SIDE_MARGIN = 10

# `perf script` frame line: address, symbol (+offset), then the object in parentheses.
PERF_FRAME = re.compile(r"^\s*[0-9a-f]+\s+(?P<symbol>.*?)(?:\+0x[0-9a-f]+)?\s+\((?P<object>[^()]*)\)\s*$")


class Node:
    __slots__ = ("name", "kind", "samples", "children")

    def __init__(self, name, kind):
        self.name, self.kind, self.samples, self.children = name, kind, 0, {}

    def child(self, name, kind):
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name, kind)
        return node


def kind_of(obj):
    """Which family of colours a frame gets, from the object it was sampled in."""
    if obj.startswith("[kernel"):
        return "kernel"
    base = obj.rsplit("/", 1)[-1]
    if base.startswith(("libswift", "libFoundation", "libdispatch", "libBlocksRuntime")):
        return "runtime"
    if base.startswith("lib") or base.startswith("ld-linux"):
        return "clib"
    return "program"


def add_stack(root, frames, samples):
    """frames: outermost first, as (name, kind) pairs."""
    root.samples += samples
    node = root
    for name, kind in frames:
        node = node.child(name, kind)
        node.samples += samples


def read_perf_script(lines, root):
    frames, header = [], None
    for line in lines + [""]:
        if not line.strip():
            if header is not None:
                add_stack(root, [(header, "program")] + frames[::-1], 1)
            frames, header = [], None
            continue
        if header is None:
            # "comm tid [cpu] time: period event:" - the thread's name leads: each thread is a
            # base of its own.
            header = line.split(None, 1)[0]
            continue
        match = PERF_FRAME.match(line)
        if match is None:
            continue
        symbol, obj = match.group("symbol"), match.group("object")
        if symbol == "[unknown]":
            symbol = "[unknown in " + obj.rsplit("/", 1)[-1] + "]"
        frames.append((symbol, kind_of(obj)))


def read_folded(lines, root):
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        add_stack(root, [(frame, python_kind(frame)) for frame in stack.split(";")], int(count))


def python_kind(frame):
    """py-spy frames read `function (path:line)`, the path relative to where the module was found:
    the standard library's modules are the runtime, other packages (a folder in the path, or
    site-packages) are libraries, and a lone file (the server's own module) is the program."""
    match = re.search(r"\(([^()]*?)(?::\d+)?\)$", frame)
    path = match.group(1) if match else ""
    top = path.split("/", 1)[0].removesuffix(".py")
    if "site-packages/" in path:
        return "clib"
    if top in sys.stdlib_module_names or re.search(r"/lib/python3\.\d+/", path):
        return "runtime"
    if "/" in path:
        return "clib"
    return "program"


def colour(kind, name):
    shade = zlib.crc32(name.encode()) / 0xFFFFFFFF
    if kind == "kernel":
        return f"rgb(245,{int(150 + 40 * shade)},{int(40 + 30 * shade)})"
    if kind == "clib":
        return f"rgb({int(215 + 20 * shade)},{int(205 + 30 * shade)},{int(60 + 50 * shade)})"
    if kind == "runtime":
        return f"rgb({int(70 + 60 * shade)},{int(175 + 45 * shade)},{int(185 + 40 * shade)})"
    return f"rgb({int(205 + 30 * shade)},{int(55 + 60 * shade)},{int(45 + 35 * shade)})"


LEGEND = "red: the program  yellow: libraries  blue-green: language runtime  orange: kernel"


def depth_of(node):
    return 1 + max((depth_of(child) for child in node.children.values()), default=0)


def render(root, title, width, subtitle):
    depth = depth_of(root)
    height = TOP_MARGIN + depth * FRAME_HEIGHT + BOTTOM_MARGIN
    scale = (width - 2 * SIDE_MARGIN) / root.samples
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="{FONT_SIZE}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="rgb(248,248,242)"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="15">{html.escape(title)}</text>',
        f'<text x="{width / 2}" y="33" text-anchor="middle" fill="rgb(90,90,90)">{html.escape(subtitle)}</text>',
    ]

    def draw(node, x, level):
        box = node.samples * scale
        if box < MIN_WIDTH:
            return
        y = height - BOTTOM_MARGIN - (level + 1) * FRAME_HEIGHT
        share = 100 * node.samples / root.samples
        label = f"{node.name} ({node.samples} samples, {share:.2f}%)"
        out.append(f"<g><title>{html.escape(label)}</title>")
        out.append(
            f'<rect x="{x:.1f}" y="{y}" width="{box:.1f}" height="{FRAME_HEIGHT - 1}" '
            f'fill="{colour(node.kind, node.name)}" rx="2"/>'
        )
        fits = int((box - 6) / CHAR_WIDTH)
        if fits >= 3:
            text = node.name if len(node.name) <= fits else node.name[: fits - 2] + ".."
            out.append(f'<text x="{x + 3:.1f}" y="{y + FRAME_HEIGHT - 4}">{html.escape(text)}</text>')
        out.append("</g>")
        for name in sorted(node.children):
            child = node.children[name]
            draw(child, x, level + 1)
            x += child.samples * scale

    draw(root, SIDE_MARGIN, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None, stdin=None, stdout=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--title", default="Flame graph")
    parser.add_argument("--subtitle", default="")
    parser.add_argument("--width", type=int, default=1200)
    args = parser.parse_args(argv)
    lines = (stdin or sys.stdin).read().splitlines()
    # perf script indents its frame lines; folded stacks have none.
    folded = not any(line[:1].isspace() for line in lines if line.strip())
    root = Node("all", "program")
    (read_folded if folded else read_perf_script)(lines, root)
    if root.samples == 0:
        print("flamegraph: no samples in the input", file=sys.stderr)
        return 1
    if len(root.children) == 1:  # one process: its name is the base
        root = next(iter(root.children.values()))
    subtitle = (args.subtitle + "; " if args.subtitle else "") + f"{root.samples} samples; {LEGEND}"
    (stdout or sys.stdout).write(render(root, args.title, args.width, subtitle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
