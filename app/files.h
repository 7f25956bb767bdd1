// File helpers for everything the app writes or reads.
#pragma once

#include <string>

namespace flashstep {

// Writes `data` to `path` through a temporary file in the same folder and a rename, so a
// failed write never leaves a truncated file. Returns "" or a message naming the problem.
std::string write_file_atomic(const std::string& path, const std::string& data);
// Reads a whole file; returns false and sets `error` (naming the file and why) on failure.
// The largest file read_file() reads: a scenario of N = 512, d = 1024 with explicit Q, K, V
// is about 30 MiB of text.
inline constexpr long long kMaxReadBytes = 64LL * 1024 * 1024;
// Reads a whole regular file. A folder, a pipe, a device or a file above kMaxReadBytes is
// refused with the reason in `error`, before anything is opened or read.
bool read_file(const std::string& path, std::string& out, std::string& error);

}  // namespace flashstep
