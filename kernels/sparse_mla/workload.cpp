// A sparse_mla workload: its params (validated, every error naming the field)
// and the per-trial random layout of the KV pool.
#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

#include "autoresearch/harness/problem.h"
#include "problem_parts.h"

namespace sparse_mla {

namespace {

using ar::harness::ProblemError;

struct Field {
  const char* name;
  double lo, hi;
  bool integer;
  const char* help;
};

// The params a workload may set: one table for validation and for the messages.
const Field kFields[] = {
    {"batch", 1, 4096, true, "requests in the batch"},
    {"s_q", 1, 16, true, "query tokens per request (2 for multi-token prediction)"},
    {"heads", 1, 1024, true, "query heads"},
    {"topk", 1, 16384, true, "selected positions per query token"},
    {"context", 1, 1 << 24, true, "tokens in each request's cache (the mean when varlen)"},
    {"page_size", 1, 4096, true, "tokens per cache page"},
    {"fp8", 0, 1, true, "1: 656-byte FP8 records, 0: BF16 rows"},
    {"varlen", 0, 1, true, "1: contexts ~ N(context, context/2) clamped to [1, 2*context]"},
    {"topk_length", 0, 1, true, "1: pass topk_length[b] <= topk"},
    {"scale", 1e-6, 100, false, "softmax scale (default 0.13523)"},
};

std::string field_list() {
  std::string s;
  for (const auto& f : kFields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

}  // namespace

std::vector<std::string> param_names() {
  std::vector<std::string> out;
  for (const auto& f : kFields) out.push_back(f.name);
  return out;
}

namespace {

double read(const nlohmann::json& params, const Field& f, double fallback, bool required) {
  auto it = params.find(f.name);
  if (it == params.end()) {
    if (required) throw ProblemError(std::string("workload params: '") + f.name + "' is required (" + f.help + ")");
    return fallback;
  }
  double v = 0;
  if (it->is_boolean()) v = it->get<bool>() ? 1 : 0;
  else if (it->is_number()) v = it->get<double>();
  else throw ProblemError(std::string("workload params: '") + f.name + "' must be a number, got " + it->dump());
  if (!(v >= f.lo && v <= f.hi))
    throw ProblemError(std::string("workload params: '") + f.name + "' = " + it->dump() + " is outside [" +
                       std::to_string(static_cast<long long>(f.lo)) + ", " +
                       std::to_string(static_cast<long long>(f.hi)) + "] (" + f.help + ")");
  if (f.integer && v != std::floor(v))
    throw ProblemError(std::string("workload params: '") + f.name + "' must be an integer, got " + it->dump());
  return v;
}

const Field& field(const char* name) {
  for (const auto& f : kFields)
    if (std::string(f.name) == name) return f;
  throw ProblemError(std::string("internal: no field ") + name);
}

// Uniform in [0, 1) and standard normal from a splitmix stream.
struct HostRng {
  uint64_t state;
  uint64_t next() { return mix64(state++); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {
    const double u1 = (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * uniform());
  }
};

}  // namespace

const char* distribution_name(int d) {
  switch (d) {
    case kRandn: return "randn";
    case kUniform: return "uniform_holes";
    case kPeaked: return "peaked";
    case kScaledUp: return "scaled_up";
    case kScaledDown: return "scaled_down";
    case kOutliers: return "outliers";
    case kAllEqual: return "all_equal";
    default: return "?";
  }
}

Shape parse_shape(const nlohmann::json& params) {
  if (!params.is_object()) throw ProblemError("workload params: expected an object, got " + params.dump());
  for (auto it = params.begin(); it != params.end(); ++it) {
    bool known = false;
    for (const auto& f : kFields) known = known || it.key() == f.name;
    if (!known)
      throw ProblemError("workload params: unknown parameter '" + it.key() + "' (expected " + field_list() + ")");
  }
  Shape s;
  s.batch = static_cast<int>(read(params, field("batch"), 0, true));
  s.s_q = static_cast<int>(read(params, field("s_q"), 1, false));
  s.heads = static_cast<int>(read(params, field("heads"), 128, false));
  s.topk = static_cast<int>(read(params, field("topk"), 2048, false));
  s.context = static_cast<int>(read(params, field("context"), 0, true));
  s.page_size = static_cast<int>(read(params, field("page_size"), 64, false));
  s.fp8 = read(params, field("fp8"), 0, false) != 0;
  s.varlen = read(params, field("varlen"), 0, false) != 0;
  s.use_topk_length = read(params, field("topk_length"), 0, false) != 0;
  s.scale = static_cast<float>(read(params, field("scale"), 0.13523, false));

  s.ctx_max = s.varlen ? 2 * s.context : s.context;
  const long long per_request = (static_cast<long long>(s.ctx_max) + s.page_size - 1) / s.page_size;
  const long long used = per_request * s.batch;
  s.pages = used + 1 + used / 32;   // spare pages: never referenced, NaN-filled
  s.num_slots = s.pages * s.page_size;
  if (s.num_slots >= INT_MAX)
    throw ProblemError("workload params: batch * context = " + std::to_string(used * s.page_size) +
                       " cache slots do not fit the int32 indices (fewer than 2^31 needed)");
  if (s.rows() * s.heads > INT_MAX || static_cast<long long>(s.idx_elems()) > INT_MAX)
    throw ProblemError("workload params: batch * s_q * heads (or * topk) is too large");
  return s;
}

PoolLayout draw_pool_layout(const Shape& s, uint64_t seed) {
  HostRng rng{mix64(seed ^ 0x706f6f6cull)};
  PoolLayout L;
  L.context.resize(s.batch);
  L.page_offset.resize(s.batch + 1);
  L.page_offset[0] = 0;
  for (int b = 0; b < s.batch; ++b) {
    long long c = s.context;
    if (s.varlen) c = std::llround(s.context + 0.5 * s.context * rng.normal());
    c = std::clamp<long long>(c, 1, s.ctx_max);
    L.context[b] = static_cast<int>(c);
    L.page_offset[b + 1] = L.page_offset[b] + (c + s.page_size - 1) / s.page_size;
  }
  L.used_pages = L.page_offset[s.batch];
  L.perm_key = rng.next();
  return L;
}

std::vector<int> draw_topk_length(const Shape& s, uint64_t seed, int distribution) {
  HostRng rng{mix64(seed ^ 0x746b6cull)};
  std::vector<int> t(s.batch);
  // Shorter than topk (the indices past it are valid slots a kernel must ignore).
  const int lo = std::max(1, s.topk / 8);
  for (int b = 0; b < s.batch; ++b) t[b] = lo + static_cast<int>(rng.next() % static_cast<uint64_t>(s.topk - lo + 1));
  if (distribution == kUniform) t[rng.next() % s.batch] = 0;   // a request with nothing to attend to
  return t;
}

}  // namespace sparse_mla
