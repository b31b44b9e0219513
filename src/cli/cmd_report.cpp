// `autoresearch report [RUN]`: a run's summary for the morning after, as a
// terminal summary or as Markdown, CSV, JSON or one self-contained HTML page.
// It is a listing like `log`: on stdout, or into --out FILE.
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/report_model.h"
#include "autoresearch/ui/printer.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "commands.h"
#include "run_admin.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct ReportArgs {
  std::string run;
  std::string log;
  std::string format = "text";
  std::string out;
};

// A committed result is often gzip'ed; the driver links no zlib, so it says how to unpack it.
void refuse_compressed(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  if (in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b)
    throw usage_error(fmt::format("{} is gzip-compressed; unpack it first: zcat {} > /tmp/run.jsonl && "
                                  "autoresearch report --log /tmp/run.jsonl",
                                  file.string(), file.string()));
}

fs::path chosen_log(const ReportArgs& a) {
  if (!a.log.empty()) {
    if (!a.run.empty()) throw usage_error("give RUN or --log FILE, not both");
    if (!fs::is_regular_file(a.log)) throw usage_error(fmt::format("--log: no such file {}", a.log));
    return a.log;
  }
  Paths p;
  p.home = find_home();
  if (names_log_outside_repo(a.run)) return run_log_file(p, a.run);
  p.repo = find_repo(fs::current_path());
  return run_log_file(p, a.run.empty() ? latest_run(p) : a.run);
}

std::string render(const Report& r, const std::string& format) {
  if (format == "text") return render_report_text(r, output_width(stdout));
  if (format == "md") return render_report_markdown(r);
  if (format == "csv") return render_report_csv(r);
  if (format == "json") return render_report_json(r).dump(2) + "\n";
  return render_report_html(r);
}

}  // namespace

CommandAction add_report_command(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("run", a->run, "run id (default: the latest run), a run folder, or an experiments.jsonl file");
  sub.add_option("--log", a->log, "read this experiments.jsonl (e.g. a committed result); no repository needed");
  sub.add_option("--format", a->format, "text (default), md, csv (the per-workload table), json, or html")
      ->check(CLI::IsMember({"text", "md", "csv", "json", "html"}));
  sub.add_option("--out", a->out, "write the report to FILE instead of stdout");
  sub.footer(
      "Shows start -> best (the result as `log` states it), the per-workload table (µs, TFLOP/s, GB/s,\n"
      "% of roofline, speedup), the keep rate and decisions, where the wall time went, tokens and cost,\n"
      "and the commands that reproduce the best. --format html is one self-contained page (inline SVG,\n"
      "no script, nothing fetched). A .jsonl.gz must be unpacked first (zcat FILE > run.jsonl).\n"
      "Exit codes: 0; 2 no such run, or a log that cannot be read.");
  return [a] {
    const fs::path file = chosen_log(*a);
    refuse_compressed(file);
    const Report report = build_report(read_log(file));
    const std::string text = render(report, a->format);
    if (a->out.empty()) {
      std::cout << text;
      return 0;
    }
    write_file_atomic(a->out, text);
    fmt::print(stderr, "report of {} written to {}\n", report.run_id.empty() ? file.string() : report.run_id, a->out);
    return 0;
  };
}

}  // namespace ar
