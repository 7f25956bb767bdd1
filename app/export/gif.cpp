#include "app/export/gif.h"

#include <gif_lib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace flashstep {

namespace {
GifFileType* as_gif(void* p) { return static_cast<GifFileType*>(p); }
}  // namespace

int gif_delay_cs(double fps) {
  const double f = std::clamp(fps > 0 ? fps : kMinGifFps, kMinGifFps, kMaxGifFps);
  return std::max(1, static_cast<int>(std::lround(100.0 / f)));
}

GifWriter::GifWriter(const std::string& path, int width, int height, double fps)
    : path_(path), tmp_(path + ".tmp" + std::to_string(::getpid())), width_(width), height_(height),
      delay_cs_(gif_delay_cs(fps)) {
  if (width <= 0 || height <= 0 || width > 65535 || height > 65535) {
    fail("a GIF frame must be 1..65535 pixels wide and high");
    return;
  }
  // Created as a PNG is (fopen): mode 0666 less the umask. giflib's EGifOpenFileName would
  // create it 0600, unreadable by anyone else on a shared machine.
  const int fd = ::open(tmp_.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    error_ = "cannot write " + path + ": " + std::strerror(errno);
    return;
  }
  int err = 0;
  gif_ = EGifOpenFileHandle(fd, &err);  // owns fd from here: EGifCloseFile closes it
  if (!gif_) {
    ::close(fd);
    std::remove(tmp_.c_str());
    error_ = "cannot write " + path + ": " + GifErrorString(err);
    return;
  }
  EGifSetGifVersion(as_gif(gif_), true);  // GIF89a: needed for delays and looping
  if (EGifPutScreenDesc(as_gif(gif_), width, height, 8, 0, nullptr) == GIF_ERROR) {
    fail("cannot write the GIF header");
    return;
  }
  // NETSCAPE2.0 application extension: loop forever.
  static const unsigned char kApp[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const unsigned char kLoop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(as_gif(gif_), APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(as_gif(gif_), sizeof kApp, kApp) == GIF_ERROR ||
      EGifPutExtensionBlock(as_gif(gif_), sizeof kLoop, kLoop) == GIF_ERROR ||
      EGifPutExtensionTrailer(as_gif(gif_)) == GIF_ERROR)
    fail("cannot write the GIF loop extension");
}

GifWriter::~GifWriter() {
  if (gif_) {
    int err = 0;
    EGifCloseFile(as_gif(gif_), &err);
    std::remove(tmp_.c_str());
  }
}

void GifWriter::fail(const std::string& why) {
  if (error_.empty()) error_ = "cannot write " + path_ + ": " + why;
}

bool GifWriter::add(const RgbaFrame& f) {
  if (!ok()) return false;
  if (f.width != width_ || f.height != height_) {
    fail("frame size changed");
    return false;
  }
  const std::size_t n = static_cast<std::size_t>(width_) * height_;
  std::vector<GifByteType> r(n), g(n), b(n), indices(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = f.rgba[4 * i];
    g[i] = f.rgba[4 * i + 1];
    b[i] = f.rgba[4 * i + 2];
  }
  int colours = 256;
  GifColorType palette[256];
  if (GifQuantizeBuffer(static_cast<unsigned>(width_), static_cast<unsigned>(height_), &colours, r.data(),
                        g.data(), b.data(), indices.data(), palette) == GIF_ERROR) {
    fail("colour quantisation failed");
    return false;
  }
  ColorMapObject* map = GifMakeMapObject(256, palette);
  // Graphics control extension: the frame delay in hundredths of a second.
  const unsigned char gce[4] = {0x04, static_cast<unsigned char>(delay_cs_ & 0xff),
                                static_cast<unsigned char>(delay_cs_ >> 8), 0};
  bool good = map && EGifPutExtension(as_gif(gif_), GRAPHICS_EXT_FUNC_CODE, 4, gce) != GIF_ERROR &&
              EGifPutImageDesc(as_gif(gif_), 0, 0, width_, height_, false, map) != GIF_ERROR;
  for (int y = 0; good && y < height_; ++y)
    good = EGifPutLine(as_gif(gif_), indices.data() + static_cast<std::size_t>(y) * width_, width_) != GIF_ERROR;
  GifFreeMapObject(map);
  if (!good) {
    fail("writing a frame failed (disk full?)");
    return false;
  }
  ++frames_;
  return true;
}

bool GifWriter::finish() {
  if (!ok()) return false;
  if (frames_ == 0) {
    fail("no frames");
    return false;
  }
  int err = 0;
  const int rc = EGifCloseFile(as_gif(gif_), &err);
  gif_ = nullptr;
  if (rc == GIF_ERROR) {
    std::remove(tmp_.c_str());
    fail(GifErrorString(err));
    return false;
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    fail("cannot rename the finished file into place");
    return false;
  }
  return true;
}

}  // namespace flashstep
