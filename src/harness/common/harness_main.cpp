// The protected harness process (PROTOCOL.md): JSON requests on stdin, one JSON
// reply line each on stdout. The kernel runs in this process, so stdout is
// moved aside first: anything the kernel prints lands on stderr and can never
// forge or corrupt a reply.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "common/device.h"
#include "common/server.h"

namespace {

using ar::harness::error_reply;
using nlohmann::json;

constexpr int kExitUsage = 2;

struct Options {
  int gpu = 0;
};

bool parse_options(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    if (a == "--gpu" && i + 1 < argc) value = argv[++i];
    else if (a.rfind("--gpu=", 0) == 0) value = a.substr(6);
    else {
      std::cerr << "harness: unknown argument '" << a << "' (usage: harness [--gpu N])\n";
      return false;
    }
    char* end = nullptr;
    long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n < 0) {
      std::cerr << "harness: --gpu expects a device index, got '" << value << "'\n";
      return false;
    }
    o->gpu = static_cast<int>(n);
  }
  return true;
}

// Replies go to a private copy of the original stdout; fd 1 becomes stderr.
FILE* take_stdout() {
  std::fflush(stdout);
  int fd = dup(STDOUT_FILENO);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return fdopen(fd, "w");
}

void write_reply(FILE* out, const json& reply) {
  // Replace, not throw, on invalid UTF-8 (a dlerror() or a kernel's name).
  std::string text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, &options)) return kExitUsage;
  FILE* out = take_stdout();
  if (!out) {
    std::perror("harness: cannot set up the reply channel");
    return 1;
  }

  std::unique_ptr<ar::harness::Device> device;
  std::unique_ptr<ar::harness::Problem> problem;
  std::string startup_error;
  try {
    device = ar::harness::make_device(options.gpu);
    problem = ar::harness::make_problem();
  } catch (const std::exception& e) {
    startup_error = e.what();
  }

  std::string line;
  if (!startup_error.empty()) {
    // No device or problem: answer the first request with why, as a fault, and leave.
    while (std::getline(std::cin, line))
      if (line.find_first_not_of(" \t\r") != std::string::npos) {
        write_reply(out, error_reply("fault", "harness startup failed: " + startup_error));
        break;
      }
    return ar::harness::kExitAfterFault;
  }

  ar::harness::Server server(*device, *problem);
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    write_reply(out, server.handle_line(line));
    if (server.fault_seen()) {
      // The device is in an unknown state: skip destructors that would touch it.
      std::fflush(nullptr);
      std::_Exit(ar::harness::kExitAfterFault);
    }
    if (server.quit_requested()) break;
  }
  // Problem buffers may live on the device: free them before the device goes.
  problem.reset();
  device.reset();
  return 0;
}
