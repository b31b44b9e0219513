#!/usr/bin/env python3
"""Compile every tunable combination a CUDA package's manifest allows, to cubin,
and report registers, spills, stack and shared memory per kernel (ptxas -v).

    scripts/sweep_compile.py kernels/sparse_mla [--jobs N] [--out DIR] [--nvcc PATH]

Exit status 1 if any allowed combination fails to compile or spills in a stage
kernel. Constraints are evaluated with Python (they use + - * / % min max and
comparisons, which mean the same there as in the manifest's expression language).
"""
import argparse
import concurrent.futures
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def allowed(manifest):
    names = [t["name"] for t in manifest["tunables"]]
    for values in itertools.product(*[t["values"] for t in manifest["tunables"]]):
        env = dict(zip(names, values))
        env.update(min=min, max=max, abs=abs)
        exprs = [c.replace("&&", " and ").replace("||", " or ") for c in manifest.get("constraints", [])]
        if all(eval(e, {"__builtins__": {}}, env) for e in exprs):
            yield dict(zip(names, values))


def parse_ptxas(text):
    """{kernel: {regs, spill_stores, spill_loads, stack, smem}} from -Xptxas -v output."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line) or re.search(r"Function properties for (\w+)", line)
        if m:
            current = m.group(1)
            out.setdefault(current, {})
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            out[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[current]["regs"] = int(m.group(1))
            m2 = re.search(r"(\d+) bytes smem", line)
            out[current]["static_smem"] = int(m2.group(1)) if m2 else 0
    return out


def sparse_mla_smem(t, fp8):
    """Dynamic shared memory of sparse_mla's ar_stage0 (kernel.cu's smem_layout)."""
    hb, bk, th, st = t["HEADS_PER_BLOCK"], t["KEYS_PER_TILE"], t["THREADS"], t["KV_STAGES"]
    ksplit = max(1, (th // 32) // (hb // 16) // (bk // 8))
    k = (bk * 1168 + st * bk * 656) if fp8 else st * bk * 1168
    return hb * 1168 + k + ksplit * hb * (bk + 4) * 4 + hb * (bk + 8) * 2 + 12 * hb + 4 * st * bk


def compile_one(args, pkg, manifest, t, outdir):
    tag = "_".join(f"{k}{v}" for k, v in t.items())
    cubin = os.path.join(outdir, tag + ".cubin")
    cmd = [args.nvcc, "-cubin", f"-arch={manifest['build']['arch']}"] + manifest["build"]["flags"]
    if "-Xptxas=-v" not in cmd:
        cmd.append("-Xptxas=-v")
    cmd += [f"-D{k}={v}" for k, v in t.items()]
    cmd += [f"-I{REPO}/include", f"-I{pkg}", os.path.join(pkg, manifest["kernel"]["source"]), "-o", cubin]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return t, p.returncode, p.stdout + p.stderr, " ".join(cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("package")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=None, help="keep the cubins here (default: a temporary folder)")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    args = ap.parse_args()
    pkg = os.path.abspath(args.package)
    manifest = json.load(open(os.path.join(pkg, "manifest.json")))
    combos = list(allowed(manifest))
    defaults = {t["name"]: t["default"] for t in manifest["tunables"]}
    outdir = args.out or tempfile.mkdtemp(prefix="sweep_")
    os.makedirs(outdir, exist_ok=True)
    print(f"{len(combos)} allowed combinations; {args.jobs} parallel compiles; cubins in {outdir}", flush=True)

    failures, spills, rows = [], [], []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(compile_one, args, pkg, manifest, t, outdir) for t in combos]
        for f in concurrent.futures.as_completed(futures):
            t, rc, text, cmd = f.result()
            if rc != 0:
                failures.append((t, text, cmd))
                print("FAIL", t, flush=True)
                continue
            info = parse_ptxas(text)
            rows.append((t, info))
            for k, v in info.items():
                if k.startswith("ar_stage") and (v.get("spill_stores", 0) or v.get("spill_loads", 0)):
                    spills.append((t, k, v))

    names = [t["name"] for t in manifest["tunables"]]
    short = {"HEADS_PER_BLOCK": "HB", "KEYS_PER_TILE": "BK", "THREADS": "THR", "SPLIT_WAVES": "SW", "KV_STAGES": "ST"}
    header = " ".join(f"{short.get(n, n):>4}" for n in names)
    print(f"\n{header} | stage0 regs spill stack | smem bf16 / fp8 (B) | stage1 regs | default")
    seen = set()
    for t, info in sorted(rows, key=lambda r: [r[0][n] for n in names]):
        s0, s1 = info.get("ar_stage0", {}), info.get("ar_stage1", {})
        key = tuple(v for k, v in t.items() if k != "SPLIT_WAVES")
        smem = f"{sparse_mla_smem(t, False):>6} / {sparse_mla_smem(t, True):>6}" if manifest["name"] == "sparse_mla" else "-"
        mark = "  <-- default" if t == defaults else ""
        dup = "" if key not in seen else "  (stage0 as above)"
        seen.add(key)
        print(" ".join(f"{t[n]:>4}" for n in names) +
              f" | {s0.get('regs', '?'):>11} {s0.get('spill_stores', 0) + s0.get('spill_loads', 0):>5} {s0.get('stack', 0):>5}"
              f" | {smem:>19} | {s1.get('regs', '-'):>11} |{mark}{dup}")
    print(f"\n{len(rows)} compiled, {len(failures)} failed, {len(spills)} with spills in a stage kernel")
    for t, text, cmd in failures:
        print("\nFAILED:", cmd, "\n", text[-3000:])
    for t, k, v in spills:
        print("SPILLS:", t, k, v)
    return 1 if failures or spills else 0


if __name__ == "__main__":
    sys.exit(main())
