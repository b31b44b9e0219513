"""Adds LAUNCH_FLOOR to a sparse_mla kernel.cu (scripts/device/slots_bench/run.sh): with -DLAUNCH_FLOOR=1
every attention entry returns right after letting its dependents launch, and the combine right after
waiting for the attention stage, so a launch keeps its shape and loses its work."""
import re
import sys

path = sys.argv[1]
src = open(path).read()
src = "#ifndef LAUNCH_FLOOR\n#define LAUNCH_FLOOR 0\n#endif\n" + src
attention = re.compile(r"(\n  launch_dependents\(\);\n)(  attend(?:_rows)?\(p, smem\);)")
src, n_attention = attention.subn(r"\1  if (LAUNCH_FLOOR) return;\n\2", src)
combine = re.compile(r"(\n  grid_dependency_wait\(\);[^\n]*\n)")
src, n_combine = combine.subn(r"\1  if (LAUNCH_FLOOR) return;\n", src, count=1)
if n_attention == 0 or n_combine == 0:
    sys.exit(f"floor.py: {path} has no attention entry ({n_attention}) or combine wait ({n_combine}) to cut short")
open(path, "w").write(src)
