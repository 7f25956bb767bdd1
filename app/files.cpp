#include "app/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
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
