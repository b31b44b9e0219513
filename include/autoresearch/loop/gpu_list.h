#pragma once
// `--gpus 0,1,… | all`: which GPUs of this host a run measures on, and what
// else runs on them.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autoresearch/util/subprocess.h"

namespace ar {

// The host's GPU indices, in order; nullopt + *why when they cannot be listed.
using GpuLister = std::function<std::optional<std::vector<int>>(std::string* why)>;

// "0,1,3" -> {0, 1, 3}; "all" -> every GPU `list_host` reports. Throws a usage
// error (naming --gpus and the bad part) for an empty list, a value that is
// not a GPU index, a duplicate, or `all` on a host without GPUs.
std::vector<int> parse_gpu_list(const std::string& text, const GpuLister& list_host);

// The host's GPUs as nvidia-smi lists them.
std::optional<std::vector<int>> host_gpu_indices(ProcessRunner& runner, std::string* why);

// Compute processes nvidia-smi sees on GPU `gpu` ("pid, name, memory" each);
// nullopt + *why when nvidia-smi cannot tell.
std::optional<std::vector<std::string>> other_gpu_processes(ProcessRunner& runner, int gpu, std::string* why);

}  // namespace ar
