#include "common/server.h"

#include <iostream>

#include "common/bench.h"
#include "common/exercise.h"
#include "common/request.h"
#include "common/verify.h"

namespace ar::harness {

struct Commands {
  using Handler = json (*)(Server&, const json&);
  struct Entry {
    const char* name;
    Handler handler;
  };

  static json hello(Server& s, const json&) {
    return json{{"ok", true}, {"protocol", kProtocolVersion}, {"device", s.device_.info()}};
  }

  static json load(Server& s, const json& rq) {
    const std::string slot = string_field(rq, "slot");
    if (slot.empty()) throw HarnessError("bad_request", "field 'slot': must not be empty");
    const std::string artifact = string_field(rq, "artifact");
    s.artifacts_.erase(slot);
    s.watch_.forget(slot);
    s.device_.load(slot, artifact);
    s.artifacts_[slot] = artifact;
    s.watch_.baseline(slot);   // before any launch: the state every later snapshot must equal
    return json{{"ok", true}, {"slot", slot}};
  }

  static json verify(Server& s, const json& rq) {
    return run_verify(s.device_, s.problem_, parse_verify_request(rq));
  }

  static json exercise(Server& s, const json& rq) {
    return run_exercise(s.device_, s.problem_, parse_exercise_request(rq));
  }

  static json launch(Server& s, const json& rq) {
    return run_launch(s.device_, s.problem_, parse_exercise_request(rq));
  }

  static json bench(Server& s, const json& rq) {
    return run_bench(s.device_, s.problem_, parse_bench_request(rq),
                     [&s](const std::string& when) { s.watch_.require_unchanged(when); });
  }

  static json quit(Server& s, const json&) {
    s.quit_ = true;
    return json{{"ok", true}};
  }
};

namespace {

// One row per command; the protocol's whole surface at a glance.
const Commands::Entry kCommands[] = {{"hello", Commands::hello},   {"load", Commands::load},
                                     {"verify", Commands::verify}, {"exercise", Commands::exercise},
                                     {"launch", Commands::launch}, {"bench", Commands::bench},
                                     {"quit", Commands::quit}};

}  // namespace

json error_reply(const std::string& kind, const std::string& message, const std::string& slot) {
  return json{{"ok", false}, {"kind", kind}, {"error", message}, {"slot", slot}};
}

json guard_reply(const GuardError& e, const std::string& slot) {
  json r = e.details.is_object() ? e.details : json::object();
  r["ok"] = false;
  r["kind"] = "guard";
  r["rule"] = e.rule;
  r["error"] = e.what();
  r["slot"] = slot;
  return r;
}

std::optional<GuardError> Server::settle_state(const std::string& when) {
  const std::vector<StateChange> changes = watch_.changes();
  for (const StateChange& c : changes) {
    // Back to the state as loaded, whoever changed it, so the next request is judged on its own.
    watch_.forget(c.slot);
    auto artifact = artifacts_.find(c.slot);
    if (artifact == artifacts_.end()) continue;
    try {
      device_.load(c.slot, artifact->second);
      watch_.baseline(c.slot);
    } catch (const std::exception& e) {
      std::cerr << "harness: reloading slot '" << c.slot << "' after its state changed failed: " << e.what() << "\n";
      artifacts_.erase(artifact);
      throw;
    }
  }
  if (changes.empty()) return std::nullopt;
  return state_guard_error(changes.front(), when);
}

namespace {

// The slot an error is about when the error itself does not say.
std::string request_slot(const json& rq) {
  auto it = rq.find("slot");
  if (it != rq.end() && it->is_string()) return it->get<std::string>();
  return "";
}

}  // namespace

json Server::handle_line(const std::string& line) {
  json request;
  try {
    request = json::parse(line);
  } catch (const json::parse_error& e) {
    return error_reply("bad_request", std::string("malformed JSON: ") + e.what());
  }
  return handle(request);
}

json Server::handle(const json& request) {
  if (!request.is_object()) return error_reply("bad_request", "a request is a JSON object with a \"cmd\"");
  auto cmd = request.find("cmd");
  if (cmd == request.end() || !cmd->is_string())
    return error_reply("bad_request", "missing field 'cmd' (a string)");
  const std::string name = cmd->get<std::string>();

  json reply;
  const Commands::Entry* entry = nullptr;
  for (const auto& e : kCommands)
    if (name == e.name) entry = &e;
  if (!entry) {
    reply = error_reply("bad_request",
                        "unknown command '" + name + "' (expected hello, load, verify, exercise, bench or quit)");
  } else {
    try {
      reply = entry->handler(*this, request);
    } catch (const GuardError& e) {
      reply = guard_reply(e, e.slot.empty() ? request_slot(request) : e.slot);
      // "exits": the process cannot be trusted (a thread the kernel started
      // may still run in it): leave after this reply, as after a fault.
      if (e.details.value("exits", false)) fault_ = true;
    } catch (const HarnessError& e) {
      reply = error_reply(e.kind, e.what(), e.slot.empty() ? request_slot(request) : e.slot);
      if (e.kind == "fault") fault_ = true;
    } catch (const ProblemError& e) {
      reply = error_reply("problem_error", e.what(), request_slot(request));
    } catch (const json::exception& e) {
      // A field of the right JSON type but unusable (a reply could not be built,
      // or the problem read params of the wrong type).
      reply = error_reply("bad_request", e.what(), request_slot(request));
    } catch (const std::bad_alloc&) {
      reply = error_reply("problem_error", "out of memory", request_slot(request));
    } catch (const std::exception& e) {
      reply = error_reply("problem_error", e.what(), request_slot(request));
    }
  }
  // Whatever the request did, no module may keep state from it (a failed
  // request included: its changes would otherwise be blamed on the next one).
  if (entry && !fault_ && (name == "verify" || name == "exercise" || name == "launch" || name == "bench")) {
    try {
      if (auto guard = settle_state("after " + name)) {
        if (reply.value("ok", false)) reply = guard_reply(*guard, guard->slot);
        else if (reply.value("kind", "") != "guard") reply["state"] = guard->what();
      }
    } catch (const HarnessError& e) {
      reply = error_reply(e.kind, e.what(), e.slot);
      if (e.kind == "fault") fault_ = true;
    } catch (const std::exception& e) {
      reply = error_reply("load_error", std::string("reloading a slot whose state changed: ") + e.what());
    }
  }
  // Echoed so a driver can pair replies with requests.
  auto id = request.find("id");
  if (id != request.end()) reply["id"] = *id;
  return reply;
}

}  // namespace ar::harness
