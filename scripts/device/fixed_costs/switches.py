"""Adds leave-out switches for the fixed costs around sparse_mla's tiles to a kernel.cu (slots_bench with
SWITCHES=1; a stack's sets then turn them on, e.g. "head29:...,LO_Q=1"). Each switch drops one cost and keeps
everything else, so a variant's time against the head's, interleaved, is what that cost adds:
  LO_Q=1     the Q tile is not read from memory (zeros are stored to shared memory in its place)
  LO_EPI=1   the attention blocks store no partial rows (lse still written), on both paths
  LO_COMB=1  the combine reads no partial rows (lse still read; it writes zeros weighted as before)
and knobs that are not leave-outs (timing probes of other launch shapes):
  COMB_BATCH=N     the chunk-major path's combine loads N splits' partial rows at once (the kernel's 8)
  MAX_SPLITS=N     at most N splits of a top-k list (the kernel's 128): B=1 at 16 has two tiles a block
  ROW_MIN_TILES=N  splits of N tiles or more take the row path (the kernel's 4): 1 sends B=1 there
Results are wrong by design: nothing built with a switch on is verified."""
import re
import sys

path = sys.argv[1]
src = open(path).read()
src = "".join(f"#ifndef {s}\n#define {s} 0\n#endif\n" for s in ("LO_Q", "LO_EPI", "LO_COMB")) + src
for name, const, value in (("COMB_BATCH", "kCombineBatch", 8), ("MAX_SPLITS", "kMaxSplits", 128),
                           ("ROW_MIN_TILES", "kRowMinTiles", 4)):
    decl = f"constexpr int {const} = {value};"
    if decl not in src:
        sys.exit(f"switches.py: {path}: found no {decl}")
    src = src.replace(decl, f"#ifndef {name}\n#define {name} {value}\n#endif\nconstexpr int {const} = {name};", 1)

def sub(pattern, repl, what, count=0):
    global src
    src, n = re.subn(pattern, repl, src, count=count)
    if n == 0:
        sys.exit(f"switches.py: {path}: found no {what}")
    return n

# The Q tile's global loads (load_q_tile): the load stays in the code, its address and result unused.
sub(r"const uint4 x = __ldg\(q_block \+ ([^;]*)\);",
    r"const uint4 x = LO_Q ? make_uint4(0u, 0u, 0u, 0u) : __ldg(q_block + \1);", "Q tile load")
# Partial rows of the chunk-major path (a float* dst into ws.o, then a loop of stores through it).
sub(r"(\n(\s*)float\* dst = ws\.o \+ )", r"\n\2if (LO_EPI) continue;\1", "chunk-major partial-row store")
# Partial rows of the row path (one float4 store a head row).
sub(r"(\n\s*)(\*reinterpret_cast<float4\*>\(ws\.o \+)", r"\1if (!LO_EPI) \2", "row-path partial-row store", count=1)
# The combine's loads of the partial rows.
sub(r"v\[k\] = in \? \*reinterpret_cast<const float4\*>", r"v[k] = in && !LO_COMB ? *reinterpret_cast<const float4*>",
    "combine load")
open(path, "w").write(src)
