#include "emulator/tuner_decisions/render.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace railtune::emu {
namespace {

using Json = nlohmann::ordered_json;

enum class Style { Table, Csv };

// One column of the table and the CSV. A new column of DecisionRow is one more entry here.
struct DecisionColumn {
  const char* csvHeader;
  const char* tableHeader;
  bool alignRight;
  std::string (*text)(const DecisionRow& row, Style style);
  bool fitOnly = false;   // shown only with a fitted model (--model-file), so outputs without one stay as they were
  bool pathOnly = false;  // shown only when the path column is (DecisionsReport::pathShown)
};

// "tuned", or the verdict: "NCCL decides without a tuner: symmetric kernel".
std::string pathText(const DecisionRow& r) {
  if (r.bypass.path != ncclmodel::BypassPath::Tuned) return r.bypass.summary;
  return r.bypass.caveat.empty() ? "tuned" : "tuned " + r.bypass.caveat;
}

std::string algorithmText(const std::optional<CellChoice>& c) {
  return c ? formats::algorithmName(c->algorithm) : "-";
}
std::string protocolText(const std::optional<CellChoice>& c) {
  return c ? formats::protocolName(c->protocol) : "-";
}
std::string channelsText(const std::optional<CellChoice>& c) {
  return c ? std::to_string(c->nChannels) : "-";
}

const std::vector<DecisionColumn>& decisionColumns() {
  static const std::vector<DecisionColumn> columns = {
      {"collective", "collective", false,
       [](const DecisionRow& r, Style) -> std::string { return formats::collectiveName(r.collective); }},
      {"bytes", "size", true,
       [](const DecisionRow& r, Style s) {
         return s == Style::Table ? shortBytes(r.nBytes) : std::to_string(r.nBytes);
       }},
      {"nccl_algorithm", "NCCL algo", false, [](const DecisionRow& r, Style) { return algorithmText(r.nccl); }},
      {"nccl_protocol", "proto", false, [](const DecisionRow& r, Style) { return protocolText(r.nccl); }},
      {"nccl_channels", "ch", true, [](const DecisionRow& r, Style) { return channelsText(r.nccl); }},
      {"railtune_algorithm", "railtune algo", false,
       [](const DecisionRow& r, Style) { return algorithmText(r.railtune); }},
      {"railtune_protocol", "proto", false, [](const DecisionRow& r, Style) { return protocolText(r.railtune); }},
      {"railtune_channels", "ch", true, [](const DecisionRow& r, Style) { return channelsText(r.railtune); }},
      {"model_algorithm", "model algo", false, [](const DecisionRow& r, Style) { return algorithmText(r.model); }},
      {"model_protocol", "proto", false, [](const DecisionRow& r, Style) { return protocolText(r.model); }},
      {"fitted_algorithm", "fitted algo", false, [](const DecisionRow& r, Style) { return algorithmText(r.fitted); },
       true},
      {"fitted_protocol", "proto", false, [](const DecisionRow& r, Style) { return protocolText(r.fitted); }, true},
      {"fitted_channels", "ch", true, [](const DecisionRow& r, Style) { return channelsText(r.fitted); }, true},
      {"fitted_reason", "fitted reason", false, [](const DecisionRow& r, Style) { return r.fittedReason; }, true},
      {"reason", "reason", false, [](const DecisionRow& r, Style) { return r.reason.text; }},
      {"path", "NCCL path", false, [](const DecisionRow& r, Style) { return pathText(r); }, false, true},
  };
  return columns;
}

// The columns of this report: the fitted ones only when a model file was given.
std::vector<DecisionColumn> reportColumns(const DecisionsReport& report) {
  std::vector<DecisionColumn> shown;
  const bool pathShown = report.pathShown();
  for (const DecisionColumn& c : decisionColumns())
    if ((!c.fitOnly || !report.fit.path.empty()) && (!c.pathOnly || pathShown)) shown.push_back(c);
  return shown;
}

std::string orNone(const std::string& s) {
  return s.empty() ? "none" : s;
}

std::string callText(const BypassSettings& b) {
  return std::string("datatype ") + ncclmodel::dataTypeName(b.dataType) + ", op " + ncclmodel::redOpName(b.op) +
         ", registration " + ncclmodel::registrationName(b.registration) + ", CTA policy " +
         ncclmodel::ctaPolicyName(b.cta);
}

// Under the table: the conditions of each verdict that takes a row away from the tuner, once, at its first row.
std::string bypassConditions(const DecisionsReport& report) {
  std::ostringstream out;
  std::vector<std::string> told;
  for (const DecisionRow& row : report.rows) {
    if (row.bypass.path == ncclmodel::BypassPath::Tuned) continue;
    if (std::find(told.begin(), told.end(), row.bypass.summary) != told.end()) continue;
    told.push_back(row.bypass.summary);
    out << row.bypass.summary << " (from " << formats::collectiveName(row.collective) << " " << shortBytes(row.nBytes)
        << "):\n";
    for (const std::string& c : row.bypass.conditions) out << "  " << c << "\n";
  }
  return out.str();
}

std::string tableHeader(const DecisionsReport& r) {
  std::ostringstream out;
  out << "railtune tuner decisions: " << r.comm.profile << ", " << describeCommunicator(r.comm) << "\n";
  out << "NCCL column:     " << r.ncclLabel << " (NCCL's own pick, no tuner)\n";
  out << "railtune column: " << r.pluginPath << " (" << r.pluginName << ", " << r.pluginSymbol
      << "): NCCL's pick after the plugin edited the same cost table\n";
  if (!r.configDigest.empty()) out << "config digest:   " << r.configDigest << "\n";
  out << "rules:           " << orNone(r.rulesPath);
  if (!r.rulesPath.empty() && !r.rulesUsable) out << " (unusable: see the warnings)";
  if (r.rulesUsable) out << " (" << r.ruleCount << (r.ruleCount == 1 ? " rule)" : " rules)");
  out << "\nrail map:        " << orNone(r.railMapPath) << "\n";
  out << "model column:    RAILTUNE_TUNER_MODEL=" << r.modelMode
      << (r.modelMode == "on" && r.fit.applied ? ": advice only, a fit applies (the model is subordinate to it)"
          : r.modelMode == "on"                ? ": applied where no rule applies"
          : r.modelMode == "off"               ? ": no advice"
                                               : ": advice only, NCCL's choice stands")
      << "\n";
  if (!r.modelDescription.empty()) out << "model:           " << r.modelDescription << "\n";
  if (!r.fit.path.empty()) {
    out << "fitted model:    " << r.fit.path << ": " << r.fit.appliesTo << "\n";
    out << "fitted column:   NCCL's pick after the plugin with the fit only (rules and model off); "
        << (r.fit.applied ? "the fit applies: " : "no fit applies: ") << r.fit.status << "\n";
    if (!r.fit.verdict.empty()) out << "fit verdict:     " << r.fit.verdict << "\n";
    for (const std::string& c : r.fit.constantsWritten) out << "constant:        " << c << "\n";
  }
  if (r.pathShown()) out << "call:            " << callText(r.bypass) << "\n";
  if (r.constantsEdited) out << "note: the plugin edited NCCL's cost-model constants at init\n";
  for (const std::string& w : r.warnings) out << "warning: " << w << "\n";
  return out.str();
}

// The table's last line: how many rows railtune's column differs from NCCL's in, and why.
std::string changedLine(const DecisionsReport& report) {
  const DecisionsReport::Changed c = report.changed();
  std::string line = std::to_string(c.rows) + " of " + std::to_string(report.rows.size()) +
                     " rows changed by railtune (its pick differs from NCCL's): " + std::to_string(c.byRules) +
                     " by rules, " + std::to_string(c.byModel) + " by the model";
  if (!report.fit.path.empty()) line += ", " + std::to_string(c.byFit) + " by the fit";
  if (c.mismatched > 0) line += ", " + std::to_string(c.mismatched) + " MISMATCH";
  if (c.bypassed > 0)
    line += "; " + std::to_string(c.bypassed) + " rows NCCL decides without a tuner (the path column), not counted";
  return line;
}

std::string formatTable(const DecisionsReport& report) {
  const std::vector<DecisionColumn> columns = reportColumns(report);
  std::vector<std::vector<std::string>> cells(1);
  for (const DecisionColumn& c : columns) cells[0].push_back(c.tableHeader);
  for (const DecisionRow& row : report.rows) {
    cells.emplace_back();
    for (const DecisionColumn& c : columns) cells.back().push_back(c.text(row, Style::Table));
  }
  std::vector<size_t> widths(columns.size(), 0);
  for (const auto& line : cells)
    for (size_t i = 0; i < line.size(); i++) widths[i] = std::max(widths[i], line[i].size());
  std::ostringstream out;
  out << tableHeader(report) << "\n";
  for (const auto& line : cells) {
    std::string text;
    for (size_t i = 0; i < line.size(); i++) {
      const std::string pad(widths[i] - line[i].size(), ' ');
      const bool last = i + 1 == line.size();
      text += (i ? "  " : "") + (columns[i].alignRight ? pad + line[i] : line[i] + (last ? "" : pad));
    }
    out << text << "\n";
  }
  out << changedLine(report) << "\n" << bypassConditions(report);
  return out.str();
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string formatCsv(const DecisionsReport& report) {
  const std::vector<DecisionColumn> columns = reportColumns(report);
  std::ostringstream out;
  for (size_t i = 0; i < columns.size(); i++) out << (i ? "," : "") << columns[i].csvHeader;
  out << "\n";
  for (const DecisionRow& row : report.rows) {
    for (size_t i = 0; i < columns.size(); i++) out << (i ? "," : "") << csvField(columns[i].text(row, Style::Csv));
    out << "\n";
  }
  return out.str();
}

Json choiceJson(const std::optional<CellChoice>& c) {
  if (!c) return nullptr;
  return Json{{"algorithm", formats::algorithmName(c->algorithm)},
              {"protocol", formats::protocolName(c->protocol)},
              {"nChannels", c->nChannels}};
}

// The model advises a cell, not a channel count.
Json adviceJson(const std::optional<CellChoice>& c) {
  if (!c) return nullptr;
  return Json{{"algorithm", formats::algorithmName(c->algorithm)}, {"protocol", formats::protocolName(c->protocol)}};
}

const char* reasonKind(DecisionReason::Kind k) {
  switch (k) {
    case DecisionReason::Kind::Rule:
      return "rule";
    case DecisionReason::Kind::Model:
      return "model";
    case DecisionReason::Kind::Mismatch:
      return "mismatch";
    case DecisionReason::Kind::Fit:
      return "fit";
    case DecisionReason::Kind::Nccl:
      break;
  }
  return "nccl";
}

Json reasonJson(const DecisionReason& r) {
  Json j{{"kind", reasonKind(r.kind)}, {"text", r.text}};
  if (r.kind == DecisionReason::Kind::Rule) {
    j["rule"] = r.rule;
    j["source"] = r.source;
    j["line"] = r.line;
  }
  return j;
}

// Every row says which path NCCL takes; a row NCCL decides without a tuner also says why.
Json pathJson(const ncclmodel::BypassVerdict& v) {
  Json j{{"kind", ncclmodel::bypassPathName(v.path)}, {"text", v.summary}};
  if (v.path != ncclmodel::BypassPath::Tuned) {
    j["conditions"] = v.conditions;
    j["tunerAsked"] = v.tunerAsked;
  }
  if (!v.caveat.empty()) {
    j["caveat"] = v.caveat;
    j["conditions"] = v.conditions;
  }
  return j;
}

Json stringOrNull(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

Json headerJson(const DecisionsReport& r) {
  Json j;
  j["schema"] = formats::kTunerDecisionsSchema;
  j["communicator"] =
      Json{{"profile", r.comm.profile}, {"nRanks", r.comm.shape.nRanks},     {"nNodes", r.comm.shape.nNodes},
           {"mnnvl", r.comm.mnnvl},     {"nvlDomains", r.comm.shape.nNodes}, {"ranksPerDomain", r.comm.ranksPerNode}};
  j["nccl"] = Json{{"version", r.ncclVersion}, {"label", r.ncclLabel}};
  j["plugin"] = Json{{"path", r.pluginPath},
                     {"name", r.pluginName},
                     {"symbol", r.pluginSymbol},
                     {"configDigest", stringOrNull(r.configDigest)},
                     {"constantsEdited", r.constantsEdited}};
  j["rules"] = r.rulesPath.empty() ? Json(nullptr)
                                   : Json{{"path", r.rulesPath}, {"usable", r.rulesUsable}, {"count", r.ruleCount}};
  j["railMap"] = stringOrNull(r.railMapPath);
  j["model"] = Json{{"mode", r.modelMode}, {"description", stringOrNull(r.modelDescription)}};
  j["call"] = Json{{"dataType", ncclmodel::dataTypeName(r.bypass.dataType)},
                   {"op", ncclmodel::redOpName(r.bypass.op)},
                   {"registration", ncclmodel::registrationName(r.bypass.registration)},
                   {"ctaPolicy", ncclmodel::ctaPolicyName(r.bypass.cta)}};
  if (!r.fit.path.empty())
    j["fit"] = Json{{"path", r.fit.path},
                    {"appliesTo", r.fit.appliesTo},
                    {"applied", r.fit.applied},
                    {"status", r.fit.status},
                    {"verdict", stringOrNull(r.fit.verdict)},
                    {"constantsWritten", r.fit.constantsWritten}};
  j["warnings"] = r.warnings;
  j["mismatches"] = r.mismatches();
  return j;
}

std::string formatJson(const DecisionsReport& report) {
  Json doc = headerJson(report);
  Json rows = Json::array();
  for (const DecisionRow& row : report.rows) {
    rows.push_back(Json{{"collective", formats::collectiveName(row.collective)},
                        {"nBytes", row.nBytes},
                        {"nccl", choiceJson(row.nccl)},
                        {"railtune", choiceJson(row.railtune)},
                        {"model", adviceJson(row.model)},
                        {"reason", reasonJson(row.reason)},
                        {"path", pathJson(row.bypass)}});
    if (!report.fit.path.empty()) {
      rows.back()["fitted"] = choiceJson(row.fitted);
      rows.back()["fittedReason"] = row.fittedReason;
    }
  }
  doc["decisions"] = std::move(rows);
  return doc.dump(2) + "\n";
}

}  // namespace

std::optional<DecisionsFormat> parseDecisionsFormat(const std::string& name) {
  if (name == "table") return DecisionsFormat::Table;
  if (name == "csv") return DecisionsFormat::Csv;
  if (name == "json") return DecisionsFormat::Json;
  return std::nullopt;
}

std::string shortBytes(uint64_t n) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int unit = 0;
  while (n >= 1024 && n % 1024 == 0 && unit < 6) {
    n /= 1024;
    ++unit;
  }
  return std::to_string(n) + kSuffixes[unit];
}

std::string formatDecisions(const DecisionsReport& report, DecisionsFormat format) {
  switch (format) {
    case DecisionsFormat::Csv:
      return formatCsv(report);
    case DecisionsFormat::Json:
      return formatJson(report);
    case DecisionsFormat::Table:
      break;
  }
  return formatTable(report);
}

}  // namespace railtune::emu
