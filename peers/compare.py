#!/usr/bin/env python3
"""Side-by-side table of `vfx bench --json` and the peer harnesses (issue 4).

    peers/compare.py OURS.json PEER.json... [--out FILE.md] [--all]

OURS.json is what `vfx bench --json` writes; each PEER.json is what peers/npp_bench or
peers/opencv_bench.py writes (its "peer" field names the column). Prints a Markdown table:
op, size, our median ms, each peer's median ms, and our ratio to each peer, peer_ms / ours_ms
(> 1: we are faster). Rows follow our results; --all adds the peer operations we have no
counterpart for. The mapping from our chain strings to the peers' operations is OP_FOR below.
"""

import argparse
import json
import math
import sys

# Which peer operation each of our filters is compared with. Peer ops are the `op` names of
# peers/npp_bench.cu and peers/opencv_bench.py. Where a filter maps to several, the first one a
# peer ran on the GPU is used, else the first one it has (e.g. NPP's RGBA demosaic before its
# RGB one; OpenCV's GaussianBlur, else its separable filter with the same taps when GaussianBlur
# ran on the CPU).
PEER_OPS = {
    "median3": ["median3"],
    "median5": ["median5"],
    "box3": ["box3"],
    "box11": ["box11"],
    "gauss_sigma2": ["gauss_sigma2", "gauss_sigma2_sep"],
    "bilateral_r4": ["bilateral_r4"],
    "demosaic": ["cfa_rgba", "cfa_rgb"],
    "nv12": ["nv12_rgba", "nv12_rgb"],
}
# Said in the notes when a row uses this peer operation.
PEER_OP_NOTES = {"gauss_sigma2_sep": "sepFilter2D with the same taps"}

def _split(text, seps, maxsplit=-1):
    """Splits on unescaped separator characters; keeps the escapes (see _unescape)."""
    out, cur, i = [], "", 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur += text[i:i + 2]
            i += 2
            continue
        if c in seps and maxsplit != 0:
            out.append(cur)
            cur = ""
            maxsplit -= 1
        else:
            cur += c
        i += 1
    out.append(cur)
    return out


def _unescape(text):
    out, i = "", 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        out += text[i]
        i += 1
    return out


def parse_chain(chain):
    """'median=radius=2' -> ('median', {'radius': '2'}); None for a chain of several filters.

    vfx's chain syntax: filters separated by ',', each a name then '=' and key=value parameters
    separated by ':'; a backslash escapes , : = and \\ inside a value. A name with a space
    ("convert nv12") keeps the rest as the parameter "_arg".
    """
    filters = [f.strip() for f in _split(chain, ",") if f.strip()]
    if len(filters) != 1:
        return None
    name, *rest = _split(filters[0], "=", 1)
    params = {}
    if rest:
        for item in _split(rest[0], ":"):
            key, *value = _split(item, "=", 1)
            if key.strip():
                params[_unescape(key.strip())] = _unescape(value[0].strip()) if value else ""
    name = _unescape(name.strip())
    if " " in name:
        name, _, arg = name.partition(" ")
        params.setdefault("_arg", arg.strip())
    return name, params


def _num(params, key, default):
    try:
        return float(params.get(key, default))
    except (TypeError, ValueError):
        return None


def op_for(result):
    """Our result -> the key of PEER_OPS it compares with, or None."""
    chain = str(result.get("chain") or result.get("filter") or "")
    parsed = parse_chain(chain)
    if parsed is None:
        return None
    name, params = parsed
    if not name:
        name = str(result.get("filter") or "")
    if name == "median":
        r = _num(params, "radius", 1)
        return {1: "median3", 2: "median5"}.get(r)
    if name == "box":
        r = _num(params, "radius", 1)
        return {1: "box3", 5: "box11"}.get(r)
    if name == "gaussian":
        return "gauss_sigma2" if _num(params, "sigma", 1.5) == 2 else None
    if name == "bilateral":
        if "radius" in params:
            r = _num(params, "radius", 0)
        else:  # vfx: window radius ceil(2 sigma_s), sigma_s 2 by default
            s = _num(params, "sigma_s", 2)
            r = math.ceil(2 * s) if s is not None else None
        return "bilateral_r4" if r == 4 else None
    if name == "demosaic":
        return "demosaic"
    if name == "convert" or name == "nv12":
        fmt = (params.get("_arg", "") + " " + params.get("from", "") + " " +
               str(result.get("format", "")) + " " + chain).lower()
        return "nv12" if "nv12" in fmt else None
    return None


class InputError(Exception):
    pass


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise InputError(f"{path}: no \"results\" list (is this a bench JSON?)")
    for i, r in enumerate(doc["results"]):
        if not isinstance(r, dict):
            raise InputError(f"{path}: results[{i}] is not an object")
        ms = r.get("ms_median")
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not ms > 0:
            raise InputError(f"{path}: results[{i}] has no positive ms_median")
        if not isinstance(r.get("size"), str):
            raise InputError(f"{path}: results[{i}] has no size")
    return doc


def peer_name(doc, path):
    name = doc.get("peer")
    if not name:
        names = {r.get("peer") for r in doc["results"] if r.get("peer")}
        if len(names) == 1:
            name = names.pop()
    if not name:
        raise InputError(f"{path}: no \"peer\" field (npp, opencv, ...)")
    return str(name)


def fmt_ms(ms):
    if ms is None:
        return "—"
    return f"{ms:.3f}" if ms >= 1 else f"{ms:.4f}"


def fmt_ratio(peer_ms, ours_ms):
    if peer_ms is None or ours_ms is None:
        return "—"
    return f"{peer_ms / ours_ms:.2f}×"


def build_table(ours, peers, include_all=False):
    """ours: our bench JSON; peers: [(name, doc)]. Returns the Markdown text."""
    index = {}  # (peer, op, size) -> result
    for name, doc in peers:
        for r in doc["results"]:
            index[(name, r.get("op"), r["size"])] = r
    names = [n for n, _ in peers]

    head = ["op", "size", "ours ms"] + [f"{n} ms" for n in names] + \
           [f"{n}/ours" for n in names] + ["notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    used = set()
    for r in ours["results"]:
        key = op_for(r)
        label = r.get("chain") or r.get("filter") or "?"
        cells, ratios, notes = [], [], []
        for n in names:
            have = [index[(n, op, r["size"])] for op in PEER_OPS.get(key, [])
                    if (n, op, r["size"]) in index]
            found = next((p for p in have if not p.get("cpu_fallback")), None) or \
                (have[0] if have else None)
            used.update((n, p.get("op"), r["size"]) for p in have)  # --all: not "peer only"
            if found is None:
                cells.append("—")
                ratios.append("—")
                continue
            used.add((n, found.get("op"), r["size"]))
            star = "*" if found.get("cpu_fallback") else ""
            cells.append(fmt_ms(found["ms_median"]) + star)
            ratios.append(fmt_ratio(found["ms_median"], r["ms_median"]) + star)
            if found.get("cpu_fallback"):
                notes.append(f"*{n} ran on the CPU")
            if found.get("op") in PEER_OP_NOTES:
                notes.append(f"{n}: {PEER_OP_NOTES[found['op']]}")
            if not found.get("ok", True):
                notes.append(f"{n} output check failed")
            peer_fmt = str(found.get("format", ""))
            if peer_fmt.endswith("rgb8") and not str(r.get("format", "")).endswith("rgb8"):
                notes.append(f"{n} on RGB8 (3 channels)")
        if key == "demosaic" and "bilinear" not in str(label):
            notes.append("ours MHC 5×5, peers bilinear")
        if key is None:
            notes.append("no peer")
        row = [f"`{label}`", r["size"], fmt_ms(r["ms_median"])] + cells + ratios + \
              ["; ".join(dict.fromkeys(notes))]
        lines.append("| " + " | ".join(row) + " |")

    if include_all:
        for n, doc in peers:
            for p in doc["results"]:
                if (n, p.get("op"), p["size"]) in used:
                    continue
                cells = ["—"] * len(names)
                cells[names.index(n)] = fmt_ms(p["ms_median"]) + \
                    ("*" if p.get("cpu_fallback") else "")
                row = [f"{n}:{p.get('op')}", p["size"], "—"] + cells + \
                      ["—"] * len(names) + ["peer only"]
                lines.append("| " + " | ".join(row) + " |")

    out = []
    dev = ours.get("device", "?")
    drv = ours.get("driver", "?")
    out.append(f"Device: {dev} (driver {drv}). Median kernel time per call; "
               "peer/ours > 1 means vfx is faster.")
    out.append("")
    out.extend(lines)
    copies = []
    if isinstance(ours.get("copy_gbps"), (int, float)):
        copies.append(f"vfx (OpenCL copy) {ours['copy_gbps']:.0f} GB/s")
    for n, doc in peers:
        for p in doc["results"]:
            if p.get("op") == "copy" and isinstance(p.get("gbps"), (int, float)):
                copies.append(f"{n} {p['size']} {p['gbps']:.0f} GB/s")
    if copies:
        out.append("")
        out.append("Device-to-device copy, bytes read + written: " + ", ".join(copies) + ".")
    for n, doc in peers:
        if doc.get("device") and doc.get("device") != dev:
            out.append("")
            out.append(f"**Warning:** {n} ran on {doc.get('device')}, not {dev}.")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Markdown table of vfx bench beside the NPP / OpenCV peer benchmarks.")
    ap.add_argument("ours", help="vfx bench --json output")
    ap.add_argument("peers", nargs="+", help="npp_bench / opencv_bench.py --json outputs")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--all", action="store_true", help="add the peer-only operations")
    a = ap.parse_args(argv)
    try:
        ours = load(a.ours)
        peers = []
        for p in a.peers:
            doc = load(p)
            peers.append((peer_name(doc, p), doc))
        text = build_table(ours, peers, a.all)
    except InputError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    if a.out:
        try:
            with open(a.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print(f"compare.py: {a.out}: cannot write ({e.strerror})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
