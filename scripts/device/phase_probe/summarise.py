"""Summarises phase_probe.patch's marks (scripts/device/phase_probe/run.sh): the last launch of
each kernel, each probed block's marks in microseconds from the earliest start among the probed
blocks of the first kernel, math thread (t0) and producer (tP) apart."""
import collections
import sys

marks = []   # (function, block, thread, grid, name, ns, clock), in output order
tiles = {}   # phase_probe_rows/attend.patch (tile_probe.h): (who, grid, block) -> (tiles, four cycle sums), the last launch's
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if len(f) == 11 and f[0] == "probe":
        marks.append((f[1], int(f[3]), int(f[5]), int(f[7]), f[8], int(f[9]), int(f[10])))
    if len(f) == 12 and f[0] == "probetile":
        tiles[(f[1], int(f[5]), int(f[3]))] = (int(f[7]), [int(x) for x in f[8:12]])

# The row path's (or the chunk-major path's) tiles: per tile, the median and the spread over blocks, in microseconds at 1980 MHz
# (the H200's SM clock under load, as bench reports it).
MHZ = 1980.0
columns = {"math": ["wait for the stage", "the tile's math", "its S^T"],
           "producer0": ["wait for a free stage", "issue a tile"], "producer1": ["wait for a free stage"],
           # phase_probe_attend.patch: the chunk-major path (attend)
           "math_cm": ["wait for the stage", "the tile's math", "its S and softmax"],
           "producer_cm": ["wait for a free stage", "issue a tile",
                           # phase_probe_fp8.patch: inside an FP8 tile's issue (0 elsewhere)
                           "its first loads' return", "its proxy fence"]}
for who in columns:
    rows = [(n, v) for (w, _, _), (n, v) in tiles.items() if w == who and n > 0]
    if not rows:
        continue
    grid = max(g for (w, g, _) in tiles if w == who)
    parts = []
    for k, name in enumerate(columns[who]):
        per_tile = sorted(v[k] / n / MHZ for n, v in rows)
        mid = per_tile[len(per_tile) // 2]
        parts.append(f"{name} {mid:.2f} us ({per_tile[0]:.2f}-{per_tile[-1]:.2f})")
    path = "chunk-major path" if who.endswith("_cm") else "row path"
    print(f"{path}, grid {grid}, {who} ({len(rows)} blocks, {rows[0][0]} tiles in the first), per tile: " + "; ".join(parts))
if tiles:
    sys.exit()
if not marks:
    print("no probe marks (see the harness's output beside this file)")
    sys.exit()

# A launch of a kernel begins where block 0's math thread marks "start" again: keep the last launch of each.
last = {}
for i, m in enumerate(marks):
    if m[4] == "start" and m[1] == 0 and m[2] == 0:
        last[m[0]] = i
rows = collections.OrderedDict()
for func, begin in sorted(last.items(), key=lambda kv: kv[1]):
    for m in marks[begin:]:
        if m[0] != func:
            continue
        if m[4] == "start" and m[1] == 0 and m[2] == 0 and rows.get((func, 0, 0)):
            break
        rows.setdefault((func, m[1], m[2]), []).append((m[4], m[5], m[3]))
origin = min(ns for key, v in rows.items() for name, ns, _ in v if name == "start")
for (func, block, thread), v in rows.items():
    who = "t0" if thread == 0 else "tP"
    text = "  ".join(f"{name} {(ns - origin) / 1000:.2f}" for name, ns, _ in v)
    print(f"{func} grid {v[0][2]} block {block} {who}: {text}")
