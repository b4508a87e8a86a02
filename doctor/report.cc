#include <algorithm>
#include <nlohmann/json.hpp>

#include "doctor/check.h"
#include "formats/schemas.h"

namespace railtune::doctor {

const char* statusName(Status status) {
  switch (status) {
    case Status::Ok:
      return "ok";
    case Status::Warn:
      return "warn";
    case Status::Fail:
      return "fail";
    case Status::Skip:
      return "skip";
  }
  return "fail";
}

int Report::count(Status status) const {
  return static_cast<int>(
      std::count_if(checks_.begin(), checks_.end(), [&](const Check& c) { return c.status == status; }));
}

namespace {

// Messages are built from file contents and loader errors; keep each check on one line.
std::string oneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::string summary(const Report& report) {
  return std::to_string(report.count(Status::Ok)) + " ok, " + std::to_string(report.count(Status::Warn)) + " warn, " +
         std::to_string(report.count(Status::Fail)) + " fail, " + std::to_string(report.count(Status::Skip)) + " skip";
}

}  // namespace

std::string renderText(const Report& report) {
  size_t idWidth = 0;
  for (const Check& c : report.checks()) idWidth = std::max(idWidth, c.id.size());
  std::string out;
  for (const Check& c : report.checks()) {
    std::string status = statusName(c.status);
    status.resize(5, ' ');
    std::string id = c.id;
    id.resize(idWidth + 2, ' ');
    out += status + id + oneLine(c.message);
    if (!c.fix.empty() && c.status != Status::Ok) out += " -- fix: " + oneLine(c.fix);
    out += "\n";
  }
  out += "railtune doctor: " + summary(report) + "\n";
  return out;
}

std::string renderJson(const Report& report, const std::string& host, const std::string& version) {
  nlohmann::ordered_json doc;
  doc["schema"] = formats::kDoctorSchema;
  doc["railtune_version"] = version;
  doc["host"] = host;
  doc["exit_status"] = report.exitStatus();
  doc["summary"] = {{"ok", report.count(Status::Ok)},
                    {"warn", report.count(Status::Warn)},
                    {"fail", report.count(Status::Fail)},
                    {"skip", report.count(Status::Skip)}};
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const Check& c : report.checks())
    checks.push_back(
        {{"id", c.id}, {"status", statusName(c.status)}, {"message", oneLine(c.message)}, {"fix", oneLine(c.fix)}});
  doc["checks"] = std::move(checks);
  // Messages may quote file names and loader errors that are not UTF-8; replace rather than throw.
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace railtune::doctor
