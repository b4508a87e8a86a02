// The files railtune's background writers append records to (the net plugin's path log, the
// profiler's logs): the folder they go into, how they are named and how text reaches them. Named once
// so that every file a process writes starts with the same "<job>-<host>-<pid>.<start>" stem: the
// identity of architecture rule 6, then a tag of the process's own (its start time) that keeps apart
// two processes with the same job, host and pid (two containers, each with a PID namespace of its own,
// writing into one shared folder). Readers find the files by their ending (".jsonl", ".trace.json")
// and join on the records' fields, so names without the tag (written by earlier versions) read alike.
#pragma once

#include <string>
#include <string_view>

#include "common/identity.h"

namespace railtune {

// "<job>-<host>-<pid>", every character outside [A-Za-z0-9._-] replaced by '_' so that a job or host
// name cannot leave the folder; an empty job or host is "unknown". With a tag (processStartTag(), or
// the one claimRecordFile() settled on): "<job>-<host>-<pid>.<tag>".
std::string recordFileStem(const Identity& identity, std::string_view tag = "");

// This process's tag: its start time in clock ticks since the host booted (field 22 of
// /proc/self/stat) in lowercase hex, e.g. "1a2b3c". The same for every load of a plugin in one process
// (NCCL closes a plugin's library with its last communicator and opens it again for the next one:
// ncclProfilerPluginUnload, src/plugin/profiler.cc:113; ncclNetPluginUnload, src/plugin/net.cc:78),
// different for two processes unless both started in the same tick. Eight random hex digits when /proc
// cannot be read.
std::string processStartTag();

// Opens the folder the records go into, creating every missing component from the first existing
// ancestor on (mode 0755, less the umask). A symlink on the way is followed unless it sits in a
// sticky, world-writable folder (such as /tmp) and belongs to neither this user nor the folder's owner:
// another user may have planted it there. Returns a descriptor of the folder (O_PATH, close-on-exec)
// to open files in with claimRecordFile() and openForAppendAt(). Throws std::runtime_error
// "cannot create folder FOLDER: COMPONENT: reason".
int openRecordFolder(const std::string& folder);

struct ClaimedFile {
  int fd = -1;
  std::string tag;         // the tag in the file's name: processStartTag(), or it with "_" and 4 hex digits
  bool continued = false;  // the file was this process's already (an earlier load of the plugin)
};

// Opens "<stem>.<tag><suffix>" in `folderFd` (named `folder` in messages) for appending, as the file
// of this process alone. It is created with O_EXCL and kept locked (flock) while open. A file of that
// name left unlocked and not empty was written by an earlier load of the plugin in this process: it is
// continued. One that is locked (another process with the same job, host, pid and start time is
// writing it) or still empty is left alone, and the name is tried again with "_" and 4 random hex
// digits after the tag. Throws std::runtime_error naming the file and the reason.
ClaimedFile claimRecordFile(int folderFd, const std::string& folder, const Identity& identity,
                            const std::string& suffix, bool readable = false);

// Opens (creating it, mode 0644) for appending, close-on-exec; read access too when `readable`.
// Throws std::runtime_error naming the file and the system's reason.
int openForAppend(const std::string& path, bool readable = false);

// The same for `name` in the folder `folderFd` (`folder` in messages); a symlink is not followed.
int openForAppendAt(int folderFd, const std::string& folder, const std::string& name, bool readable = false);

// Writes all of `text`, retrying interrupted and short writes. false: the write failed, errno says why.
bool writeAll(int fd, std::string_view text);

}  // namespace railtune
