// See write_files.h.
#include "analysis/synth/write_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <vector>

#include "analysis/synth/collective_records.h"
#include "analysis/synth/path_records.h"
#include "common/work_pool.h"
#include "formats/path_log.h"
#include "formats/profile_logs.h"

namespace railtune::analysis::synth {
namespace {

void writeWhole(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw SynthError("cannot create " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = n < 0 ? std::strerror(errno) : "no progress";
      ::close(fd);
      throw SynthError("cannot write " + path + ": " + reason);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) throw SynthError("cannot write " + path + ": " + std::strerror(errno));
}

// Renders and writes one rank's files, reusing `buffer` between files; returns files and bytes.
WriteSummary writeRank(const SynthJob& job, int rank, const std::filesystem::path& dir, std::string& buffer) {
  WriteSummary done;
  const Identity identity = job.identityOf(rank);
  const auto emit = [&](const std::string& name) {
    writeWhole((dir / name).string(), buffer);
    done.files += 1;
    done.bytes += buffer.size();
  };
  const std::vector<int>& silent = job.options.silentRanks;
  if (std::find(silent.begin(), silent.end(), rank) != silent.end()) return done;
  buffer = job.options.pathLog ? renderPathLog(job, rank) : std::string();
  if (!buffer.empty()) emit(formats::path_log::pathLogFileName(identity));
  buffer.clear();
  appendCollectiveLog(job, rank, buffer);
  emit(formats::profile::profileFileName(identity, formats::profile::ProfileFile::Collectives));
  if (job.options.net && job.placement.hasNetPeers(rank)) {
    buffer.clear();
    appendNetLog(job, rank, buffer);
    emit(formats::profile::profileFileName(identity, formats::profile::ProfileFile::Net));
  }
  return done;
}

}  // namespace

uint64_t estimateBytes(const SynthJob& job) {
  // Lines of one rank differ only in their numbers: a sample of one rank with network peers scales.
  int sample = 0;
  while (sample + 1 < job.ranks() && !job.placement.hasNetPeers(sample)) ++sample;
  const size_t collectives = job.timeline.collectives().size();
  const size_t n = std::min<size_t>(collectives, 16);
  std::string lines;
  for (size_t s = 0; s < n; ++s) {
    lines += formats::profile::renderCollectiveLine(job.identityOf(sample), collectiveRecord(job, sample, s), 0);
  }
  std::string net;
  if (job.options.net) appendNetLog(job, sample, net);  // all of one rank's: its flows vary in size
  const double perCollective = static_cast<double>(lines.size() + n) / static_cast<double>(n);
  const double perRank = perCollective * static_cast<double>(collectives) + static_cast<double>(net.size()) +
                         static_cast<double>(renderPathLog(job, sample).size());
  return static_cast<uint64_t>(perRank * job.ranks());
}

WriteSummary writeJobFiles(const SynthJob& job, const std::string& dir, int threads) {
  const int hardware = static_cast<int>(WorkPool::defaultWorkers(~0u));
  const int workers = std::max(1, std::min(threads > 0 ? threads : hardware, job.ranks()));
  std::atomic<int> next{0};
  std::mutex mutex;
  WriteSummary total;
  WorkPool pool(static_cast<unsigned>(workers), static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    pool.submit([&] {
      std::string buffer;  // one per worker, reused from rank to rank
      WriteSummary mine;
      for (int r = next++; r < job.ranks() && !pool.failed(); r = next++) {
        const WriteSummary one = writeRank(job, r, dir, buffer);
        mine.files += one.files;
        mine.bytes += one.bytes;
      }
      std::lock_guard lock(mutex);
      total.files += mine.files;
      total.bytes += mine.bytes;
    });
  }
  try {
    pool.finish();  // the first rank that could not be written stops the others
  } catch (const SynthError&) {
    throw;
  } catch (const std::exception& e) {
    throw SynthError(e.what());
  }
  return total;
}

}  // namespace railtune::analysis::synth
