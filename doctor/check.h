// One line of `railtune doctor`: what was checked, how it came out, and what to do about it.
#pragma once

#include <string>
#include <vector>

namespace railtune::doctor {

// "a, b, c": how the checks list names in a message.
inline std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// ok: works here; warn: works, but not as the operator probably wants; fail: railtune (or NCCL with
// it) will not work as configured; skip: the thing checked is not present here (no NCCL, no RDMA
// device, no rail map), so there was nothing to check.
enum class Status { Ok, Warn, Fail, Skip };

const char* statusName(Status status);  // "ok", "warn", "fail", "skip"

struct Check {
  std::string id;  // stable, dotted: "nccl.library", "plugin.net.load", "env.NCCL_IB_HCA"
  Status status = Status::Ok;
  std::string message;  // what was found, one line
  std::string fix;      // what to do; "" when status is ok or skip without a remedy
};

class Report {
 public:
  void add(std::string id, Status status, std::string message, std::string fix = "") {
    checks_.push_back({std::move(id), status, std::move(message), std::move(fix)});
  }
  const std::vector<Check>& checks() const { return checks_; }
  int count(Status status) const;
  // The command's exit status: 1 when any check failed, else 0.
  int exitStatus() const { return count(Status::Fail) > 0 ? 1 : 0; }

 private:
  std::vector<Check> checks_;
};

// The text form: one line per check, "<status> <id> <message>[ -- fix: <fix>]", then a summary line.
std::string renderText(const Report& report);

// The JSON document (docs/doctor.md, "JSON output"): schema railtune.doctor.v1.
std::string renderJson(const Report& report, const std::string& host, const std::string& version);

}  // namespace railtune::doctor
