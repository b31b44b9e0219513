#include <fmt/format.h>

#include "autoresearch/measure/harness.h"
#include "autoresearch/util/subprocess.h"

namespace ar {

namespace {

class ProcessHarness : public Harness {
 public:
  ProcessHarness(std::filesystem::path exe, int gpu, const std::atomic<bool>* cancel)
      : exe_(std::move(exe)), gpu_(gpu), cancel_(cancel) {}
  ~ProcessHarness() override { stop(); }

  std::optional<nlohmann::json> start(std::string* error) override {
    stop();
    ProcessSpec spec;
    spec.argv = {exe_.string(), "--gpu", std::to_string(gpu_)};
    spec.cancel = cancel_;
    std::string why;
    chan_ = start_line_channel(spec, &why);
    if (!chan_) {
      if (error) *error = "cannot start the harness " + exe_.string() + ": " + why;
      return std::nullopt;
    }
    auto r = call({{"cmd", "hello"}}, std::chrono::seconds(120));
    if (!r.ok()) {
      if (error) *error = "the harness did not say hello: " + r.message;
      stop();
      return std::nullopt;
    }
    return r.body.value("device", nlohmann::json::object());
  }

  HarnessReply call(const nlohmann::json& request, std::chrono::milliseconds timeout) override {
    HarnessReply r;
    if (!chan_ || !chan_->alive()) {
      r.status = HarnessReply::Status::Crashed;
      // Dead before this call (killed while idle, e.g. by the OOM killer): how it died says whose fault it was.
      if (chan_) r.signal = chan_->exit_signal();
      r.message = "the harness is not running (" + ended() + ")" + tail();
      return r;
    }
    if (!chan_->write_line(request.dump())) {
      r.status = HarnessReply::Status::Crashed;
      r.message = "the harness stopped reading (" + ended() + ")" + tail();
      return r;
    }
    std::string why;
    auto line = chan_->read_line(timeout, &why);
    if (!line) {
      if (why == "timeout") {
        r.status = HarnessReply::Status::TimedOut;
        r.message = fmt::format("no answer within {:.0f} s", timeout.count() / 1000.0);
      } else if (why == "cancelled") {
        r.status = HarnessReply::Status::Cancelled;
        r.message = "interrupted";
      } else {
        r.status = HarnessReply::Status::Crashed;
        chan_->kill();
        r.signal = chan_->exit_signal();
        r.message = "the harness died (" + ended() + ")";
      }
      r.message += tail();
      chan_->kill();
      return r;
    }
    try {
      r.body = nlohmann::json::parse(*line);
    } catch (const nlohmann::json::parse_error&) {
      r.status = HarnessReply::Status::Crashed;
      r.message = "the harness sent something that is not JSON: " + line->substr(0, 200) + tail();
      chan_->kill();
      return r;
    }
    if (!r.body.is_object() || !r.body.contains("ok")) {
      r.status = HarnessReply::Status::Crashed;
      r.message = "the harness sent a reply without \"ok\"" + tail();
      chan_->kill();
      return r;
    }
    if (r.body["ok"] == true) {
      r.status = HarnessReply::Status::Ok;
    } else {
      r.status = HarnessReply::Status::Error;
      r.message = r.body.value("kind", "error") + ": " + r.body.value("error", "(no message)");
      // A fault leaves the device unusable, a fatal guard failure the process
      // (a thread the kernel started): the harness exits after replying.
      if (r.body.value("kind", "") == "fault" || r.body.value("exits", false)) chan_->kill();
    }
    return r;
  }

  void stop() override {
    if (chan_) {
      if (chan_->alive()) {
        chan_->write_line(R"({"cmd":"quit"})");
        std::string why;
        chan_->read_line(std::chrono::seconds(2), &why);
      }
      chan_->kill();
      chan_.reset();
    }
  }

 private:
  std::string ended() { return chan_ ? chan_->exit_description() : "not started"; }
  std::string tail() {
    if (!chan_) return "";
    std::string t = chan_->stderr_tail(2000);
    return t.empty() ? "" : "\nharness stderr:\n" + t;
  }

  std::filesystem::path exe_;
  int gpu_;
  const std::atomic<bool>* cancel_;
  std::unique_ptr<LineChannel> chan_;
};

}  // namespace

std::unique_ptr<Harness> make_process_harness(std::filesystem::path exe, int gpu,
                                              const std::atomic<bool>* cancel) {
  return std::make_unique<ProcessHarness>(std::move(exe), gpu, cancel);
}

}  // namespace ar
