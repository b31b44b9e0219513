// HarnessSession's memory of its slots across a restart of the harness.
#include <fstream>

#include "autoresearch/measure/harness.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

namespace {

// Loads succeed unless the artifact's name says "bad"; a start forgets everything.
class RecordingHarness : public Harness {
 public:
  std::vector<std::string> loads;
  std::optional<nlohmann::json> start(std::string*) override {
    loads.clear();
    return nlohmann::json{{"name", "fake"}};
  }
  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds) override {
    HarnessReply r;
    std::string artifact = req.value("artifact", "");
    if (artifact.find("bad") != std::string::npos) {
      r.status = HarnessReply::Status::Error;
      r.message = "load_error: not a cubin";
      return r;
    }
    loads.push_back(req.value("slot", ""));
    r.status = HarnessReply::Status::Ok;
    r.body = {{"ok", true}};
    return r;
  }
  void stop() override {}
};

}  // namespace

// Found on the H200: after a keep, a restart tried to reload the judged
// candidate from its cleaned build folder, gave up there, and left the best's
// slot empty.
TEST_CASE("a restart reloads every slot whose artifact exists, whatever fails before it") {
  TempDir dir;
  auto touch = [&](const std::string& name) {
    std::ofstream(dir.path() / name) << "x";
    return dir.path() / name;
  };
  RecordingHarness h;
  HarnessSession s(h);
  s.start();
  REQUIRE(s.load("aa", touch("best.cubin")).ok());
  REQUIRE(s.load("cand", touch("judged.cubin")).ok());
  REQUIRE(s.load("inc", touch("best2.cubin")).ok());
  REQUIRE(s.load("zz", touch("bad.cubin")).status == HarnessReply::Status::Error);   // never remembered
  fs::remove(dir.path() / "judged.cubin");   // its build folder was cleaned after the keep

  std::string err;
  CHECK(s.recover("", &err));
  CHECK(h.loads == std::vector<std::string>{"aa", "inc"});
  // The forgotten slot stays forgotten at the next restart.
  CHECK(s.recover("", &err));
  CHECK(h.loads == std::vector<std::string>{"aa", "inc"});
}
