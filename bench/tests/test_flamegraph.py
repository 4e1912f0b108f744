"""bench/lib/flamegraph.py: widths follow the samples, callers sit under callees, both inputs."""

import importlib.util
import io
import pathlib
import unittest
import xml.etree.ElementTree as ElementTree

SPEC = importlib.util.spec_from_file_location(
    "flamegraph", pathlib.Path(__file__).resolve().parents[1] / "lib" / "flamegraph.py"
)
flamegraph = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(flamegraph)
SVG = "{http://www.w3.org/2000/svg}"

# Three samples on one thread, innermost frame first, as `perf script` writes them: two in malloc
# under handle (one through libc's slow path), one in the kernel's send under flush.
PERF_SCRIPT = """relay-loop-0  7668   698.752857:    2004008 cpu-clock:ppp:
\t           144c3 malloc+0x13 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          2d4c5e Handler.handle(_:)+0x2be (/work/.build/release/mustdo-relay)
\t          e33d3 EventLoop.run()+0x2b3 (/work/.build/release/mustdo-relay)

relay-loop-0  7668   698.754857:    2004008 cpu-clock:ppp:
\t           14400 _int_malloc+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t           144c3 malloc+0x13 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          2d4c5e Handler.handle(_:)+0x2be (/work/.build/release/mustdo-relay)
\t          e33d3 EventLoop.run()+0x2b3 (/work/.build/release/mustdo-relay)

relay-loop-0  7668   698.756857:    2004008 cpu-clock:ppp:
\tffffffff8204a87c tcp_sendmsg+0x2c ([kernel.kallsyms])
\t          2d4c00 Connection.flush()+0x10 (/work/.build/release/mustdo-relay)
\t          46d7dd swift_retain+0x2d (/opt/swift/usr/lib/swift/linux/libswiftCore.so)
\t          e33d3 EventLoop.run()+0x2b3 (/work/.build/release/mustdo-relay)
"""

FOLDED = """process 1:main (peer.py:10);handle (peer.py:20);post (aiohttp/site-packages/client.py:5) 3
process 1:main (peer.py:10);handle (peer.py:20);loads (/usr/lib/python3.11/json/__init__.py:346) 1
"""


def draw(text, title="t"):
    out = io.StringIO()
    status = flamegraph.main(["--title", title], stdin=io.StringIO(text), stdout=out)
    return status, out.getvalue()


def boxes(svg):
    """name -> (x, y, width, fill) of every drawn box, from the SVG as a browser would read it."""
    found = {}
    for group in ElementTree.fromstring(svg).iter(SVG + "g"):
        name = group.find(SVG + "title").text.rsplit(" (", 1)[0]
        rect = group.find(SVG + "rect")
        found[name] = (float(rect.get("x")), float(rect.get("y")), float(rect.get("width")), rect.get("fill"))
    return found


class FlameGraphTests(unittest.TestCase):
    def test_perf_script_widths_and_stacking(self):
        status, svg = draw(PERF_SCRIPT, title="relay & peers <TLS>")
        self.assertEqual(status, 0)
        drawn = boxes(svg)
        base = drawn["relay-loop-0"]
        self.assertAlmostEqual(drawn["EventLoop.run()"][2], base[2])
        self.assertAlmostEqual(drawn["Handler.handle(_:)"][2], base[2] * 2 / 3, places=1)
        self.assertAlmostEqual(drawn["_int_malloc"][2], base[2] / 3, places=1)
        self.assertAlmostEqual(drawn["tcp_sendmsg"][2], base[2] / 3, places=1)
        # Callees are drawn above (smaller y) their callers; offsets (+0x…) are not part of names.
        self.assertLess(drawn["malloc"][1], drawn["Handler.handle(_:)"][1])
        self.assertLess(drawn["Handler.handle(_:)"][1], drawn["EventLoop.run()"][1])
        self.assertLess(drawn["_int_malloc"][1], drawn["malloc"][1])
        # Siblings in name order: Handler… left of swift_retain, and they do not overlap.
        handle, retain = drawn["Handler.handle(_:)"], drawn["swift_retain"]
        self.assertLessEqual(handle[0] + handle[2], retain[0] + 0.01)
        # Colours by where the code lives.
        self.assertTrue(drawn["tcp_sendmsg"][3].startswith("rgb(245,"))  # kernel
        self.assertNotEqual(drawn["malloc"][3], drawn["Handler.handle(_:)"][3])
        self.assertIn("relay &amp; peers &lt;TLS&gt;", svg)
        self.assertIn("3 samples", svg)

    def test_folded_stacks(self):
        status, svg = draw(FOLDED)
        self.assertEqual(status, 0)
        drawn = boxes(svg)
        base = drawn["process 1:main (peer.py:10)"]
        self.assertAlmostEqual(drawn["post (aiohttp/site-packages/client.py:5)"][2], base[2] * 3 / 4, places=1)
        self.assertAlmostEqual(drawn["loads (/usr/lib/python3.11/json/__init__.py:346)"][2], base[2] / 4, places=1)
        # Installed packages are libraries, the standard library is the runtime, the rest the program.
        self.assertEqual(flamegraph.python_kind("post (aiohttp/site-packages/client.py:5)"), "clib")
        self.assertEqual(flamegraph.python_kind("loads (/usr/lib/python3.11/json/__init__.py:346)"), "runtime")
        self.assertEqual(flamegraph.python_kind("handle (peer.py:20)"), "program")
        # As py-spy writes them: paths relative to where each module was found.
        self.assertEqual(flamegraph.python_kind("run (asyncio/runners.py:118)"), "runtime")
        self.assertEqual(flamegraph.python_kind("run (uvicorn/server.py:86)"), "clib")
        self.assertEqual(flamegraph.python_kind("get_me (peer_relay.py:210)"), "program")

    def test_long_names_are_cut_to_fit_and_narrow_boxes_dropped(self):
        lines = ["main;" + "x" * 300 + " 10000", "main;tiny 1"]
        status, svg = draw("\n".join(lines) + "\n")
        self.assertEqual(status, 0)
        root = ElementTree.fromstring(svg)
        texts = [text.text for text in root.iter(SVG + "text")]
        self.assertTrue(any(text.endswith("..") and len(text) < 300 for text in texts if text.startswith("xx")))
        self.assertNotIn("tiny", boxes(svg))  # 1 of 10,001 samples is under a pixel wide at 1,200

    def test_no_samples_is_an_error(self):
        status, svg = draw("")
        self.assertEqual(status, 1)
        self.assertEqual(svg, "")


if __name__ == "__main__":
    unittest.main()
