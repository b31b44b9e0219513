// scan_ptx: the PTX nvcc generated for a candidate, read as PTX (not as the
// source): however the source named a clock or a device-side launch (clock64(),
// a token-pasted asm string, a libcu++ wrapper), it arrives here as a special
// register or an .extern function.
#include <cctype>
#include <set>

#include "compiled_scan.h"
#include "guard_rules.h"

namespace ar::guard_detail {

namespace {

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// The PTX with comments blanked out (newlines kept, so line numbers hold).
std::string strip_comments(const std::string& ptx) {
  std::string out = ptx;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '"') {  // strings (only in .file / debug directives) are left alone
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i) {
      }
      continue;
    }
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    }
  }
  return out;
}

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  std::string t = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  return t.size() > 80 ? t.substr(0, 77) + "..." : t;
}

// Special registers and their rule: clocks and performance counters are
// timers; %envreg (set by the driver per launch) and %gridid (a per-launch
// number) tell launches apart, which a kernel needs only to behave
// differently on some of them.
const char* register_rule(const std::string& reg) {
  static const std::set<std::string> kTimers = {"clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo",
                                                "globaltimer_hi"};
  if (kTimers.count(reg)) return kRuleTimer;
  if (reg.size() >= 3 && reg.compare(0, 2, "pm") == 0 && std::isdigit(static_cast<unsigned char>(reg[2])))
    return kRuleTimer;  // %pm0..%pm7, %pm0_64..: counters that can serve as clocks
  if (reg.compare(0, 6, "envreg") == 0 && reg.size() > 6) return kRuleSpecialRegister;
  if (reg == "gridid") return kRuleSpecialRegister;
  return nullptr;
}

class PtxScanner {
 public:
  PtxScanner(const std::string& ptx, const std::string& name) : text_(strip_comments(ptx)), name_(name) {
    for (size_t s = 0, e; s <= text_.size(); s = e + 1) {
      e = text_.find('\n', s);
      if (e == std::string::npos) e = text_.size();
      line_starts_.push_back(s);
    }
  }

  std::vector<GuardFinding> run() {
    registers();
    externs();
    return std::move(findings_);
  }

 private:
  int line_of(size_t at) const {
    size_t lo = 0, hi = line_starts_.size();
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      (line_starts_[mid] <= at ? lo : hi) = mid;
    }
    return static_cast<int>(lo) + 1;
  }

  std::string line_text(size_t at) const {
    size_t s = line_starts_[static_cast<size_t>(line_of(at) - 1)];
    size_t e = text_.find('\n', s);
    return trimmed(text_.substr(s, e == std::string::npos ? std::string::npos : e - s));
  }

  void add(const char* rule, size_t at, const std::string& excerpt) {
    std::string where = name_ + ":" + std::to_string(line_of(at));
    if (!seen_.insert(std::string(rule) + "@" + where).second) return;
    findings_.push_back({rule, where, excerpt});
  }

  // %name operands. Compiler-made registers (%r12, %rd3, %f1, %p2) never
  // collide with the special ones.
  void registers() {
    for (size_t i = text_.find('%'); i != std::string::npos; i = text_.find('%', i + 1)) {
      size_t e = i + 1;
      while (e < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[e])) || text_[e] == '_')) ++e;
      const std::string reg = text_.substr(i + 1, e - i - 1);
      if (const char* rule = register_rule(reg)) add(rule, i, line_text(i));
    }
  }

  // `.extern .func (retval) name (params)` and `.extern .global/.const ...`.
  // A callee needs a declaration in PTX, so every function the module calls
  // but does not define has an .extern .func.
  void externs() {
    for (size_t i = text_.find(".extern"); i != std::string::npos; i = text_.find(".extern", i + 1)) {
      if (i > 0 && is_word(text_[i - 1])) continue;
      size_t p = skip_space(i + 7);
      const std::string kind = word_at(p);
      p = skip_space(p + kind.size());
      if (kind == ".func") {
        if (p < text_.size() && text_[p] == '(') p = skip_space(close_paren(p) + 1);
        const std::string fn = word_at(p);
        const std::string rule = rule_for_import(fn, true);
        if (!rule.empty()) add(rule.c_str(), i, ".extern .func " + fn);
      } else if (kind == ".global" || kind == ".const") {
        add(kRuleStaticCache, i, line_text(i));
      }
    }
  }

  size_t skip_space(size_t p) const {
    while (p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p]))) ++p;
    return p;
  }
  std::string word_at(size_t p) const {
    size_t e = p;
    while (e < text_.size() && is_word(text_[e])) ++e;
    return text_.substr(p, e - p);
  }
  size_t close_paren(size_t open) const {
    int depth = 0;
    for (size_t j = open; j < text_.size(); ++j) {
      if (text_[j] == '(') ++depth;
      else if (text_[j] == ')' && --depth == 0) return j;
    }
    return text_.size();
  }

  std::string text_;
  std::string name_;
  std::vector<size_t> line_starts_;
  std::set<std::string> seen_;
  std::vector<GuardFinding> findings_;
};

}  // namespace

std::vector<GuardFinding> scan_ptx(const std::string& ptx, const std::string& name) {
  return PtxScanner(ptx, name).run();
}

}  // namespace ar::guard_detail
