// Renderers of the hang report (hangs_render.h).
#include "analysis/profile/hangs_render.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/profile/losses.h"
#include "analysis/profile/stragglers_render.h"
#include "analysis/profile/tag_groups_render.h"
#include "formats/schemas.h"

namespace railtune::analysis::profile {
namespace {

using nlohmann::json;

json orNull(int value) {
  return value >= 0 ? json(value) : json(nullptr);
}

json orNull(const std::string& value) {
  return value.empty() ? json(nullptr) : json(value);
}

json flowJson(const StuckFlow& f) {
  return json{{"channel", f.channel},         {"peer", f.peer},       {"direction", f.send ? "send" : "recv"},
              {"outstanding", f.outstanding}, {"hca", orNull(f.hca)}, {"rail", orNull(f.rail)}};
}

json stuckJson(const StuckRank& s) {
  json flows = json::array();
  for (const StuckFlow& f : s.flows) flows.push_back(flowJson(f));
  return json{{"rank", s.rank},
              {"host", orNull(s.host)},
              {"source", s.watchdog ? "watchdog" : "missing_completion"},
              {"last_completed_seq", s.lastCompletedSeq >= 0 ? json(s.lastCompletedSeq) : json(nullptr)},
              {"stuck_for_us", std::round(s.stuckForUs * 1000.0) / 1000.0},
              {"closed_at_finalize", s.closedAtFinalize},
              {"flows", flows}};
}

json endJson(const LinkEnd& e) {
  return json{{"rank", e.rank},
              {"host", orNull(e.host)},
              {"gpu", orNull(e.gpu)},
              {"hca", orNull(e.hca)},
              {"rail", orNull(e.rail)}};
}

json hungJson(const HungCollective& h, const TagNames& names) {
  json stuck = json::array();
  for (const StuckRank& s : h.stuck) stuck.push_back(stuckJson(s));
  json suspect = nullptr;
  if (h.suspect)
    suspect = {{"from", endJson(h.suspect->from)},
               {"to", endJson(h.suspect->to)},
               {"send_flows", h.suspect->sendFlows},
               {"recv_flows", h.suspect->recvFlows},
               {"flows_considered", h.suspect->flowsConsidered}};
  json lost = json::array();
  for (const LostRank& l : h.lost)
    lost.push_back({{"rank", l.rank}, {"host", orNull(l.host)}, {"why", l.wentPast ? "went_past" : "records_dropped"}});
  json out{{"comm", h.hasComm ? json(commName(true, h.comm)) : json(nullptr)},
           {"seq", h.seq},
           {"op", orNull(h.op)},
           {"from", orNull(h.from)},
           {"to", orNull(h.to)},
           {"nranks", h.nRanks},
           {"stuck", stuck},
           {"completed", h.completed},
           {"lost", lost},
           {"silent", h.silent},
           {"suspect_link", suspect}};
  addTagKeys(out, h.trait, names);
  return out;
}

const char* causeKindName(CauseKind kind) {
  return kind == CauseKind::Rank ? "rank" : kind == CauseKind::Nic ? "nic" : "link";
}

json causeJson(const RootCause& c) {
  json out{{"kind", causeKindName(c.kind)},
           {"comm", c.hasComm ? json(commName(true, c.comm)) : json(nullptr)},
           {"text", c.text}};
  if (c.kind == CauseKind::Rank) {
    out.update({{"rank", c.rank},
                {"host", orNull(c.host)},
                {"pid", c.pid > 0 ? json(c.pid) : json(nullptr)},
                {"op", orNull(c.op)},
                {"seq", c.seq},
                {"from", orNull(c.from)},
                {"to", orNull(c.to)},
                {"last_completed_seq", c.lastCompletedSeq >= 0 ? json(c.lastCompletedSeq) : json(nullptr)},
                {"wrote_records", c.wroteRecords},
                {"waiters", c.waiters},
                {"comms_waiting", c.comms}});
  } else if (c.kind == CauseKind::Nic) {
    out.update({{"host", orNull(c.nicHost)},
                {"hca", c.hca},
                {"rank", c.nicRank},
                {"pid", c.nicPid > 0 ? json(c.nicPid) : json(nullptr)},
                {"rail", orNull(c.rail)},
                {"links", c.links},
                {"or_nic", c.orHca.empty() ? json(nullptr)
                                           : json{{"host", c.orNicHost},
                                                  {"hca", c.orHca},
                                                  {"rank", c.orNicRank},
                                                  {"pid", c.orNicPid > 0 ? json(c.orNicPid) : json(nullptr)}}}});
  } else {
    json from = c.linkFrom ? endJson(*c.linkFrom) : json(nullptr), to = c.linkTo ? endJson(*c.linkTo) : json(nullptr);
    if (c.linkFrom) from["pid"] = c.fromPid > 0 ? json(c.fromPid) : json(nullptr);
    if (c.linkTo) to["pid"] = c.toPid > 0 ? json(c.toPid) : json(nullptr);
    out.update({{"op", orNull(c.op)},
                {"seq", c.seq},
                {"from", from},
                {"to", to},
                {"send_outstanding", c.sendOutstanding},
                {"recv_outstanding", c.recvOutstanding}});
  }
  return out;
}

json gapJson(const RecordGap& g) {
  return json{{"comm", g.hasComm ? json(commName(true, g.comm)) : json(nullptr)},
              {"rank", g.rank},
              {"host", orNull(g.host)},
              {"op", g.op},
              {"from", orNull(g.from)},
              {"to", orNull(g.to)},
              {"kind", g.afterLast ? "after_last_completion" : "went_past"},
              {"first_seq", g.firstSeq},
              {"last_seq", g.lastSeq},
              {"count", g.count},
              {"last_completed_seq", g.lastCompletedSeq >= 0 ? json(g.lastCompletedSeq) : json(nullptr)}};
}

json resolvedJson(const ResolvedHang& r) {
  return json{{"comm", r.hasComm ? json(commName(true, r.comm)) : json(nullptr)},
              {"seq", r.seq},
              {"op", r.op},
              {"from", orNull(r.from)},
              {"to", orNull(r.to)},
              {"rank", r.rank},
              {"host", orNull(r.host)},
              {"closed_by", r.closedBy},
              {"completed_after_s", std::round(r.afterS * 1e6) / 1e6}};
}

// "AllReduce seq 10", or "p2p 5 -> 6 seq 3" for a transfer.
std::string opText(const std::string& op, int from, int to, const std::string& seqs) {
  return (op.empty() ? "?" : op) + (from >= 0 ? " " + std::to_string(from) + " -> " + std::to_string(to) : "") +
         " seq " + seqs;
}

std::string endText(const LinkEnd& e) {
  std::string out = "rank " + std::to_string(e.rank) + " on " + (e.host.empty() ? "?" : e.host);
  if (e.gpu >= 0) out += " GPU " + std::to_string(e.gpu);
  if (!e.hca.empty()) out += " " + e.hca;
  if (e.rail >= 0) out += " rail " + std::to_string(e.rail);
  return out;
}

// `series`: what lastCompletedSeq counts ("AllReduce", or "p2p" with that peer).
std::string flowsText(const StuckRank& s, const std::string& series) {
  const std::string finalize = s.closedAtFinalize ? " (then closed at finalize, never completed)" : "";
  if (s.flows.empty())
    return s.watchdog ? "no outstanding flows" + finalize
                      : "no hang record; " + (s.lastCompletedSeq >= 0 ? "its " + series + " completions stop at seq " +
                                                                            std::to_string(s.lastCompletedSeq)
                                                                      : "it completed no " + series);
  std::string out;
  for (const StuckFlow& f : s.flows)
    out += (out.empty() ? "" : ", ") + std::string(f.send ? "send to " : "recv from ") + std::to_string(f.peer) +
           " ch " + std::to_string(f.channel) + " (" + std::to_string(f.outstanding) + " steps" +
           (f.hca.empty() ? "" : ", " + f.hca) + ")";
  return out + finalize;
}

void hungText(const HungCollective& h, const TagNames& names, std::ostringstream& out) {
  out << "  comm " << commName(h.hasComm, h.comm) << " "
      << (h.from >= 0 ? opText(h.op, h.from, h.to, std::to_string(h.seq))
                      : "seq " + std::to_string(h.seq) + " " + (h.op.empty() ? "?" : h.op))
      << ": " << h.stuck.size() << " stuck, " << h.completed.size() << " completed, "
      << (h.lost.empty() ? "" : std::to_string(h.lost.size()) + " records lost, ") << h.silent.size() << " silent"
      << (h.nRanks > 0 && h.from < 0 ? " (of " + std::to_string(h.nRanks) + " ranks)" : "") << "\n";
  if (h.trait.tagged || h.trait.path != formats::profile::OperationPath::Tuned)
    out << "    step phase: " << tagLabel(h.trait.tagged, h.trait.userTag, names)
        << ", path: " << formats::profile::operationPathName(h.trait.path) << "\n";
  if (!h.completed.empty()) out << "    completed: ranks " << rankRanges(h.completed, 16) << "\n";
  for (const LostRank& l : h.lost)
    out << "    records lost: rank " << l.rank << " on " << (l.host.empty() ? "?" : l.host) << " ("
        << (l.wentPast ? "it completed later operations" : "a loss was reported after its last completion") << ")\n";
  if (!h.silent.empty()) out << "    silent (no record of it): ranks " << rankRanges(h.silent, 16) << "\n";
  for (const StuckRank& s : h.stuck)
    out << "    stuck rank " << s.rank << " on " << (s.host.empty() ? "?" : s.host) << ": "
        << flowsText(s, h.op.empty() ? "?" : h.op) << "\n";
  if (h.suspect)
    out << "    suspect link: " << endText(h.suspect->from) << " -> " << endText(h.suspect->to) << " ("
        << h.suspect->sendFlows << " send and " << h.suspect->recvFlows << " recv flows of "
        << h.suspect->flowsConsidered << " outstanding point at it)\n";
  else
    out << "    suspect link: none (no link has both ends alive and waiting on it alone)\n";
}

std::string processText(int pid, const std::string& host) {
  return "(pid " + (pid > 0 ? std::to_string(pid) : std::string("?")) + ", host " + (host.empty() ? "?" : host) + ")";
}

void causesText(const JobHangs& job, std::ostringstream& out) {
  if (job.hung.empty()) return;
  if (job.causes.empty())
    out << "  root cause: unknown: every stuck rank wrote a hang record and no link has both ends waiting on it"
           " alone\n";
  for (size_t i = 0; i < job.causes.size() && i < 10; ++i)
    out << (i == 0 ? "  root cause: " : "  also: ") << job.causes[i].text << "\n";
  if (job.causes.size() > 10) out << "  ... and " << job.causes.size() - 10 << " more\n";
}

void gapsText(const JobHangs& job, std::ostringstream& out) {
  if (!job.gaps.empty()) out << "  records lost, not hangs: " << job.gaps.size() << "\n";
  for (size_t i = 0; i < job.gaps.size() && i < 20; ++i) {
    const RecordGap& g = job.gaps[i];
    out << "    rank " << g.rank << " on " << (g.host.empty() ? "?" : g.host) << " comm " << commName(g.hasComm, g.comm)
        << " ";
    if (g.afterLast)
      out << (g.op.empty() ? "?" : g.op)
          << (g.from >= 0 ? " " + std::to_string(g.from) + " -> " + std::to_string(g.to) : "")
          << ": records lost after seq " << (g.lastCompletedSeq >= 0 ? std::to_string(g.lastCompletedSeq) : "(none)")
          << " (a loss was reported after its last completion): unknown whether it hung\n";
    else
      out << opText(g.op, g.from, g.to,
                    std::to_string(g.firstSeq) + (g.lastSeq > g.firstSeq ? "-" + std::to_string(g.lastSeq) : ""))
          << ": " << g.count << " record" << (g.count == 1 ? "" : "s") << " missing, later ones completed\n";
  }
  if (job.gaps.size() > 20) out << "    ... and " << job.gaps.size() - 20 << " more\n";
  if (!job.resolved.empty()) out << "  hang records that resolved (slow, not hung): " << job.resolved.size() << "\n";
  for (const ResolvedHang& r : job.resolved)
    out << "    rank " << r.rank << " on " << (r.host.empty() ? "?" : r.host) << " comm " << commName(r.hasComm, r.comm)
        << " " << opText(r.op, r.from, r.to, std::to_string(r.seq)) << ": resolved after "
        << std::round(r.afterS * 10.0) / 10.0 << " s (closed by " << r.closedBy << ")\n";
  out << lossesText(job.losses, 10);
}

}  // namespace

std::string rootCauseText(const RootCause& c) {
  const std::string comm = "comm " + commName(c.hasComm, c.comm);
  if (c.kind == CauseKind::Rank) {
    const std::string where = comm + " " + opText(c.op, c.from, c.to, std::to_string(c.seq));
    const std::string waiting = std::to_string(c.waiters) + " rank" + (c.waiters == 1 ? "" : "s") + " wait on it" +
                                (c.comms > 1 ? " (in " + std::to_string(c.comms) + " communicators)" : "");
    if (!c.wroteRecords && c.pid > 0)
      return "rank " + std::to_string(c.rank) + " of " + comm + " " + processText(c.pid, c.host) +
             " wrote no record of it (the one process without a record of it or a hang record): " + waiting +
             " (stopped or killed before its writer flushed a record, or it never started)";
    if (!c.wroteRecords)
      return "rank " + std::to_string(c.rank) + " of " + comm + " wrote no record at all: " + waiting +
             " (it never started, or its logs are missing)";
    return "rank " + std::to_string(c.rank) + " " + processText(c.pid, c.host) + " stopped making progress at " +
           where + (c.lastCompletedSeq >= 0 ? " (last completed seq " + std::to_string(c.lastCompletedSeq) + ")" : "") +
           ": " + waiting +
           ", no hang record of its own (frozen, stopped or killed, or it never entered the operation)";
  }
  if (c.kind == CauseKind::Nic)
    return "NIC " + c.hca + (c.rail >= 0 ? " (rail " + std::to_string(c.rail) + ")" : "") + " of rank " +
           std::to_string(c.nicRank) + " " + processText(c.nicPid, c.nicHost) + ": " + std::to_string(c.links) +
           " links through it stopped with both ends alive and waiting on them" +
           (c.orHca.empty() ? ""
                            : " (or NIC " + c.orHca + " of rank " + std::to_string(c.orNicRank) + " " +
                                  processText(c.orNicPid, c.orNicHost) +
                                  ": the same links end there, nothing tells "
                                  "which of the two went down)");
  const LinkEnd from = c.linkFrom.value_or(LinkEnd{}), to = c.linkTo.value_or(LinkEnd{});
  return "link " + endText(from) + " (pid " + std::to_string(c.fromPid) + ") -> " + endText(to) + " (pid " +
         std::to_string(c.toPid) + ") in " + comm + " " + opText(c.op, -1, -1, std::to_string(c.seq)) +
         ": both ends alive and waiting on it (" + std::to_string(c.sendOutstanding) + " send and " +
         std::to_string(c.recvOutstanding) + " receive steps outstanding), no rank stopped";
}

std::string renderHangsJson(const HangReport& report, const TagNames& tagNames) {
  json jobs = json::array();
  for (const JobHangs& job : report.jobs) {
    json hung = json::array();
    for (const HungCollective& h : job.hung) hung.push_back(hungJson(h, tagNames));
    json gaps = json::array(), resolved = json::array();
    for (const RecordGap& g : job.gaps) gaps.push_back(gapJson(g));
    for (const ResolvedHang& r : job.resolved) resolved.push_back(resolvedJson(r));
    json causes = json::array();
    for (const RootCause& c : job.causes) causes.push_back(causeJson(c));
    jobs.push_back({{"job", job.job},
                    {"root_causes", causes},
                    {"hung", hung},
                    {"gaps", gaps},
                    {"resolved", resolved},
                    {"losses", lossesJson(job.losses)}});
  }
  return json{{"schema", formats::kProfileHangsSchema}, {"jobs", jobs}}.dump(-1, ' ', false,
                                                                             json::error_handler_t::replace) +
         "\n";
}

std::string renderHangsTable(const HangReport& report, const TagNames& tagNames) {
  std::ostringstream out;
  for (const JobHangs& job : report.jobs) {
    out << "job " << job.job << ": ";
    if (job.hung.empty())
      out << "no hung collectives\n";
    else
      out << job.hung.size() << " hung collective" << (job.hung.size() == 1 ? "" : "s") << "\n";
    causesText(job, out);
    for (const HungCollective& h : job.hung) hungText(h, tagNames, out);
    gapsText(job, out);
  }
  return out.str();
}

}  // namespace railtune::analysis::profile
