#include "common/verify.h"

#include <chrono>

#include "common/reference_keeper.h"
#include "common/session.h"

namespace ar::harness {

namespace {

// Where a verification's time goes, for the log: the driver's throughput
// breakdown says "verify", this says which part of it.
struct VerifyTiming {
  double prepare = 0, inputs = 0, candidate = 0, fingerprints = 0, reference = 0, checks = 0;

  json to_json() const {
    return {{"prepare", prepare}, {"inputs", inputs}, {"candidate", candidate}, {"fingerprints", fingerprints},
            {"reference", reference}, {"checks", checks}};
  }
};

// Adds the seconds from its construction to its destruction to one part.
class Timed {
 public:
  explicit Timed(double& part) : part_(part), start_(std::chrono::steady_clock::now()) {}
  ~Timed() { part_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& part_;
  std::chrono::steady_clock::time_point start_;
};

template <class F>
auto timed(double& part, F&& f) {
  Timed t(part);
  return f();
}

struct DistributionResult {
  bool pass = true;
  std::string reason;
  std::vector<OutputCheck> outputs;
};

// One distribution on rotation 0. The candidate runs twice around the
// reference: the first run shows a kernel that writes its inputs, the second
// (after a fresh poison) one that relies on stale output memory or caches its
// results across calls. The second run could also overwrite the reference's
// results (the verdict): ReferenceKeeper proves it did not.
DistributionResult verify_distribution(Device& device, Problem& problem, const VerifyRequest& rq, int d,
                                       VerifyTiming& t) {
  DistributionResult r;
  const uint64_t seed = derive_seed(rq.seed, static_cast<uint64_t>(d));
  timed(t.inputs, [&] { problem.randomize(0, seed, d); });
  const std::string inputs = timed(t.fingerprints, [&] { return problem.input_fingerprint(0); });
  ReferenceKeeper refs(problem, 1);

  timed(t.candidate, [&] {
    problem.poison_outputs(0);
    device.run(rq.slot, 0);
  });
  if (timed(t.fingerprints, [&] { return problem.input_fingerprint(0); }) != inputs) {
    r.pass = false;
    r.reason = "the kernel modified its inputs";
    return r;
  }
  const std::string first = timed(t.fingerprints, [&] { return problem.output_fingerprint(0); });
  timed(t.reference, [&] { refs.ensure(0); });

  // When runs may differ, the first run must be within tolerance on its own.
  if (!rq.deterministic) {
    auto checks = timed(t.checks, [&] { return refs.check(0, rq.tolerances, derive_seed(seed, 1), rq.slot); });
    if (!checks_pass(checks, &r.reason)) {
      r.pass = false;
      r.reason += " (first run)";
      r.outputs = std::move(checks);
      return r;
    }
  }

  timed(t.candidate, [&] {
    problem.poison_outputs(0);
    device.run(rq.slot, 0);
  });
  if (timed(t.fingerprints, [&] { return problem.input_fingerprint(0); }) != inputs) {
    r.pass = false;
    r.reason = "the kernel modified its inputs (second run)";
    return r;
  }
  const std::string second = timed(t.fingerprints, [&] { return problem.output_fingerprint(0); });
  r.outputs = timed(t.checks, [&] { return refs.check(0, rq.tolerances, derive_seed(seed, 2), rq.slot); });
  std::string check_reason;
  const bool checks_ok = checks_pass(r.outputs, &check_reason);
  if (rq.deterministic && first != second) {
    r.pass = false;
    r.reason = "two runs on the same inputs differ bitwise (the kernel is declared deterministic)";
    if (!checks_ok) r.reason += "; " + check_reason;
    return r;
  }
  r.pass = checks_ok;
  r.reason = check_reason;
  return r;
}

}  // namespace

VerifyRequest parse_verify_request(const json& request) {
  VerifyRequest rq;
  rq.slot = string_field(request, "slot");
  rq.workload = workload_field(request);
  rq.seed = seed_field(request, "seed", 0);
  rq.tolerances = tolerances_field(request, "tolerances");
  rq.deterministic = bool_field(request, "deterministic", true);
  return rq;
}

json run_verify(Device& device, Problem& problem, const VerifyRequest& rq) {
  const auto start = std::chrono::steady_clock::now();
  VerifyTiming timing;
  ProblemSession session(device, problem);
  timed(timing.prepare, [&] { session.prepare_unpadded_rotation(rq.slot, rq.workload.params); });

  json distributions = json::array();
  bool pass = true;
  std::string reason;
  // Stops at the first failing distribution: the rest cannot make it pass, and
  // most candidates fail, so their time is better spent on the next one.
  for (int d = 0; d < problem.distributions() && pass; ++d) {
    DistributionResult r = verify_distribution(device, problem, rq, d, timing);
    const std::string name = problem.distribution_name(d);
    json entry{{"name", name}, {"pass", r.pass}, {"outputs", to_json(r.outputs)}};
    if (!r.pass) {
      entry["reason"] = r.reason;
      pass = false;
      reason = r.reason + " (distribution " + name + ")";
    }
    distributions.push_back(std::move(entry));
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return json{{"ok", true},
              {"pass", pass},
              {"reason", reason},
              {"workload", rq.workload.name},
              {"seconds", seconds},
              {"timing", timing.to_json()},
              {"distributions", std::move(distributions)}};
}

}  // namespace ar::harness
