# Drops a file into the harness's source folder of the worktree (a new,
# untracked file outside the package), as if to replace the CPU device.
mkdir -p src/harness/cpu
printf '// replaced harness device\n' > src/harness/cpu/cpu_device.cpp
