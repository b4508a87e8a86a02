// Poison guards: every struct the emulator hands a plugin sits in a buffer whose tail is filled
// with a pattern; a plugin that writes past the struct (a wrong ABI version) damages it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace railtune::emu {

inline constexpr std::uint8_t kPoisonByte = 0xA5;
inline constexpr std::size_t kPoisonBytes = 256;

template <typename T>
class Poisoned {
 public:
  Poisoned() {
    std::memset(buf_, kPoisonByte, sizeof(buf_));
    value_ = new (buf_) T{};
  }
  Poisoned(const Poisoned&) = delete;  // value_ points into this object's own buffer
  Poisoned& operator=(const Poisoned&) = delete;
  T* get() { return value_; }
  T& operator*() { return *value_; }
  T* operator->() { return value_; }
  // True while every byte after the struct still holds the pattern.
  bool intact() const {
    for (std::size_t i = sizeof(T); i < sizeof(buf_); ++i)
      if (buf_[i] != kPoisonByte) return false;
    return true;
  }

 private:
  alignas(std::max_align_t) unsigned char buf_[sizeof(T) + kPoisonBytes];
  T* value_;
};

// Records a violation naming the call and the struct when `guard`'s tail was overwritten.
template <typename T>
bool checkPoison(const Poisoned<T>& guard, const std::string& call, const char* structName,
                 std::vector<std::string>& violations) {
  if (guard.intact()) return true;
  violations.push_back(call + ": plugin wrote past the end of " + structName);
  return false;
}

}  // namespace railtune::emu
