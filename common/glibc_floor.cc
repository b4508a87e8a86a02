// Linked into every plugin (docs/design.md, "glibc floor"): the plugins must load with glibc 2.34
// (RHEL 9, Ubuntu 22.04, every NGC PyTorch image), yet they carry a static libstdc++ built on a newer
// glibc. Its random.o, which the COW string instantiations pull in even when no code uses
// std::random_device, calls arc4random (GLIBC_2.36). This definition satisfies that call inside the
// .so: it is hidden (the plugins' version scripts export NCCL's symbols only), so the plugin needs no
// arc4random from glibc and the process's own arc4random, where glibc has one, is left alone.
// getentropy is GLIBC_2.25 and cannot fail for 4 bytes once the kernel's pool is ready; if it ever
// did, /dev/urandom answers instead, and failing that the clock, which is enough for the seeds the
// C++ runtime wants (libstdc++'s own random_device would have thrown).
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  if (getentropy(&value, sizeof value) == 0) return value;
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t got = read(fd, &value, sizeof value);
    close(fd);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
  }
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint32_t>(now.tv_nsec) ^ static_cast<uint32_t>(now.tv_sec * 2654435761u);
}
