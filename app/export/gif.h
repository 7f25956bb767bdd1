// Animated GIF export with giflib: each frame quantised to its own 256-colour palette
// (giflib's median cut), written through a temporary file renamed into place.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace flashstep {

struct RgbaFrame {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;  // top row first
};

// Frame rates a GIF can hold: it times frames in hundredths of a second, so 100 is the most; a
// frame of more than 10 s (0.1 fps) is no longer an animation.
inline constexpr double kMinGifFps = 0.1, kMaxGifFps = 100.0;
// The frame delay a GIF written at `fps` holds, in hundredths of a second (fps in range).
int gif_delay_cs(double fps);
// What the file will last: frames × that delay, in seconds.
inline double gif_seconds(int frames, double fps) { return frames * gif_delay_cs(fps) / 100.0; }

class GifWriter {
 public:
  // Opens a temporary file next to `path`; error() says why when it cannot.
  GifWriter(const std::string& path, int width, int height, double fps);
  ~GifWriter();  // an unfinished GIF is removed, never left truncated
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool add(const RgbaFrame& frame);  // frames must all be width × height
  bool finish();                     // writes the file and renames it into place
  int frames() const { return frames_; }

 private:
  void fail(const std::string& why);
  std::string path_, tmp_, error_;
  int width_, height_, delay_cs_, frames_ = 0;
  void* gif_ = nullptr;  // GifFileType
};

}  // namespace flashstep
