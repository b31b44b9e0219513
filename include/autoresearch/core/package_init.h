#pragma once
// `autoresearch init NAME --backend cpu|cuda`: a new kernel package in
// <repo>/kernels/NAME, copied from the templates the tool ships
// (<home>/templates/<backend>/, every file; "@NAME@" in them becomes NAME).
// As generated it passes `verify`.
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"

namespace ar {

// A package name: a letter, then letters, digits or '_', at most 48 in all
// (it becomes a folder, part of run ids and branch names). *why says what is wrong.
bool valid_package_name(const std::string& name, std::string* why);

struct InitResult {
  std::filesystem::path dir;            // <repo>/kernels/NAME
  std::vector<std::string> files;       // package-relative, sorted
};

// Usage errors (nothing written): an invalid name, kernels/NAME already there,
// no template for the backend in the home. The package appears whole or not at
// all (written beside it, then renamed into place).
InitResult init_package(const Paths& paths, const std::string& name, Backend backend);

}  // namespace ar
