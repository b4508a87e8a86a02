// Counts the global operator new in a test binary, for the "no allocation per call" tests of the
// hot paths (architecture rule 3). Include it from exactly one source file of the binary.
// TSan's runtime defines operator new itself (a second definition does not link), so under TSan
// nothing is replaced, kCountsAllocations is false and the tests skip; release and ASan check.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_THREAD__)
#define RAILTUNE_NO_NEW_REPLACEMENT 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RAILTUNE_NO_NEW_REPLACEMENT 1
#endif
#endif

namespace railtune::testing {
inline std::atomic<size_t> gAllocations{0};
// The calling thread's own count: for code under test that shares its process with a thread it does not own
// (the verbs simulator's agent, which plays the NIC).
inline thread_local size_t tAllocations = 0;
#ifdef RAILTUNE_NO_NEW_REPLACEMENT
inline constexpr bool kCountsAllocations = false;
#else
inline constexpr bool kCountsAllocations = true;
#endif
}  // namespace railtune::testing

#ifndef RAILTUNE_NO_NEW_REPLACEMENT
// g++ cannot see that these replace the global pair, and flags free() on memory from "new".
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  railtune::testing::gAllocations.fetch_add(1, std::memory_order_relaxed);
  ++railtune::testing::tAllocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#endif
