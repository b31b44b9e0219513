#!/usr/bin/env python3
"""Where a run's time went, from its log: the final line's per-phase breakdown,
the measuring share, the candidates by how far they got, and the split of the
verifications' time by part (the harness's verify "timing")."""
import collections
import json
import sys


def main(path):
    lines = [json.loads(l) for l in open(path) if l.strip()]
    cands = [l for l in lines if l.get("type") == "candidate"]
    final = next((l for l in lines if l.get("type") == "final"), None)
    if final:
        s = final.get("session", {})
        wall = s.get("seconds", 0) or 1
        print(f"wall {wall:.1f} s, {s.get('candidates')} candidates, measuring {s.get('gpu_seconds', 0):.1f} s "
              f"= {100 * s.get('measuring_share', 0):.1f}%")
        phases = sorted(final.get("phases", {}).items(), key=lambda kv: -kv[1])
        print("phases: " + ", ".join(f"{k} {v:.1f} s ({100 * v / wall:.0f}%)" for k, v in phases if v > 0.05))
    # The setup's parts that the log records: the harness's build (0 when it
    # was cached), the starting kernel's verification, the first A/A.
    header = lines[0] if lines and lines[0].get("type") == "header" else {}
    base_verify = next((l for l in lines if l.get("type") == "verify_baseline"), {})
    first_aa = next((l for l in lines if l.get("type") == "aa"), {})
    setup_parts = {"harness build": header.get("harness", {}).get("build_seconds"),
                   "starting kernel verified": base_verify.get("verify", {}).get("seconds"),
                   "A/A measured": first_aa.get("gpu_seconds")}
    known = {k: v for k, v in setup_parts.items() if isinstance(v, (int, float))}
    if final and known:
        print("setup: " + ", ".join(f"{k} {v:.1f} s" for k, v in known.items()) +
              f" (of {final.get('phases', {}).get('setup', 0):.1f} s)")
    by = collections.Counter(c.get("decision") for c in cands)
    print("decisions: " + ", ".join(f"{k} {v}" for k, v in by.most_common()))
    screened = [c for c in cands if c.get("reason", "").startswith("screen:")]
    if screened:
        secs = sorted(c.get("seconds", 0) for c in screened)
        gpu = sorted(c.get("screen", {}).get("gpu_seconds", 0) for c in screened)
        print(f"screened out: {len(screened)}, wall per candidate median {secs[len(secs) // 2]:.2f} s, "
              f"screen GPU median {gpu[len(gpu) // 2]:.2f} s")
        over = [c.get("seconds", 0) - c.get("screen", {}).get("gpu_seconds", 0) for c in screened]
        over.sort()
        print(f"  driver time per screened candidate beyond its screen: median {over[len(over) // 2]:.3f} s")
    parts = collections.Counter()
    total = 0.0
    for c in cands:
        for w in c.get("verify", {}).get("workloads", []):
            total += w.get("seconds", 0)
            for k, v in w.get("timing", {}).items():
                parts[k] += v
    if total > 0:
        print(f"verification {total:.1f} s: " + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in parts.most_common()))
    # What a long run is made of: the candidates that are not kept, once the
    # setup is paid and the keeps are rare.
    measuring = ("screen", "measure", "confirm", "vs_baseline", "aa_refresh")
    rest = [c for c in cands if c.get("decision") != "keep"]
    wall_rest = sum(sum(c.get("phases", {}).values()) for c in rest)
    if wall_rest > 0:
        busy = sum(sum(c.get("phases", {}).get(k, 0) for k in measuring) for c in rest)
        print(f"not kept: {len(rest)} candidates, {wall_rest:.1f} s, measuring {busy:.1f} s = "
              f"{100 * busy / wall_rest:.1f}%")
    for c in cands:
        if c.get("decision") == "keep":
            ph = {k: round(v, 1) for k, v in c.get("phases", {}).items() if v > 0.05}
            print(f"keep #{c['id']} {c.get('seconds', 0):.1f} s: {ph}")


if __name__ == "__main__":
    main(sys.argv[1])
