// `autoresearch report [RUN]`: a run's summary for the morning after, as a
// terminal summary or as Markdown, CSV, JSON or one self-contained HTML page.
// It is a listing like `log`: on stdout, or into --out FILE.
#include <fstream>
#include <iostream>

#include <stdlib.h>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/report_model.h"
#include "autoresearch/ui/printer.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/file_lock.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/subprocess.h"
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

bool gzip_compressed(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  return in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
         static_cast<unsigned char>(magic[1]) == 0x8b;
}

// A committed result is gzip'ed (kernels/*/results/*.jsonl.gz). The driver
// links no zlib: the system's gzip unpacks it into a private temporary file.
LogContents read_any_log(const fs::path& file) {
  if (!gzip_compressed(file)) return read_log(file);
  ProcessSpec spec;
  spec.argv = {"gzip", "-dc", file.string()};
  spec.timeout = std::chrono::seconds(120);
  spec.max_output_bytes = size_t{1} << 31;
  ProcessResult unpacked = RealProcessRunner().run(spec);
  if (!unpacked.ok())
    throw usage_error(fmt::format("cannot unpack {} with gzip ({}): {}", file.string(), unpacked.describe(),
                                  unpacked.spawn_failed ? unpacked.spawn_error : first_line(unpacked.err)));
  // A private folder (mkdtemp: 0700, a fresh name), so no other user can swap the file.
  std::string dir = (fs::temp_directory_path() / "autoresearch-report-XXXXXX").string();
  if (!mkdtemp(dir.data())) throw usage_error(fmt::format("cannot unpack {}: no temporary folder", file.string()));
  const fs::path tmp = fs::path(dir) / kLogFileName;
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  };
  try {
    write_file_atomic(tmp, unpacked.out);
    LogContents log = read_log(tmp);
    cleanup();
    return log;
  } catch (const Fatal& e) {
    cleanup();
    // Name the file the user gave, not the temporary copy.
    std::string message = e.what();
    for (size_t at = message.find(tmp.string()); at != std::string::npos; at = message.find(tmp.string(), at))
      message.replace(at, tmp.string().size(), file.string());
    throw usage_error(message + " (read after unpacking it with gzip)");
  }
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
  // Strings an agent wrote may hold bytes that are not UTF-8: replaced, never thrown on.
  if (format == "json")
    return render_report_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return render_report_html(r);
}

}  // namespace

CommandAction add_report_command(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("run", a->run, "run id (default: the latest run), a run folder, or an experiments.jsonl file");
  sub.add_option("--log", a->log, "read this experiments.jsonl (e.g. a committed result); no repository needed");
  sub.add_option("--format", a->format, "text (default), md, csv (the per-workload table), json, or html")
      ->check(CLI::IsMember({"text", "md", "csv", "json", "html"}));
  sub.add_option("-o,--out", a->out, "write the report to FILE instead of stdout");
  sub.footer(
      "Shows start -> best (the result as `log` states it), the per-workload table (µs, TFLOP/s, GB/s,\n"
      "% of roofline, speedup), the keep rate and decisions, where the wall time went, tokens and cost,\n"
      "and the commands that reproduce the best. --format html is one self-contained page (inline SVG,\n"
      "no script, nothing fetched). A gzip-compressed log (a committed .jsonl.gz) is unpacked with gzip.\n"
      "Exit codes: 0; 2 no such run, or a log that cannot be read.");
  return [a] {
    const fs::path file = chosen_log(*a);
    Report report = build_report(read_any_log(file));
    std::string holder;
    if (!report.finished && FileLock::is_held(file.parent_path() / "lock", &holder)) mark_running(report, holder);
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
