// Memory regions as the wire reaches them (sim_agent.h): a key to its MR, an address range to this process's
// memory, and arrived bytes placed there the way a reader spinning on them may see them land.
#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "emulator/verbs_sim/sim_agent.h"

namespace railtune::verbs_sim {

Mr* findMr(Sim& s, uint32_t key, const Pd* pd) {
  auto it = s.mrByKey.find(key);
  if (it == s.mrByKey.end() || it->second->pd != pd) return nullptr;
  return it->second;
}

uint8_t* translate(const Mr* mr, uint64_t addr, uint64_t length) {
  if (mr == nullptr || addr < mr->iova || length > mr->length || addr - mr->iova > mr->length - length) return nullptr;
  return mr->host + (addr - mr->iova);
}

namespace {

// Bytes land in relaxed atomic stores (8 bytes where aligned): a reader spinning on the memory while the
// agent writes it (NCCL's CTS FIFO) is then not a data race under TSan, and an aligned 8-byte word never
// tears.
void placeBytes(uint8_t* dst, const uint8_t* src, size_t length) {
  size_t i = 0;
  while (i < length && (reinterpret_cast<uintptr_t>(dst + i) & 7) != 0) {
    __atomic_store_n(dst + i, src[i], __ATOMIC_RELAXED);
    ++i;
  }
  for (; i + 8 <= length; i += 8) {
    uint64_t word;
    std::memcpy(&word, src + i, 8);
    __atomic_store_n(reinterpret_cast<uint64_t*>(static_cast<void*>(dst + i)), word, __ATOMIC_RELAXED);
  }
  for (; i < length; ++i) __atomic_store_n(dst + i, src[i], __ATOMIC_RELAXED);
}

// Adversarial placement: the 64-byte-aligned pieces of the target in a random order with short pauses, so
// a reader that trusts the last byte of a buffer as a flag sees it before the rest.
void placeAdversarially(Sim& s, uint8_t* dst, const uint8_t* src, size_t length) {
  std::vector<std::pair<size_t, size_t>> pieces;
  size_t at = 0;
  while (at < length) {
    size_t toBoundary = 64 - (reinterpret_cast<uintptr_t>(dst + at) & 63);
    size_t n = std::min(toBoundary, length - at);
    pieces.emplace_back(at, n);
    at += n;
  }
  std::shuffle(pieces.begin(), pieces.end(), s.rng);
  for (size_t i = 0; i < pieces.size(); ++i) {
    placeBytes(dst + pieces[i].first, src + pieces[i].first, pieces[i].second);
    if (i < 64) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

}  // namespace

void place(Sim& s, uint8_t* dst, const uint8_t* src, size_t length) {
  if (s.adversarial && length > 64) {
    placeAdversarially(s, dst, src, length);
  } else {
    placeBytes(dst, src, length);
  }
}

}  // namespace railtune::verbs_sim
