"""Adds leave-out switches for the fixed costs around sparse_mla's tiles to a kernel.cu (slots_bench with
SWITCHES=1; a stack's sets then turn them on, e.g. "head29:...,LO_Q=1"). Each switch drops one cost and keeps
everything else, so a variant's time against the head's, interleaved, is what that cost adds:
  LO_Q=1     the Q tile is not read from memory (zeros are stored to shared memory in its place)
  LO_EPI=1   the attention blocks store no partial rows (lse still written), on both paths
  LO_COMB=1  the combine reads no partial rows (lse still read; it writes zeros weighted as before)
  LO_S=1     the chunk-major path's scores take no wgmma (S is zero: every key weighs the same)
  LO_PV=1    the chunk-major path's P V takes no wgmma (O is only rescaled)
  TWICE_S=1, TWICE_PV=1  the chunk-major path's S (P V) wgmmas issued twice, the second pass alike (S starts again
             from zero; P V adds P V once more: wrong, and timed only): what one more pass costs in place
  LO_G=1     tiles gathered by tensor-map boxes (idea 60) issue no box and expect no bytes (the math reads
             whatever the stage holds; the slots are still read): what the boxes' gather adds
and knobs that are not leave-outs (timing probes of other launch shapes):
  COMB_BATCH=N     the chunk-major path's combine loads N splits' partial rows at once (the kernel's 8)
  MAX_SPLITS=N     at most N splits of a top-k list (the kernel's 128): B=1 at 16 has two tiles a block
  ROW_MIN_TILES=N  splits of N tiles or more take the row path (the kernel's 4; 16 with idea 60): 1 sends B=1 there
Results are wrong by design: nothing built with a switch on is verified."""
import re
import sys

path = sys.argv[1]
src = open(path).read()
SWITCHES = ("LO_Q", "LO_EPI", "LO_COMB", "LO_S", "LO_PV", "LO_G", "TWICE_S", "TWICE_PV")
src = "".join(f"#ifndef {s}\n#define {s} 0\n#endif\n" for s in SWITCHES) + src
for name, const in (("COMB_BATCH", "kCombineBatch"), ("MAX_SPLITS", "kMaxSplits"), ("ROW_MIN_TILES", "kRowMinTiles")):
    # the kernel's value, whatever expression it is (idea 60 makes kRowMinTiles depend on USE_K_TMA)
    m = re.search(rf"constexpr int {const} = ([^;]*);", src)
    if m is None:
        sys.exit(f"switches.py: {path}: found no constexpr int {const}")
    src = src.replace(m.group(0), f"#ifndef {name}\n#define {name} ({m.group(1)})\n#endif\nconstexpr int {const} = {name};", 1)

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
# The chunk-major path's two products (qk_softmax_one_wg, pv_wgmma): the loops of wgmma left out, or issued twice
# (the second pass recomputes the same result: what one more pass costs, in place). The switch goes before the
# loop's `#pragma unroll`, so that the loop stays unrolled as in the candidate.
sub(r"(\n(\s*))(#pragma unroll\n\s*for \(int kk = 0; kk < QK_STEPS; \+\+kk\) \{   // interleaved)",
    r"\n\2if (LO_S) { for (auto& a : acc) a = 0.f; } else\n\2for (int rep = 0; rep <= TWICE_S; ++rep)\n\3",
    "chunk-major S loop", count=1)
sub(r"(\n(\s*))(#pragma unroll\n\s*for \(int kk = 0; kk < BK / 16; \+\+kk\) \{   // 16 keys: two chunks of P, 16 rows of V)",
    r"\n\2if (!LO_PV)\n\2for (int rep = 0; rep <= TWICE_PV; ++rep)\n\3", "chunk-major P V loop", count=1)
# The boxes of idea 60 (only in stacks that have it).
if "void issue_rows_by_boxes(" in src:
    sub(r"(void issue_rows_by_boxes\([^{]*\{\n)",
        r"\1  if (LO_G) {\n    if (lane < 8) valid[r0 + (lane & 7)] = 1;\n    mbar_arrive_expect_tx(full, 0u);\n    return;\n  }\n",
        "box gather", count=1)
open(path, "w").write(src)
