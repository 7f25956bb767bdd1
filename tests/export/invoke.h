// Running the flashstep executable from a test (FLASHSTEP_EXE), as a user runs it.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace exe {

// Runs `flashstep ARGS` (stdout discarded); returns its exit status (−1: it did not exit) and
// fills `err` with what it wrote to stderr.
inline int invoke(const std::string& args, std::string& err) {
  const std::string err_file = "/tmp/flashstep-invoke-" + std::to_string(getpid()) + "-stderr";
  const int st = std::system((std::string(FLASHSTEP_EXE) + " " + args + " >/dev/null 2>" + err_file).c_str());
  err.clear();
  if (FILE* f = std::fopen(err_file.c_str(), "r")) {
    std::array<char, 1024> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) err.append(buf.data(), n);
    std::fclose(f);
  }
  std::remove(err_file.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace exe
