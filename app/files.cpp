#include "app/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace flashstep {

std::string write_file_atomic(const std::string& path, const std::string& data) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot write " + path + ": " + std::strerror(errno);
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + std::strerror(ok ? errno : write_errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + std::strerror(e);
  }
  return "";
}

bool read_file(const std::string& path, std::string& out, std::string& error) {
  // Only a regular file is opened: open() on a named pipe waits for a writer forever, and a
  // device may never end.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read " + path + ": " +
            (S_ISDIR(st.st_mode) ? std::string("it is a folder") : std::string("it is not a regular file (a pipe, a socket or a device)"));
    return false;
  }
  if (st.st_size > kMaxReadBytes) {
    error = "cannot read " + path + ": it is " + std::to_string(st.st_size / (1024 * 1024)) +
            " MiB; FlashStep's files are at most " + std::to_string(kMaxReadBytes / (1024 * 1024)) + " MiB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace flashstep
