"""Tests of peers/compare.py on the small fixtures in peers/testdata, and of opencv_bench.py's
CPU-fallback rule (run by ctest peers_compare: `python3 -m unittest -v test_compare` in
peers/)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import opencv_bench  # noqa: E402 (numpy and cv2 only imported by its main())

DATA = os.path.join(HERE, "testdata")
OURS, NPP, OPENCV = (os.path.join(DATA, f) for f in ("ours.json", "npp.json", "opencv.json"))


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), *args],
                          capture_output=True, text=True, timeout=60)


def table_rows(text):
    """Markdown table rows as {first cell: [cells]} (the header and rule skipped)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| op |"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[(cells[0], cells[1])] = cells
    return rows


class ChainMapping(unittest.TestCase):
    def test_the_documented_pairs(self):
        cases = {
            "median=radius=1": "median3",
            "median": "median3",  # radius 1 by default
            "median=radius=2": "median5",
            "box=radius=1": "box3",
            "box=radius=5": "box11",
            "gaussian=sigma=2": "gauss_sigma2",
            "gaussian=sigma=2.0": "gauss_sigma2",
            "bilateral=radius=4": "bilateral_r4",
            "bilateral=sigma_s=2:sigma_r=0.1": "bilateral_r4",  # ceil(2 * 2) = 4
            "bilateral": "bilateral_r4",
            "demosaic": "demosaic",
            "demosaic=method=bilinear:pattern=rggb": "demosaic",
            "convert nv12": "nv12",
        }
        for chain, want in cases.items():
            with self.subTest(chain=chain):
                self.assertEqual(compare.op_for({"chain": chain}), want)

    def test_no_peer(self):
        for chain in ["median=radius=1,unsharp=sigma=1:amount=0.5",  # a chain, not one filter
                      "oilpaint=radius=4:levels=16", "box=radius=3", "gaussian=sigma=1.5",
                      "bilateral=sigma_s=3", "convert yuv420p", "sepia", ""]:
            with self.subTest(chain=chain):
                self.assertIsNone(compare.op_for({"chain": chain}))

    def test_filter_field_when_no_chain(self):
        self.assertEqual(compare.op_for({"filter": "median"}), "median3")
        self.assertEqual(compare.op_for({"filter": "convert", "chain": "nv12"}), "nv12")

    def test_escapes_follow_vfx_chain_syntax(self):
        self.assertEqual(compare.parse_chain(r"ccm=matrix=1\,5|0|0"),
                         ("ccm", {"matrix": "1,5|0|0"}))
        self.assertEqual(compare.parse_chain("box=radius=5:x=a\\:b"),
                         ("box", {"radius": "5", "x": "a:b"}))
        self.assertIsNone(compare.parse_chain("a,b"))


class Table(unittest.TestCase):
    def setUp(self):
        self.ours = compare.load(OURS)
        self.peers = [("npp", compare.load(NPP)), ("opencv", compare.load(OPENCV))]
        self.text = compare.build_table(self.ours, self.peers)
        self.rows = table_rows(self.text)

    def test_header_names_each_peer(self):
        self.assertIn("| op | size | ours ms | npp ms | opencv ms | npp/ours | opencv/ours | "
                      "notes |", self.text)

    def test_ratio_is_peer_over_ours(self):
        # ours 0.100, NPP 0.135, OpenCV 0.205: above 1, we are faster
        row = self.rows[("`median=radius=1`", "3840x2160")]
        self.assertEqual(row[2:7], ["0.1000", "0.1350", "0.2050", "1.35×", "2.05×"])
        # ours 0.040, NPP RGBA demosaic 0.036: below 1, NPP is faster
        row = self.rows[("`demosaic=method=mhc:pattern=rggb`", "3840x2160")]
        self.assertEqual(row[5], "0.90×")

    def test_sizes_are_matched(self):
        # NPP has box11 at 1080p only; ours box=radius=5 is at 1080p
        row = self.rows[("`box=radius=5`", "1920x1080")]
        self.assertEqual(row[3], "0.2000")
        self.assertEqual(row[5], "4.00×")

    def test_missing_peer_is_a_dash(self):
        row = self.rows[("`median=radius=2`", "3840x2160")]
        self.assertEqual(row[4], "—")
        self.assertEqual(row[6], "—")
        row = self.rows[("`oilpaint=radius=4:levels=16`", "3840x2160")]
        self.assertEqual(row[3:7], ["—", "—", "—", "—"])
        self.assertIn("no peer", row[7])

    def test_rgba_variant_preferred_and_rgb_noted(self):
        row = self.rows[("`demosaic=method=mhc:pattern=rggb`", "3840x2160")]
        self.assertEqual(row[3], "0.0360")  # cfa_rgba, not cfa_rgb (0.033)
        self.assertIn("ours MHC", row[7])
        row = self.rows[("`convert nv12`", "3840x2160")]
        self.assertEqual(row[3], "0.0450")  # NPP has only nv12_rgb in the fixture
        self.assertIn("npp on RGB8", row[7])
        self.assertEqual(row[4], "0.1270")  # OpenCV's nv12_rgba

    def test_cpu_fallback_is_marked(self):
        row = self.rows[("`gaussian=sigma=2`", "3840x2160")]
        self.assertEqual(row[4], "5.900*")
        self.assertEqual(row[6], "73.75×*")
        self.assertIn("opencv ran on the CPU", row[7])

    def test_copy_bandwidth_line(self):
        self.assertIn("vfx (OpenCL copy) 3100 GB/s", self.text)
        self.assertIn("npp 3840x2160 3130 GB/s", self.text)

    def test_all_adds_peer_only_rows(self):
        self.assertNotIn(("npp:gauss5", "3840x2160"), self.rows)
        rows = table_rows(compare.build_table(self.ours, self.peers, include_all=True))
        self.assertEqual(rows[("npp:gauss5", "3840x2160")][3], "0.1070")
        self.assertNotIn(("npp:median3", "3840x2160"), rows)  # already beside ours

    def test_other_device_warns(self):
        other = json.loads(json.dumps(self.peers[0][1]))
        other["device"] = "NVIDIA H100 80GB HBM3"
        text = compare.build_table(self.ours, [("npp", other)])
        self.assertIn("**Warning:** npp ran on NVIDIA H100 80GB HBM3", text)


class CommandLine(unittest.TestCase):
    def test_prints_and_writes_the_table(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "table.md")
            p = run_cli(OURS, NPP, OPENCV, "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertEqual(f.read(), p.stdout)
        self.assertIn("| `median=radius=1` | 3840x2160 | 0.1000 | 0.1350 | 0.2050 |", p.stdout)

    def test_peer_name_from_results_when_top_level_missing(self):
        doc = compare.load(NPP)
        del doc["peer"]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "npp.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            p = run_cli(OURS, path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("npp ms", p.stdout)

    def test_bad_inputs_give_one_line_and_status_1(self):
        with tempfile.TemporaryDirectory() as d:
            garbage = os.path.join(d, "garbage.json")
            with open(garbage, "w", encoding="utf-8") as f:
                f.write("{not json")
            noresults = os.path.join(d, "noresults.json")
            with open(noresults, "w", encoding="utf-8") as f:
                json.dump({"device": "x"}, f)
            badms = os.path.join(d, "badms.json")
            with open(badms, "w", encoding="utf-8") as f:
                json.dump({"peer": "npp", "results": [{"op": "box3", "size": "8x8",
                                                       "ms_median": 0}]}, f)
            nopeer = os.path.join(d, "nopeer.json")
            with open(nopeer, "w", encoding="utf-8") as f:
                json.dump({"results": [{"op": "box3", "size": "8x8", "ms_median": 1}]}, f)
            cases = [((os.path.join(d, "missing.json"), NPP), "cannot read"),
                     ((garbage, NPP), "not valid JSON"),
                     ((noresults, NPP), "no \"results\" list"),
                     ((OURS, badms), "no positive ms_median"),
                     ((OURS, nopeer), "no \"peer\" field")]
            for args, want in cases:
                with self.subTest(want=want):
                    p = run_cli(*args)
                    self.assertEqual(p.returncode, 1)
                    self.assertEqual(p.stdout, "")
                    lines = p.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn(want, lines[0])
                    self.assertTrue(lines[0].startswith("compare.py: "))

    def test_needs_a_peer(self):
        p = run_cli(OURS)
        self.assertEqual(p.returncode, 2)  # argparse usage error
        self.assertIn("usage:", p.stderr)


class PeerOpChoice(unittest.TestCase):
    def test_a_gpu_run_is_preferred_to_a_cpu_fallback(self):
        with open(OURS, encoding="utf-8") as f:
            ours = json.load(f)
        peer = {"peer": "opencv", "device": ours.get("device"), "results": [
            {"peer": "opencv", "op": "gauss_sigma2", "size": "3840x2160", "format": "rgba8",
             "ms_median": 6.5, "cpu_fallback": True},
            {"peer": "opencv", "op": "gauss_sigma2_sep", "size": "3840x2160", "format": "rgba8",
             "ms_median": 0.25, "cpu_fallback": False}]}
        row = table_rows(compare.build_table(ours, [("opencv", peer)]))[
            ("`gaussian=sigma=2`", "3840x2160")]
        self.assertEqual(row[3], "0.2500")
        self.assertNotIn("*", row[4])
        self.assertIn("opencv: sepFilter2D with the same taps", row[5])
        self.assertNotIn("ran on the CPU", row[5])
        # The op not chosen has a counterpart of ours: --all does not list it as peer only.
        rows = table_rows(compare.build_table(ours, [("opencv", peer)], include_all=True))
        self.assertNotIn(("opencv:gauss_sigma2", "3840x2160"), rows)


class OpenCvFallbackRule(unittest.TestCase):
    """Figures of the H100 run of 2026-11-26 (benchmarks/2026-11-26-h100-s7/final/opencv.json)."""

    def test_gpu_runs_that_kept_the_host_busy_are_not_fallbacks(self):
        # NV12 -> RGBA at 4K: 0.040 ms against the CPU's 0.59, with 2.6 host cores busy.
        self.assertEqual(opencv_bench.fallback_reasons(True, 0.0401, 0.59), [])
        self.assertEqual(opencv_bench.fallback_reasons(True, 0.0305, 1.623), [])  # median 3x3

    def test_a_run_no_faster_than_the_cpu_is_a_fallback(self):
        # GaussianBlur 13x13 at 4K: 7.98 ms against the CPU's 9.32 (the CPU code plus copies).
        reasons = opencv_bench.fallback_reasons(True, 7.98, 9.32)
        self.assertEqual(len(reasons), 1)
        self.assertIn("not at least twice as fast", reasons[0])
        self.assertTrue(opencv_bench.fallback_reasons(True, 9.70, 0.469))  # Bayer -> RGBA

    def test_opencl_not_in_use(self):
        self.assertIn("OpenCL not in use", opencv_bench.fallback_reasons(False, 0.01, 1.0))


if __name__ == "__main__":
    unittest.main()
