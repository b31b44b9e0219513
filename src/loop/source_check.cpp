#include "autoresearch/loop/source_check.h"

#include "autoresearch/guard/guard.h"

namespace ar {

namespace {

// GuardResult::reason() reads "guard: <where> <what> (<excerpt>)"; the callers
// put their own words before it.
std::string without_prefix(std::string reason) {
  const std::string prefix = "guard: ";
  if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
  return reason;
}

}  // namespace

std::string SourceCheck::summary() const {
  switch (status) {
    case Status::Pass: return "guard: scope and source scan passed";
    case Status::Finding: return "guard: " + finding;
    case Status::DoesNotPreprocess: return "guard: the source does not preprocess: " + finding;
    case Status::Cancelled: return "guard: interrupted";
  }
  return "guard: " + finding;
}

// The same calls as a candidate's guard (candidate.cpp's scope check on the
// changed files, prepare_build's preprocess + scan), so nothing passes here
// that a run would reject.
SourceCheck check_package_source(const Builder& builder, const Manifest& m, const std::filesystem::path& package_dir,
                                 const std::string& package_prefix, const std::vector<std::string>& changed_files,
                                 const Tunables& tunables, const std::atomic<bool>* cancel) {
  SourceCheck c;
  GuardResult scope = check_scope(m, package_prefix, changed_files);
  if (!scope.pass) {
    c.status = SourceCheck::Status::Finding;
    c.finding = without_prefix(scope.reason()) + " (only the editable files may differ from the commit)";
    return c;
  }
  std::string errors;
  auto pre = builder.preprocess(package_dir, tunables, &errors, cancel);
  if (!pre) {
    c.status = cancel && cancel->load() ? SourceCheck::Status::Cancelled : SourceCheck::Status::DoesNotPreprocess;
    c.finding = errors;
    return c;
  }
  std::vector<std::filesystem::path> editable;
  for (const auto& e : m.editable) editable.push_back(package_dir / e);
  GuardResult scan = scan_preprocessed_source(*pre, editable, m.backend);
  if (!scan.pass) {
    c.status = SourceCheck::Status::Finding;
    c.finding = without_prefix(scan.reason());
  }
  return c;
}

}  // namespace ar
