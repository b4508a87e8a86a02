// What `railtune paths check` prints: a table per job (path_report_table.cc) or one JSON document,
// schema railtune.paths_check.v1 (path_report_json.cc, docs/formats/paths-check.schema.json), and the
// input diagnostics for stderr.
#pragma once

#include <string>
#include <vector>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_load.h"
#include "formats/schemas.h"

namespace railtune::analysis::paths {

// One job's joined logs and what the check found in them.
struct CheckedJob {
  const JobPaths* paths = nullptr;
  CheckReport report;
};

struct TableLimits {
  int nicHosts = 64;         // more hosts than this: one NIC row per host, the busiest only
  int busiestHosts = 20;     // how many hosts that shows
  int findingsPerKind = 50;  // findings listed per kind (the JSON lists all)
  int verbsRows = 50;        // ib connection records listed with their verbs facts (the JSON lists all)
};

// Per job: a summary line, traffic per rail and plane, NIC use, the verbs facts of ib connections (when there are
// any), findings by severity with counts.
std::string renderCheckTable(const std::vector<CheckedJob>& jobs, const TableLimits& limits = {});

// One document, keys sorted, ending in a newline: every job's tables and findings, each finding with the
// FILE:LINE of the records it is about, and every input diagnostic.
std::string renderCheckJson(const std::vector<CheckedJob>& jobs, const std::vector<InputDiagnostic>& folderDiagnostics);

// The input diagnostics for stderr: the folder's, then each job's, the first `limit` and a count of
// the rest; "" when there are none.
std::string renderDiagnostics(const std::vector<CheckedJob>& jobs,
                              const std::vector<InputDiagnostic>& folderDiagnostics, size_t limit = 20);

// "rails unknown: 32 connections not checked (pass --rail-map)" when no connection's rail was known, "rails unknown: 3
// of 32 connections not checked (pass --rail-map)" when some were; only for a report with railsUnchecked > 0. The
// table, the rendered picture and its command's line all say it in these words.
std::string railsUncheckedText(const CheckReport& report);

// "violation"/"note"; "cross_rail", "digest_mismatch", "asymmetric_rails", "unused_rail", "missing_host",
// "never_closed", "idle_qp".
const char* severityName(Severity severity);
const char* findingKindName(FindingKind kind);

}  // namespace railtune::analysis::paths
