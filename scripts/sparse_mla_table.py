#!/usr/bin/env python3
"""The per-workload results table of issue 9 from `autoresearch bench --json` output.

    sparse_mla_table.py BEST.json [START.json]

Prints a Markdown table: for each workload of the table (B = 1, 16, 64, 128, 256;
H = 8, 16, 64, 128; FP8; s_q = 2) that BEST timed, its median µs, TFLOP/s and
% of the roofline as bench computed them, the ratio to START's median when a
START is given (both should come from the same session: ratios across sessions
carry the machine's drift), FlashMLA's time on the same workload where
../shared/sparse_mla.md has one (measured on this H200, 2026-12-01), and the
issue's target. Workloads BEST did not time are left out, never guessed.
"""
import json
import sys

# (workload, what it is)
ROWS = [
    ("b1_32k", "B=1"),
    ("b16_32k", "B=16"),
    ("b64_32k", "B=64"),
    ("b128_32k", "B=128"),
    ("b256_160k", "B=256 (160k)"),
    ("mtp_b128_32k", "B=128, s_q=2"),
    ("h8_b128_32k", "H=8, B=128"),
    ("h16_b128_32k", "H=16, B=128"),
    ("h64_b128_32k", "H=64, B=128"),
    ("fp8_b64_32k", "FP8, B=64"),
    ("fp8_b128_32k", "FP8, B=128"),
]

# FlashMLA on the same H200 (../shared/sparse_mla.md): its BF16 sparse kernel,
# and its FP8 sparse decode for the FP8 rows.
FLASHMLA_US = {
    "b1_32k": 57, "b16_32k": 65, "b64_32k": 74, "b128_32k": 141, "b256_160k": 269,
    "h64_b128_32k": 103, "fp8_b64_32k": 99, "fp8_b128_32k": 189,
}

# Issue 9's targets (µs, measured with bench on the H200).
TARGET_US = {"b1_32k": 12, "b16_32k": 40, "b128_32k": 250, "h16_b128_32k": 120, "fp8_b128_32k": 250}


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return {w["name"]: w for w in doc["bench"]["workloads"]}, doc


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__.strip())
    best, doc = load(argv[1])
    start = load(argv[2])[0] if len(argv) == 3 else {}
    head = "| workload | | best µs |"
    rule = "|---|---|---:|"
    if start:
        head += " start µs | vs start |"
        rule += "---:|---:|"
    head += " TFLOP/s | % of roofline | FlashMLA µs | % of FlashMLA's time | target µs |"
    rule += "---:|---:|---:|---:|---:|"
    print(f"{doc['device']['name']}; roofline peaks {doc['bench']['roofline']['peak_flops'] / 1e12:.0f} TFLOP/s, "
          f"{doc['bench']['roofline']['peak_bytes_per_s'] / 1e9:.0f} GB/s ({doc['bench']['roofline']['source']})\n")
    print(head)
    print(rule)
    for name, what in ROWS:
        w = best.get(name)
        if w is None:
            continue
        us = w["median_us"]
        cells = [name, what, f"{us:.1f}"]
        if start:
            s = start.get(name)
            cells += [f"{s['median_us']:.1f}", f"{s['median_us'] / us:.2f}x"] if s else ["—", "—"]
        ref = FLASHMLA_US.get(name)
        target = TARGET_US.get(name)
        cells += [
            f"{w['tflops']:.1f}",
            f"{w['pct_of_roofline']:.1f}% {w['bound']}",
            str(ref) if ref else "—",
            f"{100 * us / ref:.0f}%" if ref else "—",
            (f"≤ {target} ({'met' if us <= target else 'not met'})" if target else "—"),
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv)
