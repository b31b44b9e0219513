#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "autoresearch/build/builder.h"
#include "autoresearch/util/subprocess.h"

namespace ar {

namespace {

// The compiled-code scan reads machine code where it can: CUDA's tools sit
// next to nvcc (the toolkit's bin/), so look there before PATH.
std::string find_disassembler(Backend b, const std::string& compiler) {
  const std::vector<std::string> names =
      b == Backend::Cuda ? std::vector<std::string>{"cuobjdump", "nvdisasm"} : std::vector<std::string>{"objdump"};
  for (const auto& name : names) {
    if (b == Backend::Cuda && compiler.find('/') != std::string::npos) {
      auto beside = std::filesystem::path(compiler).parent_path() / name;
      if (::access(beside.c_str(), X_OK) == 0) return beside.string();
    }
    if (auto p = find_program(name); !p.empty()) return p;
  }
  return "";
}

}  // namespace

std::optional<Toolchain> detect_toolchain(Backend b, ProcessRunner& runner, std::string* why) {
  std::vector<std::string> candidates;
  const char* var = b == Backend::Cuda ? "NVCC" : "CXX";
  if (const char* v = std::getenv(var); v && *v) candidates.push_back(v);
  if (b == Backend::Cuda) {
    if (auto p = find_program("nvcc"); !p.empty()) candidates.push_back(p);
    candidates.push_back("/usr/local/cuda/bin/nvcc");
  } else {
    for (const char* name : {"c++", "g++", "clang++"})
      if (auto p = find_program(name); !p.empty()) candidates.push_back(p);
  }
  for (const auto& c : candidates) {
    if (c.find('/') != std::string::npos && !std::filesystem::exists(c)) continue;
    ProcessSpec spec;
    spec.argv = {c, "--version"};
    spec.timeout = std::chrono::seconds(30);
    auto r = runner.run(spec);
    if (!r.ok()) continue;
    Toolchain tc;
    tc.compiler = c;
    // nvcc prints its release on the last line; compilers on the first.
    std::string text = r.out;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (b == Backend::Cuda) {
      auto pos = text.find("release");
      size_t start = pos == std::string::npos ? text.rfind('\n') : text.rfind('\n', pos);
      start = start == std::string::npos ? 0 : start + 1;
      tc.version = text.substr(start, text.find('\n', start) - start);
    } else {
      tc.version = text.substr(0, text.find('\n'));
    }
    tc.disassembler = find_disassembler(b, c);
    return tc;
  }
  if (why) {
    *why = b == Backend::Cuda
               ? "nvcc not found (set NVCC, put it on PATH, or install the CUDA Toolkit)"
               : "no C++ compiler found (set CXX or install g++: apt-get install g++)";
  }
  return std::nullopt;
}

}  // namespace ar
