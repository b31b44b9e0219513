#include "options.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <type_traits>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {

static std::string flag_name(const std::string& field) {
  std::string s = field;
  std::replace(s.begin(), s.end(), '_', '-');
  return "--" + s;
}

void add_config_flags(CLI::App& sub, ConfigFlags& f, const std::vector<std::string>& only) {
  f.flags.visit([&](const char* name, auto& field, const char* help) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) return;
    CLI::Option* opt = sub.add_option(flag_name(name), field, help);
    // A list option takes one value per flag and may repeat: --idea "a" --idea "b".
    using Field = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<Field, std::vector<std::string>>)
      opt->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    // An integer out of the field's range is refused, never clamped to its limit.
    if constexpr (std::is_integral_v<Field> && !std::is_same_v<Field, bool>)
      opt->check(CLI::Validator(
          [](std::string& text) -> std::string {
            Field v{};
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc::result_out_of_range)
              return "out of range (" + std::to_string(std::numeric_limits<Field>::min()) + " to " +
                     std::to_string(std::numeric_limits<Field>::max()) + ")";
            if (ec != std::errc() || end != text.data() + text.size()) return "not an integer: " + text;
            return "";
          },
          "INTEGER"));
    f.options[name] = opt;
  });
  sub.add_option("--config", f.config_file, "options file (JSON object of the options below)")
      ->check(CLI::ExistingFile);
}

RunConfig layered_config(const ConfigFlags& f, const Paths& paths, nlohmann::json* given) {
  RunConfig c;
  std::filesystem::path file = f.config_file;
  if (file.empty() && std::filesystem::exists(paths.repo / "configs" / "autoresearch.json"))
    file = paths.repo / "configs" / "autoresearch.json";
  if (!file.empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_file(file));
    } catch (const nlohmann::json::parse_error& e) {
      throw usage_error(file.string() + ": not valid JSON: " + e.what());
    }
    apply_json(c, j, file.string());
  }
  apply_environment(c);
  nlohmann::json g = nlohmann::json::object();
  RunConfig flags = f.flags;
  flags.visit([&](const char* name, auto& field, const char*) {
    auto it = f.options.find(name);
    if (it != f.options.end() && it->second->count() > 0) g[name] = field;
  });
  apply_json(c, g, "the command line");
  if (given) *given = g;
  return c;
}

KeepRuleConfig keep_rule_from(const RunConfig& cfg) {
  KeepRuleConfig r;   // the same fields `run` takes from its config
  r.min_gain = cfg.min_gain;
  r.aa_factor = cfg.aa_factor;
  r.alpha = cfg.alpha;
  r.regression_margin = cfg.regression_margin;
  return r;
}

}  // namespace ar
