#pragma once
// What a call cost: the price table (configs/prices.json), which endpoints are
// paid, and the cost of one call's token usage. An unknown model on a paid
// endpoint is priced at the table's highest price and flagged, so a cost
// budget still binds; a local endpoint costs nothing.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ar {

struct LlmUsage;

struct ModelPrice {
  // A model name, or a prefix ending in '*'. Without '*' it matches the name
  // itself and its dated or tagged variants ("gpt-4.1" matches "gpt-4.1" and
  // "gpt-4.1-2025-04-14", not "gpt-4.1-mini"); the longest pattern wins.
  std::string match;
  std::string provider;                 // "openai" / "anthropic", informational
  double input_per_mtok = 0;            // USD per million input tokens
  double output_per_mtok = 0;           // USD per million output tokens
  std::optional<double> cached_input_per_mtok;  // cache reads; absent: billed as input
  std::optional<double> cache_write_per_mtok;   // cache writes (Anthropic); absent: as input
  std::string note;                     // e.g. how the figure was confirmed
};

class PriceTable {
 public:
  // Errors (unreadable file, bad JSON, a missing or mistyped field) throw
  // ar::Fatal(kExitUsage) naming the file and the field, e.g.
  // "configs/prices.json: models[3].output_per_mtok: expected a number >= 0".
  static PriceTable load(const std::filesystem::path& path);
  static PriceTable parse(const std::string& json_text, const std::string& origin);

  // The entry for this model (the longest matching pattern), or nullptr. A
  // "vendor/" prefix (OpenRouter, LiteLLM) and letter case are ignored, and a
  // dotted version also tries its dashed spelling (claude-sonnet-4.5 matches
  // claude-sonnet-4-5).
  const ModelPrice* find(const std::string& model) const;
  // The highest input and the highest output price in the table (each the
  // maximum over all entries), used for unknown models on paid endpoints.
  ModelPrice fallback() const;

  const std::vector<ModelPrice>& entries() const { return entries_; }
  const std::string& origin() const { return origin_; }
  const std::string& retrieved() const { return retrieved_; }  // the date of the prices

 private:
  std::vector<ModelPrice> entries_;
  std::string origin_;
  std::string retrieved_;
};

// False when the base URL's host is loopback (127.0.0.0/8, ::1), "localhost" or
// "*.localhost", a private (10/8, 172.16/12, 192.168/16, fc00::/7) or
// link-local (169.254/16, fe80::/10) address, 0.0.0.0, or ends in ".local".
// True otherwise, and for an empty URL (the provider's public default).
bool is_paid_endpoint(const std::string& base_url);

struct CallCost {
  double usd = 0;
  bool estimated = false;  // the model was not in the table, or the tokens were estimated
  std::string basis;       // "gpt-4.1 in configs/prices.json", "free endpoint", ...
};

// Cost of one call. `models` are tried in order (the model the endpoint
// reported, then the one requested); the first with a price is used.
CallCost call_cost(const PriceTable& prices, const std::vector<std::string>& models, bool paid,
                   const LlmUsage& usage);

}  // namespace ar
