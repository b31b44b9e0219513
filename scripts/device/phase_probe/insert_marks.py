"""Inserts the phase probe's marks into a sparse_mla kernel.cu by anchor lines, for stacks whose code the
fixed-context phase_probe.patch no longer matches (ideas23's head and later: the combine launched early by
programmatic dependent launch; with or without 55 and 56's Q by tensor-map copies). Each anchor must be found inside its function,
the number of times given, or the script fails naming it: a mark that silently landed elsewhere would time
the wrong thing. A diagnostic build, never a candidate (the guard refuses its clock reads).

    python3 insert_marks.py kernel.cu      (rewrites the file in place)

The marks are phase_probe.patch's (start, slots_loaded, tile0_issued, producer_done, math_begin, q_loaded,
q_shared, tile0_landed, tile0_softmax, tile0_pv, tiles_done, epilogue, end), plus the combine's dep_done
(its wait for the attention stage returned). The combine runs beside the attention stage, so its marks have
slots of their own.
"""
import sys

HEADER = r'''
// ---- phase probe (scripts/device/phase_probe: a diagnostic build, never a candidate) ----
// PROBE(name) records the global timer (ns) and the SM clock when thread 0 (math) or the first producer
// thread of one of the first PHASE_PROBE_BLOCKS blocks passes it (thread 0 of the combine's first blocks,
// in slots of their own: it runs beside the attention stage); PROBE_END(name) records its last mark and
// then prints them all. No mark waits for a printf (tens of microseconds each).
#include <cstdio>
#ifndef PHASE_PROBE_BLOCKS
#define PHASE_PROBE_BLOCKS 4
#endif
constexpr int kProbeMarks = 24, kProbeSlots = 3 * PHASE_PROBE_BLOCKS;
__device__ unsigned long long g_probe_ns[kProbeSlots][kProbeMarks];
__device__ long long g_probe_clock[kProbeSlots][kProbeMarks];
__device__ const char* g_probe_name[kProbeSlots][kProbeMarks];
__device__ int g_probe_count[kProbeSlots];
__device__ __forceinline__ unsigned long long probe_global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ bool probe_combine() { return blockDim.x < THREADS; }
__device__ __forceinline__ bool probe_thread() {
  return blockIdx.x < PHASE_PROBE_BLOCKS && (threadIdx.x == 0 || (!probe_combine() && threadIdx.x == THREADS));
}
__device__ __forceinline__ int probe_slot() {
  return probe_combine() ? 2 * PHASE_PROBE_BLOCKS + blockIdx.x : 2 * blockIdx.x + (threadIdx.x != 0);
}
__device__ __forceinline__ void probe_mark(const char* name) {
  const int slot = probe_slot();
  const int i = g_probe_count[slot];
  if (i < kProbeMarks) {
    g_probe_ns[slot][i] = probe_global_ns();
    g_probe_clock[slot][i] = clock64();
    g_probe_name[slot][i] = name;
    g_probe_count[slot] = i + 1;
  }
}
__device__ __forceinline__ void probe_print(const char* func) {
  const int slot = probe_slot();
  const int n = g_probe_count[slot] < kProbeMarks ? g_probe_count[slot] : kProbeMarks;
  for (int i = 0; i < n; ++i)
    printf("probe %s block %u thread %u grid %u %s %llu %lld\n", func, blockIdx.x, threadIdx.x, gridDim.x,
           g_probe_name[slot][i], g_probe_ns[slot][i], g_probe_clock[slot][i]);
  g_probe_count[slot] = 0;
}
#define PROBE(name)                       \
  do {                                    \
    if (probe_thread()) probe_mark(name); \
  } while (0)
#define PROBE_END(name)      \
  do {                       \
    if (probe_thread()) {    \
      probe_mark(name);      \
      probe_print(__func__); \
    }                        \
  } while (0)
'''


def per_tile(phase, last=False):
    """The marks of a phase of tiles 0 and 1 (and of the last tile, where there are more than two): tile0_PHASE ..."""
    code = f'if (j == 0) PROBE("tile0_{phase}");\nif (j == 1) PROBE("tile1_{phase}");'
    return code + (f'\nif (j > 1 && j == tiles - 1) PROBE("tileL_{phase}");' if last else "")


# (function, anchor: the stripped line starts with it, which occurrence in the function (1-based),
#  'before' or 'after', the code to insert)
MARKS = [
    ("attend", "uint64_t* empty = full + stages;", 1, "after", 'PROBE("start");'),
    ("attend", "load_slots(next, idx_row, key_base + BK, n_eff, pw, lane);", 1, "after",
     '{ volatile int landed = cur[0] + next[0]; (void)landed; }   // the mark waits for the slot loads\n'
     'PROBE("slots_loaded");'),
    ("attend", "mbar_arrive(full + st);", 1, "after", 'if (j == 0) PROBE("tile0_issued");'),
    ("attend", "return;   // the math threads wait for the copies in flight", 1, "before", 'PROBE_END("producer_done");'),
    ("attend", "math_regs();", 1, "after", 'PROBE("math_begin");'),
    ("attend", "fence_proxy_async();   // Q is read by wgmma", 1, "before", 'PROBE("q_loaded");'),
    ("attend", "for (int j = 0; j < tiles; ++j) {", 2, "before", 'PROBE("q_shared");'),
    ("attend", "mbar_wait(full + st, (j / stages) & 1);", 1, "before",
     'if (j == 1) PROBE("tile1_wanted");\nif (j > 1 && j == tiles - 1) PROBE("tileL_wanted");'),
    ("attend", "mbar_wait(full + st, (j / stages) & 1);", 1, "after", per_tile("landed", last=True)),
    ("qk_softmax_one_wg", "wgmma_wait_all();", 1, "after", per_tile("scores")),
    ("attend", "qk_softmax_one_wg(", 1, "after", per_tile("softmax")),
    ("attend", "pv_wgmma(o, Ps, Ks, s_alpha, warp, g", 1, "after", per_tile("pv", last=True)),
    ("attend", "math_sync();   // the math threads only: the producer warps have left", 1, "before",
     'PROBE("tiles_done");'),
    ("attend", "math_sync();   // the math threads only: the producer warps have left", 1, "after", 'PROBE("epilogue");'),
    ("attend", "if (nsplit > 1 && blockIdx.x == 0 && tid == 0) ws.header[0] = nsplit;", 1, "after", 'PROBE_END("end");'),
    ("attend_rows", "uint64_t* empty = full + stages;", 1, "after", 'PROBE("start");'),
    ("attend_rows", "return;   // the math threads wait for the copies in flight", 1, "before",
     'PROBE_END("producer_done");'),
    ("attend_rows", "math_regs();", 1, "after", 'PROBE("math_begin");'),
    ("attend_rows", "fence_proxy_async();   // Q is read by wgmma", 1, "before", 'PROBE("q_loaded");'),
    ("attend_rows", "for (int j = 0; !live && j < tiles; ++j) {", 1, "before", 'PROBE("q_shared");'),
    ("attend_rows", "mbar_wait(full + st, (j / stages) & 1);", 2, "after", per_tile("landed")),
    ("attend_rows", "rg_qk(s, stage + k_off, dq);", 1, "after", per_tile("scores")),
    ("attend_rows", "fence_proxy_async();   // P^T is read by wgmma", 1, "after", per_tile("p")),
    ("attend_rows", "rg_pv(o, stage + v_off, dp);", 1, "after", per_tile("pv")),
    ("attend_rows", "// Row sums: this thread's keys, then the warp's", 1, "before", 'PROBE("tiles_done");'),
    ("attend_rows", "const Workspace ws = workspace_view(", 1, "before", 'PROBE("epilogue");'),
    ("attend_rows", "if (nsplit > 1 && blockIdx.x == 0 && tid == 0) ws.header[0] = nsplit;", 1, "after",
     'PROBE_END("end");'),
    ("combine", "grid_dependency_wait();", 1, "before", 'PROBE("start");'),
    ("combine", "grid_dependency_wait();", 1, "after", 'PROBE("dep_done");'),
    ("combine", "if (threadIdx.x == 0) *lse_out = m + logf(w_sum);", 1, "after", 'PROBE_END("end");'),
]


def function_span(lines, name):
    """Lines [begin, end) of the device function `name`: from its signature to the next line '}'."""
    sig = f"__device__ __forceinline__ void {name}("
    begin = next((i for i, l in enumerate(lines) if sig in l), None)
    if begin is None:
        sys.exit(f"insert_marks: no function {name} in the kernel")
    end = next((i for i in range(begin, len(lines)) if lines[i].rstrip() == "}"), None)
    if end is None:
        sys.exit(f"insert_marks: {name} has no closing brace at column 0")
    return begin, end


def main(path):
    lines = open(path).read().split("\n")
    inserts = []   # (line index, 'before' | 'after', text, indentation)
    for func, anchor, occurrence, where, code in MARKS:
        begin, end = function_span(lines, func)
        hits = [i for i in range(begin, end) if lines[i].strip().startswith(anchor)]
        if len(hits) < occurrence:
            sys.exit(f"insert_marks: {func}: anchor {anchor!r} found {len(hits)} times, needs {occurrence}")
        i = hits[occurrence - 1]
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        if where == "after" and lines[i].rstrip().endswith("{"):
            indent += "  "
        inserts.append((i, where, code, indent))
    # From the bottom up, so that earlier indices stay valid; at one line, 'after' before 'before'.
    for i, where, code, indent in sorted(inserts, key=lambda t: (t[0], t[1] == "after"), reverse=True):
        block = [indent + c for c in code.split("\n")]
        at = i + 1 if where == "after" else i
        lines[at:at] = block
    include = next((i for i, l in enumerate(lines) if l.startswith('#include "sparse_mla_params.h"')), None)
    if include is None:
        sys.exit('insert_marks: no #include "sparse_mla_params.h" to put the probe after')
    # THREADS is a tunable defined below the includes; the probe needs it, so it goes after its definition.
    threads = next((i for i, l in enumerate(lines) if l.startswith("#define THREADS")), None)
    if threads is None:
        sys.exit("insert_marks: no #define THREADS")
    after = next(i for i in range(threads, len(lines)) if lines[i].startswith("#endif"))
    lines[after + 1:after + 1] = HEADER.split("\n")
    open(path, "w").write("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
