#include "autoresearch/agents/context_assembly.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "autoresearch/core/hardware.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

std::string read_or_note(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return fmt::format("({} is missing from this installation)\n", p.string());
  return read_file(p);
}

std::string join_lines(const std::vector<std::string>& items, const std::string& bullet) {
  std::string out;
  for (const auto& s : items) out += bullet + s + "\n";
  return out;
}

std::string rules_text(const PackInputs& in) {
  std::string out = read_or_note(in.home / "context" / "rules.md");
  if (!in.manifest->rules.empty()) {
    out += fmt::format("\n## Rules of the {} package\n\n", in.manifest->name);
    out += join_lines(in.manifest->rules, "- ");
  }
  return out;
}

std::string tunables_text(const PackInputs& in) {
  const Manifest& m = *in.manifest;
  if (m.tunables.empty()) return "This package declares no tunables.\n";
  std::string out =
      fmt::format("Passed to the build as -D defines; their values live in `{}` (editable). The built-in tuner "
                  "searches them; a new source may add tunables only through the manifest, which is protected, so "
                  "keep the declared ones meaningful.\n\n| name | allowed values | now | meaning |\n|---|---|---|---|\n",
                  m.tunables_file);
  for (const auto& t : m.tunables) {
    std::string values;
    for (size_t i = 0; i < t.values.size(); ++i) values += (i ? ", " : "") + std::to_string(t.values[i]);
    auto it = in.incumbent_tunables.find(t.name);
    long long now = it == in.incumbent_tunables.end() ? t.default_value : it->second;
    out += fmt::format("| {} | {} | {} | {} |\n", t.name, values, now, t.help);
  }
  if (!m.constraints.empty()) {
    out += "\nConstraints between them (every allowed combination must build and pass):\n";
    for (const auto& c : m.constraints) out += "- `" + c.text() + "`\n";
  }
  return out;
}

std::string task_text(const PackInputs& in) {
  const Manifest& m = *in.manifest;
  std::string out = fmt::format("Kernel package `{}` ({}): {}\n\n", m.name, backend_name(m.backend), m.description);
  out += fmt::format(
      "Goal: {:.2f}x the starting kernel's speed (geometric mean over the timed workloads). Best so far: "
      "{:.3f}x ({}).\n\n",
      in.goal, in.vs_baseline, in.incumbent_id == 0 ? "the starting kernel" : fmt::format("candidate #{}", in.incumbent_id));
  std::vector<std::string> editable = m.editable;
  if (std::find(editable.begin(), editable.end(), m.tunables_file) == editable.end()) editable.push_back(m.tunables_file);
  out += "Editable files (package-relative; everything else is protected and any edit to it is rejected):\n";
  for (const auto& e : editable) out += fmt::format("- `{}`{}\n", e, in.package_prefix.empty() ? "" : fmt::format(" (repo path `{}/{}`)", in.package_prefix, e));
  out += fmt::format(
      "\nPropose ONE change that should make the kernel faster on the timed workloads while staying correct on "
      "every workload (hidden ones with random shapes included). Say it in one sentence on a line starting "
      "`IDEA:`. The change is built, verified against an independent oracle, timed interleaved against the "
      "current best, and kept only if it is faster beyond the noise, confirmed by a second measurement, and "
      "clean under compute-sanitizer. About 80% of attempts fail: small, well-reasoned steps win.\n\n"
      "This is proposal #{}.\n",
      in.iteration);
  return out;
}

// Hidden workloads are never shown to an agent (SPEC §3): a failure on one is
// reported without the details that would reveal its shape.
std::string visible_reason(const std::string& reason) {
  size_t at = reason.find("hidden-");
  if (at == std::string::npos) return reason;
  size_t colon = reason.rfind(':', at);
  std::string stage = colon == std::string::npos ? "" : reason.substr(0, colon + 1) + " ";
  return stage + "fails on a hidden workload (a shape drawn at random at verify time; its shape and the failing "
                 "elements are not shown)";
}

std::string history_text(const PackInputs& in) {
  if (in.history.empty()) return "No experiments yet in this run.\n";
  size_t from = in.history.size() > static_cast<size_t>(std::max(0, in.history_limit))
                    ? in.history.size() - static_cast<size_t>(std::max(0, in.history_limit))
                    : 0;
  std::map<std::string, int> counts;
  for (const auto& h : in.history) counts[decision_name(h.outcome.decision)]++;
  std::string tally;
  for (const auto& [d, n] : counts) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, d);
  std::string out = fmt::format("{} experiments so far ({}). The last {}, oldest first:\n\n", in.history.size(),
                                tally, in.history.size() - from);
  out += "| # | agent | decision | speedup | change | idea | reason |\n|---|---|---|---|---|---|---|\n";
  auto cell = [](std::string s, size_t max) {
    for (char& c : s)
      if (c == '\n' || c == '|') c = ' ';
    if (s.size() > max) s = s.substr(0, max - 3) + "...";
    return s;
  };
  for (size_t i = from; i < in.history.size(); ++i) {
    const auto& h = in.history[i];
    std::string speed = h.outcome.speedup ? fmt::format("{:.3f}x", *h.outcome.speedup) : "-";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", h.id, h.agent, decision_name(h.outcome.decision),
                       speed, cell(h.diff_summary.empty() ? "tunables" : h.diff_summary, 60), cell(h.idea, 160),
                       cell(visible_reason(h.outcome.reason), 220));
  }
  return out;
}

std::string feedback_text(const PackInputs& in) {
  std::string out;
  if (in.incumbent_build.is_object()) {
    auto num = [&](const char* k) {
      return in.incumbent_build.contains(k) && in.incumbent_build[k].is_number()
                 ? std::to_string(in.incumbent_build[k].get<long long>())
                 : std::string("unknown");
    };
    out += fmt::format("The current best builds with {} registers per thread (most of any stage) and {} bytes of "
                       "spill stores.\n",
                       num("registers"), num("spills"));
    if (in.incumbent_build.contains("ptxas_warnings") && in.incumbent_build["ptxas_warnings"].is_array())
      for (const auto& w : in.incumbent_build["ptxas_warnings"])
        if (w.is_string()) out += "ptxas warns of a performance loss in it: " + w.get<std::string>() + "\n";
  }
  // A wgmma pipeline that ptxas serialised runs several times slower and nothing else says why: an agent
  // whose candidate lost should read this before it judges the idea.
  if (!in.recent_build_warnings.empty())
    out += "\nptxas warned of a performance loss when it built the last candidate " + in.recent_build_warnings + "\n";
  if (!in.recent_build_errors.empty())
    out += "\nThe last candidate that failed to build said:\n\n```\n" + in.recent_build_errors + "\n```\n";
  return out;
}

std::string roofline_text(const PackInputs& in) {
  if (!in.incumbent_rows.is_array() || in.incumbent_rows.empty()) return "";
  std::string out =
      "The current best on the timed workloads (median of interleaved, cache-flushed samples):\n\n"
      "| workload | median µs | TFLOP/s | GB/s | % of roofline | bound |\n|---|---|---|---|---|---|\n";
  for (const auto& r : in.incumbent_rows) {
    auto f = [&](const char* k, const char* format) {
      return r.contains(k) && r[k].is_number() ? fmt::format(fmt::runtime(format), r[k].get<double>()) : std::string("-");
    };
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.value("name", "?"), f("median_us", "{:.1f}"),
                       f("tflops", "{:.1f}"), f("gbps", "{:.0f}"), f("pct_of_roofline", "{:.1f}%"),
                       r.value("bound", "-"));
  }
  out += "\n% of roofline = the physical floor (FLOPs at the peak tensor rate, or bytes at peak bandwidth, whichever "
         "is larger) over the measured time.\n";
  return out;
}

}  // namespace

std::optional<fs::path> hardware_doc_for(const fs::path& home, const std::string& device_name, Backend backend) {
  fs::path dir = home / "context" / "hardware";
  std::error_code ec;
  if (backend == Backend::Cpu) {
    if (fs::exists(dir / "cpu.md", ec)) return dir / "cpu.md";
    return std::nullopt;
  }
  if (device_name.empty()) return std::nullopt;
  // The same lookup the roofline uses, so the agent reads about the machine the peaks describe.
  auto spec = find_hardware(home / "context", device_name);
  if (!spec || spec->doc_file.empty() || !fs::exists(spec->doc_file, ec)) return std::nullopt;
  return spec->doc_file;
}

std::vector<std::string> collect_ideas(const std::vector<std::string>& flags, const std::string& ideas_path) {
  std::vector<std::string> out;
  for (const auto& i : flags)
    if (!i.empty()) out.push_back(i);
  if (ideas_path.empty()) return out;
  std::error_code ec;
  if (!fs::is_regular_file(ideas_path, ec))
    throw usage_error(fmt::format("--ideas {}: no such file", ideas_path));
  std::istringstream in(read_file(ideas_path));
  std::string line, para;
  auto flush = [&] {
    while (!para.empty() && (para.back() == ' ' || para.back() == '\n')) para.pop_back();
    if (!para.empty()) out.push_back(para);
    para.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      flush();
      continue;
    }
    if (line.rfind("#", 0) == 0 && para.empty()) continue;   // a heading or a comment
    para += (para.empty() ? "" : " ") + line.substr(line.find_first_not_of(" \t-*"));
  }
  flush();
  return out;
}

std::string summarize_diff(const std::string& diff) {
  std::vector<std::pair<std::string, std::pair<int, int>>> files;
  std::istringstream in(diff);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("diff --git ", 0) == 0) {
      size_t b = line.rfind(" b/");
      std::string path = b == std::string::npos ? line.substr(11) : line.substr(b + 3);
      size_t slash = path.rfind('/');
      files.push_back({slash == std::string::npos ? path : path.substr(slash + 1), {0, 0}});
    } else if (!files.empty() && line.rfind("+++", 0) != 0 && line.rfind("---", 0) != 0) {
      if (!line.empty() && line[0] == '+') files.back().second.first++;
      if (!line.empty() && line[0] == '-') files.back().second.second++;
    }
  }
  std::string out;
  for (const auto& [name, pm] : files) out += fmt::format("{}{} +{} -{}", out.empty() ? "" : ", ", name, pm.first, pm.second);
  return out;
}

ContextPack assemble_context_pack(const PackInputs& in) {
  if (!in.manifest) throw std::logic_error("assemble_context_pack: no manifest");
  const Manifest& m = *in.manifest;
  ContextPack pack;
  pack.sections.push_back({"task.md", "The task", task_text(in)});
  pack.sections.push_back({"rules.md", "Rules: what never to do", rules_text(in)});
  if (auto hw = hardware_doc_for(in.home, in.device_name, m.backend)) {
    pack.sections.push_back({"hardware.md", "The hardware: " + (in.device_name.empty() ? hw->stem().string() : in.device_name),
                             read_file(*hw)});
  } else {
    pack.sections.push_back({"hardware.md", "The hardware",
                             fmt::format("No hardware file matches the device '{}' under context/hardware/.\n",
                                         in.device_name.empty() ? "unknown" : in.device_name)});
  }
  std::string models;
  for (const auto& c : m.context_files) {
    if (c.find("hardware/") != std::string::npos) continue;   // the detected device's file is above
    models += read_or_note(in.home / c);
    if (!models.empty() && models.back() != '\n') models += '\n';
    models += '\n';
  }
  if (!models.empty()) pack.sections.push_back({"model.md", "The model this kernel serves", models});
  pack.sections.push_back({"tunables.md", "Tunables", tunables_text(in)});
  if (!in.ideas.empty())
    pack.sections.push_back({"ideas.md", "Ideas from the human (try these first)", join_lines(in.ideas, "- ")});
  pack.sections.push_back({"history.md", "What was tried", history_text(in)});
  std::string feedback = feedback_text(in);
  if (!feedback.empty()) pack.sections.push_back({"feedback.md", "Compiler feedback", feedback});
  std::string roof = roofline_text(in);
  if (!roof.empty()) pack.sections.push_back({"roofline.md", "Where the current best stands", roof});
  if (!in.profile.empty())
    pack.sections.push_back({"profile.md", "Hardware-counter profile of the current best", in.profile});

  std::vector<std::string> editable = m.editable;
  if (std::find(editable.begin(), editable.end(), m.tunables_file) == editable.end()) editable.push_back(m.tunables_file);
  for (const auto& e : editable) {
    std::error_code ec;
    if (fs::is_regular_file(in.package_dir / e, ec)) pack.sources[e] = read_file(in.package_dir / e);
  }

  nlohmann::json history = nlohmann::json::array();
  for (const auto& h : in.history) {
    nlohmann::json j = {{"id", h.id}, {"agent", h.agent}, {"idea", h.idea}, {"decision", decision_name(h.outcome.decision)},
                        {"reason", visible_reason(h.outcome.reason)}, {"tunables", h.tunables}, {"change", h.diff_summary}};
    if (h.outcome.speedup) j["speedup"] = *h.outcome.speedup;
    history.push_back(j);
  }
  pack.facts = {{"kernel", m.name},
                {"backend", backend_name(m.backend)},
                {"device", in.device_name},
                {"goal", in.goal},
                {"best_vs_start", in.vs_baseline},
                {"incumbent", in.incumbent_id},
                {"iteration", in.iteration},
                {"editable", editable},
                {"package", in.package_prefix},
                {"tunables", in.incumbent_tunables},
                {"ideas", in.ideas},
                {"history", history},
                {"incumbent_build", in.incumbent_build},
                {"incumbent_rows", in.incumbent_rows}};
  return pack;
}

}  // namespace ar
