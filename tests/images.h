// Reading the pictures the exporters write, for the tests: a PNG as RGBA (stb_image), a GIF's
// frames as 0xRRGGBB pixels (giflib), and a PNG as a GIF frame would hold it (quantised by giflib
// as app/export/gif.cpp quantises every frame).
#pragma once

#include <gif_lib.h>
#include <stb_image.h>

#include <cstddef>
#include <string>
#include <vector>

namespace images {

struct Png {
  int w = 0, h = 0;
  std::vector<unsigned char> rgba;
};

// w = 0 when the file cannot be read.
inline Png load_png(const std::string& path) {
  Png p;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &p.w, &p.h, &channels, 4);
  if (data) p.rgba.assign(data, data + static_cast<std::size_t>(p.w) * p.h * 4);
  stbi_image_free(data);
  return p;
}

struct Gif {
  int frames = -1, w = 0, h = 0;           // frames = −1: not a GIF giflib reads
  std::vector<std::vector<unsigned>> rgb;  // each frame's pixels as 0xRRGGBB
};

inline Gif load_gif(const std::string& path) {
  Gif out;
  int err = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &err);
  if (!g) return out;
  if (DGifSlurp(g) == GIF_OK) {
    out.frames = g->ImageCount;
    out.w = g->SWidth;
    out.h = g->SHeight;
    for (int f = 0; f < g->ImageCount; ++f) {
      const SavedImage& img = g->SavedImages[f];
      const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : g->SColorMap;
      std::vector<unsigned> px(static_cast<std::size_t>(img.ImageDesc.Width) * img.ImageDesc.Height);
      for (std::size_t i = 0; i < px.size(); ++i) {
        const GifColorType c = map->Colors[img.RasterBits[i]];
        px[i] = static_cast<unsigned>(c.Red) << 16 | static_cast<unsigned>(c.Green) << 8 | c.Blue;
      }
      out.rgb.push_back(std::move(px));
    }
  }
  DGifCloseFile(g, &err);
  return out;
}

// Each frame's pixels as 0xRRGGBB; empty when the file is not a GIF.
inline std::vector<std::vector<unsigned>> gif_frames(const std::string& path) { return load_gif(path).rgb; }

// The PNG's pixels as a GIF frame holds them: quantised to 256 colours by giflib, then looked up
// in that palette. Empty when giflib refuses.
inline std::vector<unsigned> as_gif_frame(const Png& p) {
  const std::size_t n = static_cast<std::size_t>(p.w) * p.h;
  std::vector<GifByteType> r(n), g(n), b(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = p.rgba[4 * i], g[i] = p.rgba[4 * i + 1], b[i] = p.rgba[4 * i + 2];
  int colours = 256;
  GifColorType palette[256];
  if (GifQuantizeBuffer(static_cast<unsigned>(p.w), static_cast<unsigned>(p.h), &colours, r.data(), g.data(),
                        b.data(), idx.data(), palette) == GIF_ERROR)
    return {};
  std::vector<unsigned> px(n);
  for (std::size_t i = 0; i < n; ++i) {
    const GifColorType c = palette[idx[i]];
    px[i] = static_cast<unsigned>(c.Red) << 16 | static_cast<unsigned>(c.Green) << 8 | c.Blue;
  }
  return px;
}

}  // namespace images
