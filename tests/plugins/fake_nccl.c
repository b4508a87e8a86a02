/* libnccl.so.2 stand-in for `railtune doctor` tests: exports ncclGetVersion only, answering the
 * version code given at build time (FAKE_NCCL_VERSION, NCCL's major*10000 + minor*100 + patch).
 * FAKE_NCCL_CRASH makes the call crash and FAKE_NCCL_HANG makes it hang, so that the tests see doctor
 * survive both (the library is loaded in a child process). */
#include <signal.h>
#include <unistd.h>

__attribute__((visibility("default"))) int ncclGetVersion(int* version) {
#if defined(FAKE_NCCL_CRASH)
  raise(SIGSEGV);
#elif defined(FAKE_NCCL_HANG)
  for (;;) pause();
#endif
  *version = FAKE_NCCL_VERSION;
  return 0;
}
