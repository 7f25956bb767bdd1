// Running the flashstep executable from a test, as a user runs it: $FLASHSTEP_EXE where it is set
// (the bundle of scripts/gpu-bundle.sh runs its own copy on another machine), else the one this
// build made (the FLASHSTEP_EXE definition of the test program).
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace exe {

// The flashstep to run, quoted for the shell.
inline std::string path() {
  const char* env = std::getenv("FLASHSTEP_EXE");
  return "'" + std::string(env && *env ? env : FLASHSTEP_EXE) + "'";
}

// A file of this process's for one run's stderr.
inline std::string stderr_file() {
  static int counter = 0;
  return "/tmp/flashstep-invoke-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-stderr";
}

// Appends the rest of `f` to `out`.
inline void read_all(FILE* f, std::string& out) {
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
}

// What a run wrote and how it ended (status −1: it did not exit, or could not start).
struct Result {
  int status = -1;
  std::string out, err;
};

// Runs `ENV_PREFIX flashstep ARGS` through the shell (ARGS quoted by the caller) and captures its
// stdout and stderr.
inline Result capture(const std::string& args, const std::string& env_prefix = "") {
  const std::string err_file = stderr_file();
  const std::string cmd = env_prefix + " " + path() + " " + args + " 2>" + err_file;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    r.err = "could not start: " + cmd;
    return r;
  }
  read_all(p, r.out);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (FILE* e = std::fopen(err_file.c_str(), "r")) {
    read_all(e, r.err);
    std::fclose(e);
  }
  std::remove(err_file.c_str());
  return r;
}

// Runs `flashstep ARGS` (stdout discarded); returns its exit status (−1: it did not exit) and
// fills `err` with what it wrote to stderr.
inline int invoke(const std::string& args, std::string& err) {
  const Result r = capture(args + " >/dev/null");
  err = r.err;
  return r.status;
}

// The number of lines in `s` (its newlines).
inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace exe
