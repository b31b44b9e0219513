#include "autoresearch/core/package_init.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

constexpr const char* kNamePlaceholder = "@NAME@";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

bool valid_package_name(const std::string& name, std::string* why) {
  static const std::regex re("[A-Za-z][A-Za-z0-9_]{0,47}");
  if (std::regex_match(name, re)) return true;
  if (why)
    *why = name.empty() ? "the name is empty"
           : name.size() > 48 ? fmt::format("'{}' is longer than 48 characters", name)
                              : fmt::format("'{}' must start with a letter and hold only letters, digits and '_'", name);
  return false;
}

InitResult init_package(const Paths& paths, const std::string& name, Backend backend) {
  std::string why;
  if (!valid_package_name(name, &why)) throw usage_error(fmt::format("invalid package name: {}", why));
  const fs::path templates = paths.home / "templates" / backend_name(backend);
  if (!fs::is_directory(templates))
    throw usage_error(fmt::format("no template for the {} backend in {} (set AUTORESEARCH_HOME to the "
                                  "folder autoresearch is installed into, <prefix>/share/autoresearch)",
                                  backend_name(backend), templates.string()));
  InitResult r;
  r.dir = paths.repo / "kernels" / name;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(r.dir, ec)))
    throw usage_error(fmt::format("{} already exists; pick another name or remove it first", r.dir.string()));

  // Written beside its final place, then renamed: a failure leaves no half package.
  const fs::path staging = paths.repo / "kernels" / ("." + name + ".init-tmp");
  fs::remove_all(staging);
  fs::create_directories(staging);
  try {
    for (const auto& e : fs::recursive_directory_iterator(templates)) {
      const fs::path rel = fs::relative(e.path(), templates);
      if (e.is_directory()) {
        fs::create_directories(staging / rel);
      } else if (e.is_regular_file()) {
        fs::create_directories((staging / rel).parent_path());
        write_file_atomic(staging / rel, replace_all(read_file(e.path()), kNamePlaceholder, name));
        r.files.push_back(rel.generic_string());
      }
    }
    fs::rename(staging, r.dir);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
  std::sort(r.files.begin(), r.files.end());
  return r;
}

}  // namespace ar
