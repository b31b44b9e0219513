// The dry-run probe (`autoresearch verify --dry-run`): the package's problem
// sources linked with this main instead of the harness, so the host side of a
// problem runs on a machine without the device. It never calls prepare(): it
// asks the problem what it declares and which workload sizes it accepts.
//
// stdin:  {"workloads":[{"id":ANY,"params":{...}}, ...]}
// stdout: {"ok":true,"outputs":[...],"params":[...],
//          "workloads":[{"id":ANY,"ok":true,"rotation_bytes":N} | {"id":ANY,"ok":false,"error":"..."}]}
//         {"ok":false,"error":"..."} when the problem cannot even be made.
#include <exception>
#include <iostream>
#include <iterator>
#include <string>

#include "autoresearch/harness/problem.h"

int main() {
  using nlohmann::json;
  json out;
  try {
    const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    const json request = json::parse(text);
    auto problem = ar::harness::make_problem();
    out["ok"] = true;
    out["outputs"] = problem->output_names();
    out["params"] = problem->param_names();
    out["workloads"] = json::array();
    for (const auto& w : request.at("workloads")) {
      json r = {{"id", w.value("id", json())}};
      try {
        r["rotation_bytes"] = problem->rotation_bytes(w.at("params"));
        r["ok"] = true;
      } catch (const std::exception& e) {
        r["ok"] = false;
        r["error"] = e.what();
      }
      out["workloads"].push_back(r);
    }
  } catch (const std::exception& e) {
    out = {{"ok", false}, {"error", e.what()}};
  }
  std::cout << out.dump() << "\n";
  return 0;
}
