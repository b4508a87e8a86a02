// The files railtune's background writers append records to (the net plugin's path log, the
// profiler's logs): how they are named and how text reaches them. Named once so that every file a
// process writes starts with the same "<job>-<host>-<pid>" stem, which `railtune paths` and
// `railtune profile` join on.
#pragma once

#include <string>
#include <string_view>

#include "common/identity.h"

namespace railtune {

// "<job>-<host>-<pid>", every character outside [A-Za-z0-9._-] replaced by '_' so that a job or host
// name cannot leave the folder; an empty job or host is "unknown".
std::string recordFileStem(const Identity& identity);

// Opens (creating it, mode 0644) for appending, close-on-exec; read access too when `readable`.
// Throws std::runtime_error naming the file and the system's reason.
int openForAppend(const std::string& path, bool readable = false);

// Writes all of `text`, retrying interrupted and short writes. false: the write failed, errno says why.
bool writeAll(int fd, std::string_view text);

}  // namespace railtune
