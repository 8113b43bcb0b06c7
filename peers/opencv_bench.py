#!/usr/bin/env python3
"""Times OpenCV's OpenCL path (the T-API, cv2.UMat) on the operations `vfx bench` measures.

    peers/opencv_bench.py [--size WxH]... [--json FILE] [--runs N] [--warmup N]
                          [--batch N] [--batches N] [--ops LIST] [--input random|image]
                          [--cpu-runs N] [--allow-cpu]

OpenCV's Python binding exposes no OpenCL event profiling (its queue is created without
profiling and cv2 has no event objects), so kernel time cannot be read directly. Two wall-clock
measures are taken instead, both bracketed by cv2.ocl.finish():
  per call  finish; t0; op; finish; t1 -- one sample per call; includes Python, the binding
            and OpenCV's enqueue overhead (some tens of microseconds) on top of the kernel.
  batch     finish; t0; op x N; finish; t1, divided by N -- amortises the finish and the Python
            loop; still includes OpenCV's per-call host work, which a user of OpenCV also pays.
ms_median/ms_min/ms_p90 are the batch figures (the closer one to kernel time); the per-call
ones are kept as ms_*_call.

OpenCV silently falls back to its CPU code when its OpenCL path declines an operation (an
unsupported type, border or size). Each operation is therefore also run with OpenCL switched
off, on host arrays, and flagged `cpu_fallback` when the OpenCL run is not at least twice as
fast as that CPU run: a fallback on UMats runs the same CPU code and, on a discrete GPU, also
copies the frame to the host and the result back, so it can never beat the CPU run. How many
host cores were busy during the OpenCL run is reported (`host_cores_busy`) but is no sign of a
fallback: NVIDIA's clFinish spins, its driver has threads of its own, and short kernels leave
the Python loop that enqueues them busy. The flag is meant for a discrete GPU; on a CPU OpenCL
device (PoCL) it fires for everything and says so.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

np = cv2 = None  # imported by main(), so that the rules below can be tested without them


def import_modules():
    global np, cv2
    try:
        import numpy as np
    except ImportError:
        sys.exit("opencv_bench.py: numpy is missing (python3 -m pip install numpy)")
    try:
        import cv2
    except ImportError:
        sys.exit("opencv_bench.py: cv2 is missing (python3 -m pip install "
                 "opencv-python-headless)")


def fail(msg):
    print(f"opencv_bench.py: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH, got '{text}'") from None
    if not (16 <= w <= 16384 and 16 <= h <= 16384) or w % 2 or h % 2:
        raise argparse.ArgumentTypeError(f"expected even W, H in 16..16384, got '{text}'")
    return w, h


def bayer_code(name_new, name_old):
    # OpenCV 4.x names Bayer conversions by the 2x2 block at (1,1) (BayerBG = an RGGB sensor);
    # newer versions also have the sensor-order aliases (BayerRGGB). Same code either way.
    return getattr(cv2, name_new, None) or getattr(cv2, name_old)


# Each op: (name, format, note, input kind, output channels, bytes per pixel in+out, function).
# The functions take (src, dst) and write into dst (preallocated, so no allocation is timed).
def make_ops():
    REPLICATE = cv2.BORDER_REPLICATE  # noqa: N806 (a constant of cv2)
    GAUSS13 = cv2.getGaussianKernel(13, 2.0, cv2.CV_32F)  # noqa: N806
    rggb_rgba = bayer_code("COLOR_BayerRGGB2RGBA", "COLOR_BayerBG2RGBA")
    rggb_rgb = bayer_code("COLOR_BayerRGGB2RGB", "COLOR_BayerBG2RGB")
    return [
        ("median3", "rgba8", "cv2.medianBlur ksize 3, 4 channels (OpenCV's median border: "
         "replicate)", "rgba", 4, 8, lambda s, d: cv2.medianBlur(s, 3, d)),
        ("median5", "rgba8", "cv2.medianBlur ksize 5, 4 channels (replicate border)", "rgba", 4,
         8, lambda s, d: cv2.medianBlur(s, 5, d)),
        ("box3", "rgba8", "cv2.blur 3x3, normalised, BORDER_REPLICATE, 4 channels", "rgba", 4, 8,
         lambda s, d: cv2.blur(s, (3, 3), d, (-1, -1), REPLICATE)),
        ("box11", "rgba8", "cv2.blur 11x11, normalised, BORDER_REPLICATE, 4 channels", "rgba", 4,
         8, lambda s, d: cv2.blur(s, (11, 11), d, (-1, -1), REPLICATE)),
        ("gauss5", "rgba8", "cv2.GaussianBlur 5x5, sigma 1.6 (NPP's 5x5 sigma), BORDER_REPLICATE, "
         "4 channels", "rgba", 4, 8,
         lambda s, d: cv2.GaussianBlur(s, (5, 5), 1.6, d, 1.6, REPLICATE)),
        ("gauss_sigma2", "rgba8", "cv2.GaussianBlur 13x13, sigma 2 (vfx gaussian=sigma=2: radius "
         "ceil(3 sigma) = 6), BORDER_REPLICATE, 4 channels", "rgba", 4, 8,
         lambda s, d: cv2.GaussianBlur(s, (13, 13), 2.0, d, 2.0, REPLICATE)),
        # GaussianBlur's T-API path declines 8-bit 4-channel frames (it runs OpenCV's CPU
        # code; flagged below): OpenCV's OpenCL separable filter with the same taps is its GPU
        # Gaussian.
        ("gauss_sigma2_sep", "rgba8", "cv2.sepFilter2D with cv2.getGaussianKernel(13, 2) in x "
         "and y (float32 taps), BORDER_REPLICATE, 4 channels", "rgba", 4, 8,
         lambda s, d: cv2.sepFilter2D(s, -1, GAUSS13, GAUSS13, d, (-1, -1), 0, REPLICATE)),
        ("bilateral_r4", "rgb8", "cv2.bilateralFilter d 9 (radius 4), sigmaColor 25.5 (0.1 of "
         "255), sigmaSpace 2, BORDER_REPLICATE, RGB8 (OpenCV takes 1 or 3 channels)", "rgb", 3, 6,
         lambda s, d: cv2.bilateralFilter(s, 9, 25.5, 2.0, d, REPLICATE)),
        ("cfa_rgba", "bayer8->rgba8", "cv2.cvtColor RGGB Bayer -> RGBA (bilinear)", "bayer", 4, 5,
         lambda s, d: cv2.cvtColor(s, rggb_rgba, d)),
        ("cfa_rgb", "bayer8->rgb8", "cv2.cvtColor RGGB Bayer -> RGB (bilinear)", "bayer", 3, 4,
         lambda s, d: cv2.cvtColor(s, rggb_rgb, d)),
        ("nv12_rgba", "nv12->rgba8", "cv2.cvtColor COLOR_YUV2RGBA_NV12 (OpenCV's BT.601 "
         "limited-range matrix), one (H*3/2) x W 8-bit buffer", "nv12", 4, 5.5,
         lambda s, d: cv2.cvtColor(s, cv2.COLOR_YUV2RGBA_NV12, d)),
    ]


def host_input(kind, w, h, pattern, rng):
    shape = {"rgba": (h, w, 4), "rgb": (h, w, 3), "bayer": (h, w), "nv12": (h * 3 // 2, w)}[kind]
    if pattern == "random":
        return rng.integers(0, 256, size=shape, dtype=np.uint8)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    base = (xx * 255 // max(1, shape[1] - 1) + yy * 255 // max(1, shape[0] - 1)) // 2
    if len(shape) == 3:
        base = base[..., None] + np.arange(shape[2]) * 20
    noise = rng.integers(-8, 9, size=shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def fallback_reasons(ocl_used, ocl_ms, cpu_ms):
    """Why an OpenCL result looks like OpenCV's CPU code ([] when it does not)."""
    reasons = []
    if not ocl_used:
        reasons.append("OpenCL not in use")
    if ocl_ms > 0.5 * cpu_ms:
        reasons.append(f"OpenCL {ocl_ms:.3f} ms is not at least twice as fast as the CPU path "
                       f"{cpu_ms:.3f} ms")
    return reasons


def stats(samples):
    s = sorted(samples)
    return {"median": statistics.median(s), "min": s[0],
            "p90": s[min(len(s) - 1, math.ceil(0.9 * len(s)) - 1)]}


def time_ocl(fn, src, dst, a):
    for _ in range(a.warmup):
        fn(src, dst)
    cv2.ocl.finish()
    per_call = []
    for _ in range(a.runs):
        cv2.ocl.finish()
        t0 = time.perf_counter()
        fn(src, dst)
        cv2.ocl.finish()
        per_call.append((time.perf_counter() - t0) * 1e3)
    batch, cpu_util = [], []
    for _ in range(a.batches):
        cv2.ocl.finish()
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(a.batch):
            fn(src, dst)
        cv2.ocl.finish()
        wall = time.perf_counter() - t0
        batch.append(wall * 1e3 / a.batch)
        cpu_util.append((time.process_time() - c0) / wall if wall > 0 else 0.0)
    return per_call, batch, statistics.median(cpu_util)


def time_cpu(fn, src, dst, runs):
    fn(src, dst)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(src, dst)
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def opencl_info():
    info = {"have": bool(cv2.ocl.haveOpenCL())}
    if info["have"]:
        cv2.ocl.setUseOpenCL(True)
    info["use"] = bool(cv2.ocl.useOpenCL())
    dev = cv2.ocl.Device.getDefault()
    info["device"] = dev.name() if info["use"] else ""
    if info["use"] and info["device"]:
        kinds = {cv2.ocl.DEVICE_TYPE_CPU: "CPU", cv2.ocl.DEVICE_TYPE_GPU: "GPU",
                 cv2.ocl.DEVICE_TYPE_ACCELERATOR: "accelerator"}
        t = dev.type()
        info.update(vendor=dev.vendorName(), version=dev.version(),
                    driver=dev.driverVersion(),
                    type=next((v for k, v in kinds.items() if t & k), str(t)),
                    compute_units=dev.maxComputeUnits())
    info["used"] = bool(info["use"] and info["device"])
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description="OpenCV T-API (OpenCL) peer benchmark for vfx.")
    ap.add_argument("--size", type=parse_size, action="append",
                    help="frame size WxH, repeatable (default 1920x1080 and 3840x2160)")
    ap.add_argument("--json", help="write the results as JSON to this file")
    ap.add_argument("--runs", type=int, default=100, help="per-call samples (default 100)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed calls first (default 10)")
    ap.add_argument("--batch", type=int, default=20, help="calls per batch sample (default 20)")
    ap.add_argument("--batches", type=int, default=15, help="batch samples (default 15)")
    ap.add_argument("--cpu-runs", type=int, default=5,
                    help="runs of the CPU path, for the fallback check (default 5)")
    ap.add_argument("--ops", help="comma-separated operations (default: all; see --list)")
    ap.add_argument("--input", choices=["random", "image"], default="random",
                    help="random bytes (default) or a smooth gradient plus noise")
    ap.add_argument("--allow-cpu", action="store_true",
                    help="run even when OpenCV's OpenCL is not in use (everything on the CPU)")
    ap.add_argument("--list", action="store_true", help="list the operations and exit")
    a = ap.parse_args(argv)
    for name in ("runs", "batch", "batches", "cpu_runs"):
        if getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.warmup < 0:
        ap.error("--warmup must not be negative")

    import_modules()
    ops = make_ops()
    if a.list:
        for op in ops:
            print(op[0])
        return 0
    if a.ops:
        wanted = [o for o in a.ops.split(",") if o]
        known = {op[0] for op in ops}
        bad = [o for o in wanted if o not in known]
        if bad:
            ap.error(f"--ops: unknown operation(s) {', '.join(bad)} (see --list)")
        ops = [op for op in ops if op[0] in wanted]
    sizes = a.size or [(1920, 1080), (3840, 2160)]
    if a.json:
        d = os.path.dirname(os.path.abspath(a.json))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            fail(f"--json: cannot write '{a.json}'")

    ocl = opencl_info()
    print(f"OpenCV {cv2.__version__}; OpenCL: have={ocl['have']} use={ocl['use']} "
          f"device={ocl.get('device') or '-'} ({ocl.get('type', '-')}, "
          f"{ocl.get('vendor', '-')}, driver {ocl.get('driver', '-')})")
    if not ocl["used"]:
        msg = ("OpenCV's OpenCL is NOT in use: every op would run on the CPU. Check that an "
               "OpenCL ICD loader and driver are visible (OCL_ICD_VENDORS, "
               "OPENCV_OPENCL_RUNTIME, OPENCV_OPENCL_DEVICE)")
        if not a.allow_cpu:
            fail(msg + "; --allow-cpu runs anyway")
        print("WARNING: " + msg, file=sys.stderr)
    elif ocl.get("type") == "CPU":
        print("note: the OpenCL device is a CPU: the CPU-fallback flag cannot tell the two "
              "paths apart here", file=sys.stderr)
    print(f"method: {a.warmup} warm-up; per call: {a.runs} x (finish, op, finish); batch: "
          f"{a.batches} x ({a.batch} ops between finishes) / {a.batch}; {a.input} input\n")

    rng = np.random.default_rng(12345)
    results = []
    hdr = (f"{'op':<13} {'size':<10} {'format':<14} {'batch ms':>9} {'call ms':>9} "
           f"{'cpu ms':>9} {'GB/s':>8}  flags")
    print(hdr)
    for (w, h) in sizes:
        inputs = {}
        for name, fmt, note, kind, out_ch, bpp, fn in ops:
            if kind not in inputs:
                inputs[kind] = host_input(kind, w, h, a.input, rng)
            host_src = inputs[kind]
            host_dst = np.zeros((h, w, out_ch), np.uint8)
            src, dst = cv2.UMat(host_src), cv2.UMat(host_dst)
            try:
                per_call, batch, util = time_ocl(fn, src, dst, a)
                ocl_out = dst.get()
                cv2.ocl.setUseOpenCL(False)
                try:
                    cpu_ms = time_cpu(fn, host_src, host_dst, a.cpu_runs)
                finally:
                    cv2.ocl.setUseOpenCL(ocl["use"])
            except cv2.error as e:
                first = str(e).strip().splitlines()[-1] if str(e).strip() else "cv2.error"
                print(f"{name:<13} {w}x{h:<5} {fmt:<14} failed: {first}")
                results.append({"peer": "opencv", "op": name, "size": f"{w}x{h}", "format": fmt,
                                "error": first, "note": note})
                continue
            diff = int(np.max(np.abs(ocl_out.astype(np.int16) - host_dst.astype(np.int16))))
            b, c = stats(batch), stats(per_call)
            nbytes = bpp * w * h
            reasons = fallback_reasons(ocl["used"], b["median"], cpu_ms)
            r = {"peer": "opencv", "op": name, "size": f"{w}x{h}", "format": fmt,
                 "ms_median": b["median"], "ms_min": b["min"], "ms_p90": b["p90"],
                 "ms_median_call": c["median"], "ms_min_call": c["min"], "ms_p90_call": c["p90"],
                 "timing": f"batch of {a.batch} calls between cv2.ocl.finish(), divided by "
                           f"{a.batch}; {a.batches} batches",
                 "runs": a.runs, "batches": a.batches, "bytes": nbytes,
                 "gbps": nbytes / (b["median"] * 1e-3) / 1e9,
                 "cpu_ms": cpu_ms, "host_cores_busy": util,
                 "cpu_fallback": bool(reasons), "cpu_fallback_reason": "; ".join(reasons),
                 "max_diff_vs_cpu": diff, "note": note}
            results.append(r)
            flags = ("CPU? " + "; ".join(reasons)) if reasons else ""
            if diff > 1:
                flags += f" (max |OpenCL - CPU| = {diff})"
            print(f"{name:<13} {w}x{h:<5} {fmt:<14} {b['median']:9.4f} {c['median']:9.4f} "
                  f"{cpu_ms:9.3f} {r['gbps']:8.1f}  {flags}", flush=True)

    if a.json:
        doc = {"peer": "opencv", "device": ocl.get("device") or "CPU (OpenCL not in use)",
               "driver": ocl.get("driver", ""), "opencv": cv2.__version__, "opencl": ocl,
               "method": {"warmup": a.warmup, "runs": a.runs, "batch": a.batch,
                          "batches": a.batches, "cpu_runs": a.cpu_runs, "input": a.input,
                          "timer": "time.perf_counter around cv2.ocl.finish()-bracketed calls; "
                                   "no OpenCL event profiling in cv2"},
               "results": [r for r in results if "ms_median" in r],
               "failed": [r for r in results if "ms_median" not in r]}
        tmp = a.json + ".tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
            os.replace(tmp, a.json)
        except OSError as e:
            fail(f"--json: cannot write '{a.json}' ({e.strerror})")
        print(f"\nwrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
