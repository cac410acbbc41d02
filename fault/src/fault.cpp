// fault: the plan of MINICUDA_FAULT (minicuda/fault.h) and the questions the layers ask it.
//
// A plan is a list of rules, each with its own counter of the events it matches; a rule fires on
// its N-th match (or on every match from the N-th, with "@N+"). The plan is read from the
// environment at the first question, or set by set_plan(); questions are answered under one
// mutex, and cost one relaxed load while no plan is set.
#include "minicuda/fault.h"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "nvstatus.h"

namespace minicuda::fault {

namespace {

enum class Site : uint8_t { MemAlloc, IoctlErrno, IoctlStatus, Gpu };

struct Rule {
  Site site;
  std::string ioctl;   // Site::Ioctl*: the request's name
  uint64_t nth = 1;    // fires on the nth match...
  bool onwards = false;  // ...and every later one
  uint32_t value = 0;  // errno, NV_STATUS, or GpuError
  std::string text;    // as written, for the trace
  uint64_t seen = 0;   // matches so far
};

struct Plan {
  std::mutex mutex;
  std::vector<Rule> rules;
  std::atomic<bool> active{false};
  std::once_flag from_environment;
};

Plan& plan() {
  static auto* p = new Plan;  // never destroyed: layers may ask while the process exits
  return *p;
}

thread_local std::string t_last_rule;

std::optional<int> errno_named(std::string_view name) {
  for (int e = 1; e < 256; ++e) {
    const char* n = strerrorname_np(e);
    if (n != nullptr && name == n) return e;
  }
  return std::nullopt;
}

std::optional<uint32_t> status_named(std::string_view name) {
#define MINICUDA_STATUS_ROW(status_name, status_value, message) \
  if (name == #status_name) return status_value;
  NV_STATUS_CODES(MINICUDA_STATUS_ROW)
#undef MINICUDA_STATUS_ROW
  return std::nullopt;
}

// "N" or "N+" after an '@'; the whole of `count` must be used.
bool parse_count(std::string_view count, Rule& rule) {
  if (count.ends_with('+')) {
    rule.onwards = true;
    count.remove_suffix(1);
  }
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), rule.nth);
  return ec == std::errc() && end == count.data() + count.size() && rule.nth >= 1;
}

// One rule; false with the reason in *error.
bool parse_rule(std::string_view text, Rule& rule, std::string* error) {
  rule.text = std::string(text);
  std::string_view head = text, value;
  if (const size_t eq = text.find('='); eq != std::string_view::npos) {
    head = text.substr(0, eq);
    value = text.substr(eq + 1);
  }
  std::string_view count;
  if (const size_t at = head.find('@'); at != std::string_view::npos) {
    count = head.substr(at + 1);
    head = head.substr(0, at);
    if (!parse_count(count, rule)) {
      *error = fmt::format("'{}': the count after '@' must be a number >= 1, optionally with '+'", text);
      return false;
    }
  }
  if (head == "alloc") {
    rule.site = Site::MemAlloc;
    if (!value.empty()) {
      *error = fmt::format("'{}': alloc takes no '=' (it always fails with out-of-memory)", text);
      return false;
    }
    return true;
  }
  if (head == "gpu") {
    rule.site = Site::Gpu;
    if (value == "ecc") {
      rule.value = static_cast<uint32_t>(GpuError::Ecc);
    } else if (value == "illegal_address") {
      rule.value = static_cast<uint32_t>(GpuError::IllegalAddress);
    } else {
      *error = fmt::format("'{}': gpu=ecc or gpu=illegal_address", text);
      return false;
    }
    return true;
  }
  if (head.starts_with("ioctl:") && head.size() > 6) {
    rule.ioctl = std::string(head.substr(6));
    if (const auto status = status_named(value); status && value.starts_with("NV_ERR_")) {
      rule.site = Site::IoctlStatus;
      rule.value = *status;
      return true;
    }
    if (const auto err = errno_named(value)) {
      rule.site = Site::IoctlErrno;
      rule.value = static_cast<uint32_t>(*err);
      return true;
    }
    *error = fmt::format("'{}': the value must be an errno name (ENOMEM) or an RM status (NV_ERR_NO_MEMORY)", text);
    return false;
  }
  *error = fmt::format("'{}': a rule is alloc[@N], ioctl:NAME[@N]=VALUE or gpu[@N]=ecc|illegal_address", text);
  return false;
}

bool parse_plan(std::string_view spec, std::vector<Rule>& rules, std::string* error) {
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    std::string_view text = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (text.empty()) continue;
    Rule rule;
    if (!parse_rule(text, rule, error)) return false;
    rules.push_back(std::move(rule));
  }
  return true;
}

void read_environment() {
  Plan& p = plan();
  std::call_once(p.from_environment, [&p] {
    const char* spec = std::getenv("MINICUDA_FAULT");
    if (spec == nullptr || *spec == '\0') return;
    std::string error;
    std::vector<Rule> rules;
    if (!parse_plan(spec, rules, &error)) {
      std::fprintf(stderr, "minicuda: MINICUDA_FAULT ignored: %s\n", error.c_str());
      return;
    }
    std::lock_guard lock(p.mutex);
    p.rules = std::move(rules);
    p.active.store(!p.rules.empty(), std::memory_order_release);
  });
}

// Counts one event of `site` (and, for ioctls, of `ioctl`) against every matching rule; returns
// the first rule that fires.
const Rule* ask(Site site, std::string_view ioctl = {}) {
  read_environment();
  Plan& p = plan();
  if (!p.active.load(std::memory_order_relaxed)) return nullptr;
  std::lock_guard lock(p.mutex);
  const Rule* fired = nullptr;
  for (Rule& r : p.rules) {
    if (r.site != site || (!r.ioctl.empty() && r.ioctl != ioctl)) continue;
    ++r.seen;
    if (fired == nullptr && (r.seen == r.nth || (r.onwards && r.seen > r.nth))) fired = &r;
  }
  if (fired != nullptr) t_last_rule = fired->text;
  return fired;
}

}  // namespace

bool set_plan(std::string_view spec, std::string* error) {
  std::string ignored;
  std::vector<Rule> rules;
  read_environment();  // so that a later first question does not read it over this plan
  const bool ok = parse_plan(spec, rules, error != nullptr ? error : &ignored);
  Plan& p = plan();
  std::lock_guard lock(p.mutex);
  p.rules = ok ? std::move(rules) : std::vector<Rule>{};
  p.active.store(!p.rules.empty(), std::memory_order_release);
  return ok;
}

std::string describe_plan() {
  read_environment();
  Plan& p = plan();
  std::lock_guard lock(p.mutex);
  std::string out;
  for (const Rule& r : p.rules) out += fmt::format("{}{} (matched {} so far)", out.empty() ? "" : "\n", r.text, r.seen);
  return out;
}

bool fail_mem_alloc() { return ask(Site::MemAlloc) != nullptr; }

std::optional<int> ioctl_errno(std::string_view ioctl_name) {
  const Rule* r = ask(Site::IoctlErrno, ioctl_name);
  return r ? std::optional<int>(static_cast<int>(r->value)) : std::nullopt;
}

std::optional<uint32_t> ioctl_status(std::string_view ioctl_name) {
  const Rule* r = ask(Site::IoctlStatus, ioctl_name);
  return r ? std::optional<uint32_t>(r->value) : std::nullopt;
}

GpuError gpu_error() {
  const Rule* r = ask(Site::Gpu);
  return r ? static_cast<GpuError>(r->value) : GpuError::None;
}

std::string last_rule() { return t_last_rule; }

}  // namespace minicuda::fault
