// Runs a piece of a test as a user without privileges, so that file permissions apply to it. CI and
// many containers run the tests as root, for whom a file of mode 000 is readable; tests of "Permission
// denied" would otherwise never run there. Not root: `body` runs here. Root: it runs in a child process
// that first becomes nobody (uid and gid 65534, no supplementary groups, hence no capabilities), and
// what it returns comes back through a pipe. The body returns text for the caller to check (it must not
// use gtest's assertions, which would not reach the parent); an empty optional means the child could not
// run it, with the reason in `why`.
#pragma once

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

namespace railtune::testing {

inline constexpr unsigned kNobody = 65534;

// A folder the child, as nobody, can enter and list (mkdtemp makes them 0700).
inline void openToNobody(const std::string& folder) {
  if (::geteuid() == 0) ::chmod(folder.c_str(), 0755);
}

inline std::optional<std::string> runUnprivileged(const std::function<std::string()>& body, std::string* why) {
  if (::geteuid() != 0) return body();
  int fds[2];
  if (::pipe(fds) != 0) return *why = std::string("pipe: ") + std::strerror(errno), std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) return *why = std::string("fork: ") + std::strerror(errno), std::nullopt;
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0)
      ::_exit(3);
    const std::string text = body();
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) ::_exit(4);
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = WIFEXITED(status) && WEXITSTATUS(status) == 3
               ? "cannot become nobody (uid 65534)"
               : "the unprivileged child failed, status " + std::to_string(status);
    return std::nullopt;
  }
  return text;
}

}  // namespace railtune::testing
