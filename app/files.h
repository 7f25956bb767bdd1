// File helpers for everything the app writes or reads.
#pragma once

#include <string>

namespace flashstep {

// Writes `data` to `path` through a temporary file in the same folder and a rename, so a
// failed write never leaves a truncated file. Returns "" or a message naming the problem.
std::string write_file_atomic(const std::string& path, const std::string& data);
// Reads a whole file; returns false and sets `error` (naming the file and why) on failure.
bool read_file(const std::string& path, std::string& out, std::string& error);

}  // namespace flashstep
