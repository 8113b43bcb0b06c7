#!/usr/bin/env python3
"""Instruction mix of one kernel of an sm_90 cubin, without a disassembler (issue 4).

  sass_mix.py table OUT.json LISTING...   build the opcode table from SASS listings (cuobjdump /
                                          nvdisasm text with the encodings, as the GPU machine's
                                          scripts/sass-session.sh writes them)
  sass_mix.py mix TABLE.json CUBIN KERNEL [--seq]
                                          count the opcodes of the kernel's .text section

An sm_90 instruction is 16 bytes; the low 12 bits of its first 8 name the opcode and its operand
form (LDC with a constant, FFMA with a register, ...), and no two mnemonics of the listings share
a value. Opcodes the listings never showed print as ?xyz.
"""
import collections
import json
import os
import re
import struct
import sys


def build_table(out, listings):
    table = collections.defaultdict(collections.Counter)
    line = re.compile(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?);\s*/\* 0x([0-9a-f]{16}) \*/")
    for path in listings:
        with open(path, errors="replace") as f:
            for text in f:
                m = line.match(text)
                if not m:
                    continue
                words = m.group(1).split()
                if words[0].startswith("@"):
                    words = words[1:]
                table[int(m.group(2), 16) & 0xFFF][words[0].split(".")[0]] += 1
    clashes = {k: dict(v) for k, v in table.items() if len(v) > 1}
    if clashes:
        sys.exit(f"sass_mix: opcode values shared by mnemonics: {clashes}")
    # Written aside and renamed, so that an interrupted run leaves no partial table behind.
    with open(out + ".tmp", "w") as f:
        json.dump({str(k): v.most_common(1)[0][0] for k, v in sorted(table.items())}, f, indent=0)
    os.replace(out + ".tmp", out)
    print(f"{len(table)} opcode forms from {len(listings)} listings -> {out}")


def text_section(data, name):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sections[shstrndx][4]
    for sec in sections:
        start = strtab + sec[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return sec[4], sec[5]
    sys.exit(f"sass_mix: no section {name}")


def mix(table_path, cubin, kernel, seq):
    with open(table_path) as f:
        table = {int(k): v for k, v in json.load(f).items()}
    with open(cubin, "rb") as f:
        data = f.read()
    off, size = text_section(data, ".text." + kernel)
    ops = []
    for i in range(0, size, 16):
        low = struct.unpack_from("<Q", data, off + i)[0] & 0xFFF
        ops.append(table.get(low, "?%03x" % low))
    counts = collections.Counter(op for op in ops if op != "NOP")
    print("total", sum(counts.values()), " ".join(f"{k}:{v}" for k, v in counts.most_common()))
    if seq:
        print(" ".join(ops))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "table":
        build_table(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 5 and sys.argv[1] == "mix":
        mix(sys.argv[2], sys.argv[3], sys.argv[4], "--seq" in sys.argv[5:])
    else:
        sys.exit(__doc__)
