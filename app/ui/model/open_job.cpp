#include "app/ui/model/open_job.h"

#include "app/files.h"
#include "app/ui/model/inputs.h"
#include "core/engine.h"
#include "core/text.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <sys/stat.h>

namespace flashstep::ui {

namespace {
double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

OpenJob::~OpenJob() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

void OpenJob::start(std::string path) {
  cancel();
  if (thread_.joinable()) thread_.join();
  cancel_.store(false);
  finished_.store(false);
  parsing_.store(false);
  progress_.store(0.0f);
  size_.store(0);
  read_.store(0);
  result_ = {};
  path_ = std::move(path);
  started_ = now_seconds();
  thread_ = std::thread([this] { run(); });
}

double OpenJob::seconds() const { return busy() ? now_seconds() - started_ : 0.0; }

std::string OpenJob::activity() const {
  const double mb = 1024.0 * 1024.0;
  if (parsing_.load()) return strf("parsing %.1f MB", static_cast<double>(size_.load()) / mb);
  return strf("reading %.1f of %.1f MB", static_cast<double>(read_.load()) / mb, static_cast<double>(size_.load()) / mb);
}

void OpenJob::run() {
  Result r;
  try {
    // The checks read_file() makes (a regular file, at most kMaxReadBytes), then the bytes in
    // chunks so that progress and cancel are seen.
    std::string text, error;
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxReadBytes) {
      size_.store(static_cast<long long>(st.st_size));
      std::FILE* f = std::fopen(path_.c_str(), "rb");
      if (!f) {
        r.error = "cannot read " + path_ + ": " + std::strerror(errno);
      } else {
        text.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < text.size() && !cancel_.load()) {
          const std::size_t n = std::fread(&text[got], 1, std::min<std::size_t>(text.size() - got, 1 << 20), f);
          if (n == 0) break;
          got += n;
          read_.store(static_cast<long long>(got));
          progress_.store(0.3f * static_cast<float>(got) / static_cast<float>(text.size()));
        }
        const bool failed = std::ferror(f) != 0;
        std::fclose(f);
        text.resize(got);
        if (failed) r.error = "cannot read " + path_ + ": " + std::strerror(errno);
      }
    } else if (!read_file(path_, text, error)) {  // names the reason: missing, a folder, a pipe, too big
      r.error = error;
    }
    if (cancel_.load()) throw Cancelled();
    if (r.error.empty()) {
      parsing_.store(true);
      progress_.store(0.3f);
      try {
        r.doc = parse_document(text, &cancel_);
        // Before anything is built from it (apply_document draws random inputs).
        if (std::string why = window_limits(r.doc.scenario); !why.empty()) throw InputError(why);
        r.ok = true;
      } catch (const InputError& e) {
        r.error = path_ + ": " + e.what();
      }
    }
  } catch (const Cancelled&) {
    r = {};
    r.cancelled = true;
  } catch (const std::bad_alloc&) {
    r = {};
    r.error = path_ + ": out of memory while reading it";
  } catch (const std::exception& e) {
    r = {};
    r.error = path_ + ": " + e.what();
  }
  progress_.store(1.0f);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(r);
  }
  finished_.store(true);
}

bool OpenJob::collect(Result& out) {
  if (!thread_.joinable() || !finished_.load()) return false;
  thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  out = std::move(result_);
  result_ = {};
  return true;
}

}  // namespace flashstep::ui
