#include "autoresearch/log/experiment_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// "type" first, so `less experiments.jsonl` shows what each line is at a glance.
// Invalid UTF-8 (compiler errors, agent diffs) is replaced, never allowed to make
// a line unwritable: the log must not lose a candidate over one bad byte.
std::string dump_line(const json& line) {
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  if (!line.is_object() || !line.contains("type")) return dump(line);
  json rest = line;
  rest.erase("type");
  std::string head = "{\"type\":" + dump(line["type"]);
  std::string body = dump(rest);
  return body == "{}" ? head + "}" : head + "," + body.substr(1);
}

[[noreturn]] void infrastructure_error(const fs::path& file, const std::string& what) {
  throw Fatal(kExitInfrastructure,
              fmt::format("{}: {}: {}", file.string(), what, std::strerror(errno)));
}

// Cuts a torn tail off and makes the cut durable before anything is appended after it.
void truncate_durably(const fs::path& file, size_t size) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) infrastructure_error(file, "cannot open to repair the torn last line");
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0 || ::fsync(fd) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    infrastructure_error(file, "cannot truncate the torn last line");
  }
  ::close(fd);
}

void validate_header(const json& header, const fs::path& file) {
  auto bad = [&](const std::string& why) {
    return usage_error(fmt::format("{}:1: not an experiment log header: {}", file.string(), why));
  };
  if (!header.is_object()) throw bad("line 1 is not a JSON object");
  if (header.value("type", json()) != json("header")) throw bad("\"type\" is not \"header\"");
  const json version = header.value("version", json());
  if (!version.is_number_integer()) throw bad("no integer \"version\"");
  int v = version.get<int>();
  if (v > kLogVersion)
    throw usage_error(fmt::format(
        "{}:1: log version {} was written by a newer autoresearch; this build reads version {}",
        file.string(), v, kLogVersion));
  if (v < 1) throw bad(fmt::format("version {} is not valid", v));
}

struct ParsedLog {
  LogContents contents;
  size_t good_bytes = 0;              // the prefix holding the header and every good line
  bool last_line_unterminated = false;  // the last good line has no '\n' yet
};

bool is_blank(const std::string& s) {
  return s.find_first_not_of(" \t\r") == std::string::npos;
}

// One parser for read_log and open_for_append, so a resumed run appends exactly
// after the lines the resume logic was rebuilt from.
ParsedLog parse_log(const std::string& text, const fs::path& file) {
  ParsedLog out;
  bool have_header = false;
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    size_t nl = text.find('\n', pos);
    bool terminated = nl != std::string::npos;
    size_t end = terminated ? nl : text.size();
    size_t next = terminated ? nl + 1 : text.size();
    std::string line = text.substr(pos, end - pos);
    pos = next;

    if (is_blank(line)) {  // harmless; appending after it still yields valid lines
      out.good_bytes = next;
      out.last_line_unterminated = false;
      continue;
    }
    bool is_last = text.find_first_not_of(" \t\r\n", next) == std::string::npos;

    json parsed;
    std::string error;
    try {
      parsed = json::parse(line);
      if (!parsed.is_object()) error = "not a JSON object";
    } catch (const json::parse_error& e) {
      error = e.what();
    }
    if (!error.empty()) {
      if (!have_header)
        throw usage_error(fmt::format("{}:{}: the header line is not valid JSON: {}",
                                      file.string(), line_no, error));
      // A crash mid-write can only damage the last line; anything earlier means the
      // file was edited or corrupted, and a resume must not build on it.
      if (is_last) {
        out.contents.torn_tail = true;
        break;
      }
      throw usage_error(fmt::format("{}:{}: corrupt log line (not the last one, so not a torn "
                                    "write): {}",
                                    file.string(), line_no, error));
    }
    if (!have_header) {
      validate_header(parsed, file);
      out.contents.header = std::move(parsed);
      have_header = true;
    } else {
      out.contents.lines.push_back(std::move(parsed));
    }
    out.good_bytes = next;
    out.last_line_unterminated = !terminated;
  }
  if (!have_header)
    throw usage_error(fmt::format("{}: empty, not an experiment log (no header line)",
                                  file.string()));
  return out;
}

}  // namespace

ExperimentLog ExperimentLog::create(const fs::path& file, json header) {
  if (!header.is_null() && !header.is_object())
    throw Fatal(kExitInternal, "experiment log header must be a JSON object");
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw Fatal(kExitInfrastructure, fmt::format("{}: cannot create the run directory: {}",
                                                   file.parent_path().string(), ec.message()));
  }
  // O_EXCL checks and creates in one step: two runs racing for one directory cannot
  // both write a header, and an existing log is never overwritten.
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      throw usage_error(fmt::format(
          "{}: an experiment log already exists there; resume that run or choose another "
          "run directory",
          file.string()));
    infrastructure_error(file, "cannot create the experiment log");
  }
  ::close(fd);
  header["type"] = "header";
  header["version"] = kLogVersion;
  append_line_durable(file, dump_line(header));
  return ExperimentLog(file);
}

ExperimentLog ExperimentLog::open_for_append(const fs::path& file) {
  const std::string text = read_file(file);
  ParsedLog parsed = parse_log(text, file);
  // A torn last line is cut off, so the next append starts on a line of its own and
  // the file stays valid JSON lines. A complete last line that only lacks its '\n'
  // (crash between the two) is kept and terminated: read_log already returned it.
  if (parsed.good_bytes < text.size()) truncate_durably(file, parsed.good_bytes);
  // append_line_durable of "" writes just the missing '\n', durably.
  if (parsed.last_line_unterminated) append_line_durable(file, "");
  return ExperimentLog(file);
}

void ExperimentLog::append(const json& line) { append_line_durable(file_, dump_line(line)); }

LogContents read_log(const fs::path& file) {
  return parse_log(read_file(file), file).contents;
}

}  // namespace ar
