"""Summarises phase_probe.patch's marks (scripts/device/phase_probe/run.sh): the last launch of
each kernel, each probed block's marks in microseconds from the earliest start among the probed
blocks of the first kernel, math thread (t0) and producer (tP) apart."""
import collections
import sys

marks = []   # (function, block, thread, grid, name, ns, clock), in output order
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if len(f) == 11 and f[0] == "probe":
        marks.append((f[1], int(f[3]), int(f[5]), int(f[7]), f[8], int(f[9]), int(f[10])))
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
