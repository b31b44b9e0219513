#include "autoresearch/core/manifest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "manifest_fields.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {

using detail::Fields;

const char* backend_name(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

namespace {

bool is_identifier(const std::string& s) {
  static const std::regex re("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, re);
}

// A package-relative path that stays inside the package.
void check_relative(const Fields& f, const std::string& field, const std::string& p) {
  std::filesystem::path path(p);
  if (path.is_absolute() || p.find("..") != std::string::npos || p.empty())
    f.fail(field, "'" + p + "' must be a path inside the package folder");
}

void require_file(const Fields& f, const std::string& field, const std::filesystem::path& dir,
                  const std::string& rel) {
  check_relative(f, field, rel);
  if (!std::filesystem::is_regular_file(dir / rel))
    f.fail(field, "file '" + rel + "' does not exist in " + dir.string());
}

std::vector<Tunable> parse_tunables(const Fields& f) {
  std::vector<Tunable> out;
  std::set<std::string> names;
  size_t n = f.array_size("tunables", false);
  for (size_t i = 0; i < n; ++i) {
    Fields t = f.element("tunables", i);
    if (!t.json().is_object()) t.fail("", "expected an object {name, values, default}");
    t.reject_unknown({"name", "values", "default", "help"});
    Tunable tu;
    tu.name = t.string("name");
    if (!is_identifier(tu.name)) t.fail("name", "'" + tu.name + "' is not a C identifier");
    if (!names.insert(tu.name).second) t.fail("name", "duplicate tunable '" + tu.name + "'");
    const auto& values = t.raw("values");
    if (!values.is_array() || values.empty())
      t.fail("values", "expected a non-empty array of integers");
    std::set<long long> seen;
    for (const auto& v : values) {
      if (!v.is_number_integer()) t.fail("values", "expected integers only, got " + v.dump());
      if (!seen.insert(v.get<long long>()).second)
        t.fail("values", "duplicate value " + v.dump());
      tu.values.push_back(v.get<long long>());
    }
    const auto& d = t.raw("default");
    if (!d.is_number_integer()) t.fail("default", "expected an integer");
    tu.default_value = d.get<long long>();
    if (!seen.count(tu.default_value))
      t.fail("default", fmt::format("{} is not one of the allowed values", tu.default_value));
    tu.help = t.string_or("help", "");
    out.push_back(std::move(tu));
  }
  return out;
}

std::vector<Expression> parse_expressions(const Fields& f, const std::string& key,
                                          const std::set<std::string>& names) {
  std::vector<Expression> out;
  auto texts = f.strings(key, false);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::string err;
    auto e = Expression::parse(texts[i], &err);
    std::string field = fmt::format("{}[{}]", key, i);
    if (!e) f.fail(field, "'" + texts[i] + "': " + err);
    for (const auto& id : e->identifiers())
      if (!names.count(id)) f.fail(field, "'" + texts[i] + "' uses '" + id + "', which is not a tunable");
    out.push_back(*e);
  }
  return out;
}

Workload parse_workload(const Fields& w) {
  if (!w.json().is_object()) w.fail("", "expected an object {name, params, quick, timed}");
  w.reject_unknown({"name", "params", "quick", "timed", "note"});
  Workload out;
  out.name = w.string("name");
  static const std::regex re("[A-Za-z0-9_.+-]+");
  if (!std::regex_match(out.name, re))
    w.fail("name", "'" + out.name + "' may only hold letters, digits and _ . + -");
  out.params = w.object("params").json();
  out.quick = w.boolean_or("quick", false);
  out.timed = w.boolean_or("timed", false);
  return out;
}

HiddenParam parse_hidden_param(const Fields& f, const std::string& key) {
  const auto& v = f.raw(key);
  HiddenParam p;
  if (!v.is_object()) {
    p.kind = HiddenParam::Fixed;
    p.fixed = v;
    return p;
  }
  Fields r(f.file(), v, f.at(key));
  if (v.size() != 1) r.fail("", "expected exactly one of {\"int\":[lo,hi]}, {\"log_int\":[lo,hi]}, {\"choice\":[...]}");
  if (v.contains("choice")) {
    if (!v["choice"].is_array() || v["choice"].empty()) r.fail("choice", "expected a non-empty array");
    p.kind = HiddenParam::Choice;
    p.choices.assign(v["choice"].begin(), v["choice"].end());
    return p;
  }
  const char* kind = v.contains("int") ? "int" : v.contains("log_int") ? "log_int" : nullptr;
  if (!kind) r.fail(v.begin().key(), "unknown range kind (expected int, log_int or choice)");
  const auto& range = v[kind];
  if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() ||
      !range[1].is_number_integer() || range[0].get<long long>() > range[1].get<long long>())
    r.fail(kind, "expected [lo, hi] with integers lo <= hi");
  p.kind = std::string(kind) == "int" ? HiddenParam::IntRange : HiddenParam::LogIntRange;
  p.lo = range[0].get<long long>();
  p.hi = range[1].get<long long>();
  if (p.kind == HiddenParam::LogIntRange && p.lo < 1) r.fail(kind, "log_int needs lo >= 1");
  return p;
}

std::vector<Tolerance> parse_tolerances(const Fields& f) {
  std::vector<Tolerance> out;
  size_t n = f.array_size("tolerances", true);
  if (n == 0) f.fail("tolerances", "at least one output needs a tolerance");
  for (size_t i = 0; i < n; ++i) {
    Fields t = f.element("tolerances", i);
    t.reject_unknown({"output", "abs", "rel", "cosine"});
    Tolerance tol;
    tol.output = t.string("output");
    tol.abs = t.number_or("abs", 0);
    tol.rel = t.number_or("rel", 0);
    if (tol.abs < 0 || tol.rel < 0) t.fail("abs", "tolerances must be >= 0");
    if (t.has("cosine")) tol.cosine = t.number("cosine");
    out.push_back(tol);
  }
  return out;
}

std::optional<Expression> parse_metric(const Fields& m, const std::string& key) {
  if (!m.has(key)) return std::nullopt;
  std::string text = m.string(key);
  std::string err;
  auto e = Expression::parse(text, &err);
  if (!e) m.fail(key, "'" + text + "': " + err);
  return e;
}

// A C++ identifier path such as `SparseMlaParams` or `ns::Params`.
bool is_type_name(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') continue;
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') { ++i; continue; }
    return false;
  }
  return !std::isdigit(static_cast<unsigned char>(s[0]));
}

DispatchSpec parse_dispatch(const Fields& d, const Manifest& m) {
  d.reject_unknown({"params_header", "params_type", "shape"});
  DispatchSpec spec;
  spec.params_header = d.string("params_header");
  require_file(d, "params_header", m.dir, spec.params_header);
  spec.params_type = d.string("params_type");
  if (!is_type_name(spec.params_type)) d.fail("params_type", "'" + spec.params_type + "' is not a C++ type name");
  Fields shape = d.object("shape");
  std::set<std::string> known;
  for (const Workload& w : m.workloads)
    for (const auto& [k, v] : w.params.items()) known.insert(k);
  for (const auto& [k, v] : m.hidden.params) known.insert(k);
  for (const auto& [k, v] : shape.json().items()) {
    if (!v.is_string() || v.get<std::string>().find_first_not_of(" \t") == std::string::npos)
      shape.fail(k, "expected a C++ expression over `p` (the params struct), e.g. \"p.batch\"");
    if (!known.count(k)) shape.fail(k, "'" + k + "' is no workload param of this manifest");
    const std::string e = v.get<std::string>();
    // The expression is pasted into generated code: one expression, nothing else.
    if (e.find_first_of(";{}#") != std::string::npos || e.find("//") != std::string::npos || e.find("/*") != std::string::npos)
      shape.fail(k, "'" + e + "' must be a single expression (no ';', braces, '#' or comments)");
    spec.shape.emplace_back(k, e);
  }
  if (spec.shape.empty()) d.fail("shape", "name at least one workload param the kernel can read");
  return spec;
}

}  // namespace

Manifest parse_manifest(const nlohmann::json& doc, const std::filesystem::path& manifest_file) {
  Fields f(manifest_file, doc);
  if (!doc.is_object()) f.fail("", "expected a JSON object");
  f.reject_unknown({"schema", "name", "description", "backend", "editable", "kernel", "build",
                    "harness", "tunables", "constraints", "workloads", "hidden_workloads",
                    "metrics", "tolerances", "deterministic", "context", "rules", "dispatch"});
  Manifest m;
  m.file = std::filesystem::absolute(manifest_file);
  m.dir = m.file.parent_path();
  if (f.number("schema") != 1) f.fail("schema", "only schema 1 is understood");
  m.name = f.string("name");
  if (!is_identifier(m.name)) f.fail("name", "'" + m.name + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  m.description = f.string_or("description", "");
  std::string backend = f.string("backend");
  if (backend == "cpu") m.backend = Backend::Cpu;
  else if (backend == "cuda") m.backend = Backend::Cuda;
  else f.fail("backend", "'" + backend + "' is not a backend (expected \"cpu\" or \"cuda\")");

  Fields kernel = f.object("kernel");
  kernel.reject_unknown({"source", "tunables_file"});
  m.kernel_source = kernel.string("source");
  require_file(kernel, "source", m.dir, m.kernel_source);
  m.tunables_file = kernel.string("tunables_file");
  check_relative(kernel, "tunables_file", m.tunables_file);

  m.editable = f.strings("editable", true);
  for (size_t i = 0; i < m.editable.size(); ++i)
    require_file(f, fmt::format("editable[{}]", i), m.dir, m.editable[i]);
  if (std::find(m.editable.begin(), m.editable.end(), m.kernel_source) == m.editable.end())
    f.fail("editable", "must include the kernel source '" + m.kernel_source + "'");

  if (f.has("build")) {
    Fields b = f.object("build");
    b.reject_unknown({"flags", "arch", "timeout_s"});
    m.build.flags = b.strings("flags", false);
    m.build.arch = b.string_or("arch", "");
    m.build.timeout_s = b.number_or("timeout_s", 120);
    if (m.build.timeout_s <= 0) b.fail("timeout_s", "must be > 0");
  }
  if (m.backend == Backend::Cuda && m.build.arch.empty())
    f.fail("build.arch", "required for a CUDA package (e.g. \"sm_90\")");

  Fields h = f.object("harness");
  h.reject_unknown({"sources", "flags"});
  m.harness.sources = h.strings("sources", true);
  for (size_t i = 0; i < m.harness.sources.size(); ++i) {
    const auto& s = m.harness.sources[i];
    require_file(h, fmt::format("sources[{}]", i), m.dir, s);
    if (std::find(m.editable.begin(), m.editable.end(), s) != m.editable.end())
      h.fail(fmt::format("sources[{}]", i), "'" + s + "' is editable; the harness and oracle must be protected");
  }
  m.harness.flags = h.strings("flags", false);

  m.tunables = parse_tunables(f);
  std::set<std::string> names;
  for (const auto& t : m.tunables) names.insert(t.name);
  m.constraints = parse_expressions(f, "constraints", names);
  std::string why;
  if (!satisfies_constraints(m, m.default_tunables(), &why))
    f.fail("tunables", "the default values break a constraint: " + why);

  size_t nw = f.array_size("workloads", true);
  std::set<std::string> wnames;
  for (size_t i = 0; i < nw; ++i) {
    Workload w = parse_workload(f.element("workloads", i));
    if (!wnames.insert(w.name).second)
      f.fail(fmt::format("workloads[{}].name", i), "duplicate workload '" + w.name + "'");
    m.workloads.push_back(std::move(w));
  }
  if (m.workloads.empty()) f.fail("workloads", "at least one workload is needed");
  if (m.timed_workloads().empty()) f.fail("workloads", "no workload is marked \"timed\": true");
  if (m.quick_workloads().empty()) f.fail("workloads", "no workload is marked \"quick\": true");

  if (f.has("hidden_workloads")) {
    Fields hw = f.object("hidden_workloads");
    hw.reject_unknown({"count", "params"});
    m.hidden.count = static_cast<int>(hw.number_or("count", 0));
    if (m.hidden.count < 0) hw.fail("count", "must be >= 0");
    Fields params = hw.object("params");
    for (const auto& [k, v] : params.json().items()) m.hidden.params[k] = parse_hidden_param(params, k);
    if (m.hidden.count > 0 && m.hidden.params.empty()) hw.fail("params", "ranges are needed when count > 0");
  }

  if (f.has("metrics")) {
    Fields mt = f.object("metrics");
    mt.reject_unknown({"flops", "bytes"});
    m.flops = parse_metric(mt, "flops");
    m.bytes = parse_metric(mt, "bytes");
    // Every declared workload must evaluate, so a typo fails now, not mid-run.
    for (size_t i = 0; i < m.workloads.size(); ++i) {
      auto vars = numeric_params(m.workloads[i].params);
      for (auto* e : {&m.flops, &m.bytes}) {
        if (!*e) continue;
        std::string err;
        if (!(*e)->evaluate(vars, &err))
          mt.fail(e == &m.flops ? "flops" : "bytes",
                  fmt::format("cannot be evaluated for workload '{}': {}", m.workloads[i].name, err));
      }
    }
  }

  m.tolerances = parse_tolerances(f);
  m.deterministic = f.boolean_or("deterministic", true);
  m.context_files = f.strings("context", false);
  m.rules = f.strings("rules", false);
  if (f.has("dispatch")) m.dispatch = parse_dispatch(f.object("dispatch"), m);
  return m;
}

Manifest load_manifest(const std::filesystem::path& manifest_file) {
  if (!std::filesystem::is_regular_file(manifest_file))
    throw usage_error(manifest_file.string() + ": no such manifest");
  std::string text = read_file(manifest_file);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(fmt::format("{}: not valid JSON: {}", manifest_file.string(), e.what()));
  }
  return parse_manifest(doc, manifest_file);
}

const Tunable* Manifest::find_tunable(const std::string& n) const {
  for (const auto& t : tunables)
    if (t.name == n) return &t;
  return nullptr;
}

const Workload* Manifest::find_workload(const std::string& n) const {
  for (const auto& w : workloads)
    if (w.name == n) return &w;
  return nullptr;
}

std::vector<const Workload*> Manifest::quick_workloads() const {
  std::vector<const Workload*> out;
  for (const auto& w : workloads)
    if (w.quick) out.push_back(&w);
  return out;
}

std::vector<const Workload*> Manifest::timed_workloads() const {
  std::vector<const Workload*> out;
  for (const auto& w : workloads)
    if (w.timed) out.push_back(&w);
  return out;
}

std::map<std::string, long long> Manifest::default_tunables() const {
  std::map<std::string, long long> out;
  for (const auto& t : tunables) out[t.name] = t.default_value;
  return out;
}

std::map<std::string, double> numeric_params(const nlohmann::json& params) {
  std::map<std::string, double> out;
  if (!params.is_object()) return out;
  for (const auto& [k, v] : params.items()) {
    if (v.is_number()) out[k] = v.get<double>();
    else if (v.is_boolean()) out[k] = v.get<bool>() ? 1 : 0;
  }
  return out;
}

bool satisfies_constraints(const Manifest& m, const std::map<std::string, long long>& tunables,
                           std::string* why) {
  std::map<std::string, double> vars;
  for (const auto& [k, v] : tunables) vars[k] = static_cast<double>(v);
  for (const auto& c : m.constraints) {
    std::string err;
    auto r = c.evaluate(vars, &err);
    if (!r) {
      if (why) *why = "'" + c.text() + "': " + err;
      return false;
    }
    if (*r == 0) {
      if (why) *why = "'" + c.text() + "' does not hold";
      return false;
    }
  }
  return true;
}

std::map<std::string, long long> read_tunables_file(const Manifest& m,
                                                    const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return m.default_tunables();
  return parse_tunables_text(m, read_file(file), file.string());
}

std::map<std::string, long long> parse_tunables_text(const Manifest& m, const std::string& text,
                                                     const std::string& origin) {
  auto values = m.default_tunables();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!doc.is_object()) throw usage_error(origin + ": expected an object {NAME: value}");
  for (const auto& [k, v] : doc.items()) {
    const Tunable* t = m.find_tunable(k);
    if (!t) throw usage_error(fmt::format("{}: {}: not a tunable of {}", origin, k, m.name));
    if (!v.is_number_integer())
      throw usage_error(fmt::format("{}: {}: expected an integer, got {}", origin, k, v.dump()));
    long long x = v.get<long long>();
    if (std::find(t->values.begin(), t->values.end(), x) == t->values.end())
      throw usage_error(fmt::format("{}: {}: {} is not an allowed value", origin, k, x));
    values[k] = x;
  }
  return values;
}

std::string tunables_to_json_text(const std::map<std::string, long long>& t) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : t) j[k] = v;
  return j.dump(2) + "\n";
}

}  // namespace ar
