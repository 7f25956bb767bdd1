// The GIF writer: frame count, size and colours read back with giflib's decoder; failures
// leave no file behind.
#include "app/export/gif.h"

#include <doctest/doctest.h>
#include <gif_lib.h>

#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace flashstep;

namespace {

RgbaFrame solid(int w, int h, unsigned char r, unsigned char g, unsigned char b) {
  RgbaFrame f{w, h, std::vector<unsigned char>(static_cast<std::size_t>(w) * h * 4, 255)};
  for (std::size_t i = 0; i < f.rgba.size(); i += 4) f.rgba[i] = r, f.rgba[i + 1] = g, f.rgba[i + 2] = b;
  return f;
}

std::string temp_path(const char* name) { return "/tmp/flashstep-gif-" + std::to_string(getpid()) + name; }

}  // namespace

TEST_CASE("a GIF has every frame, the size and the colours it was given") {
  const std::string path = temp_path("-ok.gif");
  {
    GifWriter gif(path, 40, 30, 10.0);
    REQUIRE(gif.ok());
    CHECK(gif.add(solid(40, 30, 255, 0, 0)));
    CHECK(gif.add(solid(40, 30, 0, 255, 0)));
    RgbaFrame half = solid(40, 30, 0, 0, 255);
    for (int y = 0; y < 15; ++y)
      for (int x = 0; x < 40; ++x) half.rgba[4 * (y * 40 + x)] = 255;  // top half magenta
    CHECK(gif.add(half));
    CHECK(gif.finish());
  }
  int err = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &err);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->SWidth == 40);
  CHECK(g->SHeight == 30);
  REQUIRE(g->ImageCount == 3);
  auto colour_at = [&](int frame, int x, int y) {
    const SavedImage& img = g->SavedImages[frame];
    const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : g->SColorMap;
    return map->Colors[img.RasterBits[y * 40 + x]];
  };
  CHECK(colour_at(0, 5, 5).Red > 240);
  CHECK(colour_at(0, 5, 5).Green < 15);
  CHECK(colour_at(1, 5, 5).Green > 240);
  CHECK(colour_at(2, 5, 5).Red > 240);
  CHECK(colour_at(2, 5, 5).Blue > 240);
  CHECK(colour_at(2, 5, 25).Red < 15);
  DGifCloseFile(g, &err);
  std::remove(path.c_str());
}

TEST_CASE("a GIF is created with mode 0666 less the umask, as a PNG is (not giflib's 0600)") {
  const std::string path = temp_path("-mode.gif");
  const mode_t old = umask(022);
  {
    GifWriter gif(path, 4, 4, 5.0);
    CHECK(gif.add(solid(4, 4, 9, 9, 9)));
    CHECK(gif.finish());
  }
  umask(077);
  const std::string private_path = temp_path("-private.gif");
  {
    GifWriter gif(private_path, 4, 4, 5.0);
    CHECK(gif.add(solid(4, 4, 9, 9, 9)));
    CHECK(gif.finish());
  }
  umask(old);
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  REQUIRE(stat(private_path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // the umask is the user's to tighten
  std::remove(path.c_str());
  std::remove(private_path.c_str());
}

TEST_CASE("an unwritable path or a cancelled GIF leaves no file") {
  GifWriter bad("/nonexistent-dir/x.gif", 10, 10, 5.0);
  CHECK_FALSE(bad.ok());
  CHECK(bad.error().find("/nonexistent-dir/x.gif") != std::string::npos);
  const std::string path = temp_path("-cancel.gif");
  {
    GifWriter gif(path, 10, 10, 5.0);
    CHECK(gif.add(solid(10, 10, 1, 2, 3)));
    // destroyed without finish(): cancelled
  }
  CHECK(access(path.c_str(), F_OK) != 0);
  GifWriter wrong(path, 10, 10, 5.0);
  CHECK_FALSE(wrong.add(solid(11, 10, 0, 0, 0)));
  CHECK_FALSE(wrong.finish());
  CHECK(access(path.c_str(), F_OK) != 0);
}
