"""bench/lib/async_frames.py reads the frame sizes the compiler wrote: a function that keeps 128
bytes across an await has a frame of at least that, one that keeps an integer a small one."""

import contextlib
import importlib.util
import io
import pathlib
import shutil
import subprocess
import tempfile
import unittest

SPEC = importlib.util.spec_from_file_location(
    "async_frames", pathlib.Path(__file__).resolve().parents[1] / "lib" / "async_frames.py"
)
async_frames = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(async_frames)

PROGRAM = """
@inline(never) func checksum(_ bytes: UnsafeRawBufferPointer) -> Int { bytes.reduce(0) { $0 &* 31 &+ Int($1) } }
@inline(never) func holdsBlock(_ seed: Int) async -> Int {
    var block: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        seed, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    var total = withUnsafeBytes(of: &block) { checksum($0) }
    await Task.yield()
    total &+= withUnsafeBytes(of: &block) { checksum($0) }
    return total
}
@inline(never) func holdsInteger(_ seed: Int) async -> Int {
    await Task.yield()
    return seed &+ 1
}
@main struct Main {
    static func main() async { print(await holdsBlock(CommandLine.arguments.count) + (await holdsInteger(2))) }
}
"""


class AsyncFramesTests(unittest.TestCase):
    def test_frame_sizes_of_a_compiled_program(self):
        swiftc = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
        with tempfile.TemporaryDirectory() as folder:
            source, binary = pathlib.Path(folder, "frames.swift"), pathlib.Path(folder, "frames")
            source.write_text(PROGRAM)
            subprocess.run([swiftc, "-O", "-parse-as-library", str(source), "-o", str(binary)], check=True)
            sizes = {}
            for size, name in async_frames.frame_sizes(str(binary)):
                if "holdsBlock" in name:
                    sizes["block"] = size
                elif "holdsInteger" in name:
                    sizes["integer"] = size
            self.assertGreaterEqual(sizes["block"], 128)  # the 16 integers kept across the await
            self.assertLess(sizes["integer"], 128)
            # The listing: demangled, filtered by name part and minimum size.
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                async_frames.main(["async_frames.py", str(binary), "holds", "0"])
            lines = printed.getvalue().splitlines()
            self.assertEqual(lines[0].split(), [str(sizes["block"]), "holdsBlock(_:)"])
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                async_frames.main(["async_frames.py", str(binary), "holds"])  # default minimum: 984 bytes
            self.assertEqual(printed.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
