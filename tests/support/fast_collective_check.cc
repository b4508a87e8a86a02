// disagreement() (fast_collective_check.h).
#include "tests/support/fast_collective_check.h"

#include "analysis/profile/fast_collective.h"
#include "formats/profile_logs.h"

namespace railtune::testing {
namespace {

namespace po = formats::profile;
using analysis::profile::CollectiveFields;
using analysis::profile::FastCollectiveReader;

// The fields point into the line, so each padded copy lives in `padded` as long as they are used.
std::optional<CollectiveFields> readFast(FastCollectiveReader& reader, std::string_view line, std::string* padded) {
  padded->assign(line);
  padded->append(FastCollectiveReader::paddingBytes(), '\0');
  return reader.read(std::string_view(padded->data(), line.size()));
}

std::string compare(const CollectiveFields& f, const po::ParsedCollective& p) {
  const formats::profile::OperationRecord& r = p.record;
  if (p.droppedNotice || r.kind == formats::profile::RecordKind::Hang || r.kind == formats::profile::RecordKind::Lost)
    return "fast reader accepted a hang or dropped record";
  if (f.job != p.identity.job || f.host != p.identity.host || f.pid != p.identity.pid) return "identity differs";
  if (f.p2p != (r.kind == formats::profile::RecordKind::P2p)) return "record kind differs";
  if (f.comm != r.comm || f.rank != r.rank || f.nRanks != r.nRanks || f.seq != r.seq)
    return "comm, rank or seq differs";
  if (f.op != r.operation.view()) return "op differs";
  if (f.startRealtimeNs != r.start.realtimeNs || f.endRealtimeNs != r.end.realtimeNs ||
      f.startMonotonicNs != r.start.monotonicNs || f.endMonotonicNs != r.end.monotonicNs)
    return "times differ";
  if (f.recordsDropped != p.recordsDropped) return "records_dropped differs";
  if (f.peer != r.peer || f.eventsDropped != r.eventsDropped || f.closedBy != r.closedBy)
    return "peer, events_dropped or closed_by differs";
  if (f.enqueueTimed != (r.timing == formats::profile::TimingSource::Enqueue)) return "timing differs";
  if (f.userTag != r.userTag || f.path != r.path) return "user_tag or path differs";
  const formats::profile::KernelPhases &a = f.phases, &b = r.phases;
  if (a.present() != b.present() || a.channels != b.channels || a.longestNs != b.longestNs || a.timed != b.timed ||
      a.unknown != b.unknown || a.incomplete != b.incomplete)
    return "phases differ";
  return "";
}

}  // namespace

std::string disagreement(std::string_view line) {
  static FastCollectiveReader reader;
  std::string padded, paddedAgain;
  const std::optional<CollectiveFields> fast = readFast(reader, line, &padded);
  const po::CollectiveLineResult strict = po::parseCollectiveLine(line, "line", 1);
  if (fast) {
    if (!strict.parsed) return "fast reader accepted what the strict reader rejects: " + strict.error;
    return compare(*fast, *strict.parsed);
  }
  if (!strict.parsed || strict.parsed->droppedNotice ||
      strict.parsed->record.kind == formats::profile::RecordKind::Hang ||
      strict.parsed->record.kind == formats::profile::RecordKind::Lost)
    return "";
  Identity identity = strict.parsed->identity;
  const std::string canonical =
      po::renderCollectiveLine(identity, strict.parsed->record, strict.parsed->recordsDropped);
  const std::optional<CollectiveFields> again = readFast(reader, canonical, &paddedAgain);
  if (!again) {
    // The renderer replaces invalid UTF-8 and escapes what needs it; such text stays the strict reader's.
    for (const char c : canonical)
      if (c == '\\' || static_cast<unsigned char>(c) >= 0x80) return "";
    return "fast reader rejects a line as the profiler writes it: " + canonical;
  }
  return compare(*again, *strict.parsed);
}

}  // namespace railtune::testing
