#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "autoresearch/build/problem_probe.h"

namespace ar {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A choice list's smallest or largest number (its first or last entry when not all are numbers).
nlohmann::json choice_end(const std::vector<nlohmann::json>& choices, bool highest) {
  const nlohmann::json* best = nullptr;
  for (const auto& c : choices) {
    if (!c.is_number()) return highest ? choices.back() : choices.front();
    if (!best || (highest ? c.get<double>() > best->get<double>() : c.get<double>() < best->get<double>())) best = &c;
  }
  return best ? *best : nlohmann::json();
}

nlohmann::json hidden_corner(const HiddenWorkloads& h, bool highest) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, p] : h.params) {
    switch (p.kind) {
      case HiddenParam::Fixed: params[name] = p.fixed; break;
      case HiddenParam::IntRange:
      case HiddenParam::LogIntRange: params[name] = highest ? p.hi : p.lo; break;
      case HiddenParam::Choice: params[name] = choice_end(p.choices, highest); break;
    }
  }
  return params;
}

}  // namespace

std::vector<ProbeWorkload> probe_workloads(const Manifest& m) {
  std::vector<ProbeWorkload> out;
  for (size_t i = 0; i < m.workloads.size(); ++i)
    out.push_back({fmt::format("workloads[{}] ({})", i, m.workloads[i].name), m.workloads[i].params});
  if (!m.hidden.params.empty()) {
    out.push_back({"hidden_workloads.params (every range at its lowest)", hidden_corner(m.hidden, false)});
    out.push_back({"hidden_workloads.params (every range at its highest)", hidden_corner(m.hidden, true)});
  }
  return out;
}

DryRunFindings probe_findings(const Manifest& m, const std::vector<ProbeWorkload>& workloads,
                              const ProbeReport& report) {
  DryRunFindings f;
  const std::string file = m.file.string();

  if (report.outputs.empty()) {
    f.notes.push_back("the problem does not declare its outputs (Problem::output_names()): the tolerances' "
                      "output names were not checked");
  } else {
    for (size_t i = 0; i < m.tolerances.size(); ++i)
      if (!contains(report.outputs, m.tolerances[i].output))
        f.errors.push_back(fmt::format("{}: tolerances[{}].output: '{}' is not an output of the problem (its "
                                       "outputs: {})", file, i, m.tolerances[i].output, join(report.outputs)));
    for (const auto& o : report.outputs) {
      bool given = false;
      for (const auto& t : m.tolerances) given = given || t.output == o;
      if (!given)
        f.errors.push_back(fmt::format("{}: tolerances: no tolerance for the problem's output '{}' (every "
                                       "verification would fail)", file, o));
    }
  }

  if (report.params.empty()) {
    f.notes.push_back("the problem does not declare the workload params it reads (Problem::param_names()): "
                      "unknown params were not checked");
  } else {
    const std::string known = join(report.params);
    for (size_t i = 0; i < m.workloads.size(); ++i)
      for (const auto& [key, value] : m.workloads[i].params.items())
        if (!contains(report.params, key))
          f.errors.push_back(fmt::format("{}: workloads[{}].params.{} (workload {}): the problem does not read this "
                                         "param (it reads: {})", file, i, key, m.workloads[i].name, known));
    for (const auto& [key, range] : m.hidden.params)
      if (!contains(report.params, key))
        f.errors.push_back(fmt::format("{}: hidden_workloads.params.{}: the problem does not read this param (it "
                                       "reads: {})", file, key, known));
  }

  // Draws from one range fail alike: three say it, a count says the rest.
  constexpr int kShownPerPlace = 3;
  std::map<std::string, int> rejected;
  for (size_t i = 0; i < workloads.size() && i < report.workloads.size(); ++i) {
    const auto& v = report.workloads[i];
    if (!v.ok) {
      if (++rejected[workloads[i].where] > kShownPerPlace) continue;
      f.errors.push_back(fmt::format("{}: {}: the problem rejects {}: {}", file, workloads[i].where,
                                     workloads[i].params.dump(), v.error));
      continue;
    }
    const auto vars = numeric_params(workloads[i].params);
    for (const auto& [field, formula] : {std::pair{"metrics.flops", &m.flops}, std::pair{"metrics.bytes", &m.bytes}}) {
      if (!*formula) continue;
      std::string why;
      auto value = (*formula)->evaluate(vars, &why);
      if (!value) why = why.empty() ? "no value" : why;
      else if (!(*value >= 0)) why = fmt::format("it is {} (expected a count >= 0)", *value);
      else continue;
      f.errors.push_back(fmt::format("{}: {}: '{}' cannot be evaluated on {} {}: {}", file, field, (*formula)->text(),
                                     workloads[i].where, workloads[i].params.dump(), why));
    }
  }
  for (const auto& [where, n] : rejected)
    if (n > kShownPerPlace)
      f.errors.push_back(fmt::format("{}: {}: {} more workloads rejected", file, where, n - kShownPerPlace));
  return f;
}

}  // namespace ar
