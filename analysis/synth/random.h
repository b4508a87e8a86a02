// Counter-based randomness for the synthetic job: every value is a pure function of the seed and of
// what it is for (a stream tag and up to two indices), never of the order in which threads ask for it,
// so the same seed gives the same bytes however the work is split. splitmix64's finaliser mixes the
// inputs; the standard library's distributions are avoided because their output differs between
// implementations.
#pragma once

#include <cstdint>

namespace railtune::analysis::synth {

// What a random value is for: one stream per use, so that adding a use never shifts another's values.
enum class Stream : uint64_t {
  HostClock = 1,
  HostMonotonic,
  ArrivalJitter,
  EndJitter,
  Late,
  LateDelay,
  Gap,
  CollectiveKind,
  CollectiveSize,
  PickOffender,
  PickCrossRail,
  Identity,
  HostDrift,
  BootId,
  NoiseSpike,
  NoiseDelay,
  SlowCompute,
  TagOnly,
  Symmetric,
  ComputeJitter,
};

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t randomBits(uint64_t seed, Stream stream, uint64_t a, uint64_t b = 0) {
  return mix64(mix64(mix64(seed ^ (static_cast<uint64_t>(stream) << 56)) ^ a) ^ (b * 0x2545f4914f6cdd1dULL + 1));
}

// Uniform in [0, 1), 53 bits.
inline double randomUnit(uint64_t seed, Stream stream, uint64_t a, uint64_t b = 0) {
  return static_cast<double>(randomBits(seed, stream, a, b) >> 11) * 0x1.0p-53;
}

// Uniform in [low, high] (inclusive); high >= low.
inline int64_t randomBetween(uint64_t seed, Stream stream, int64_t low, int64_t high, uint64_t a, uint64_t b = 0) {
  const uint64_t span = static_cast<uint64_t>(high - low) + 1;
  return low + static_cast<int64_t>(randomBits(seed, stream, a, b) % span);
}

}  // namespace railtune::analysis::synth
