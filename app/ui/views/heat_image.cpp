#include "app/ui/views/heat_image.h"

#include "app/ui/widgets.h"

// epoxy resolves GL entry points for whichever context is current (the window's or the
// off-screen renderer's).
#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace flashstep::ui {

ImU32 block_fill(const Palette& pal, const HeatSource& src, int r, int c, int g) {
  int n_def = 0, n_fin = 0, n_alarm = 0;
  double sum = 0;
  const int r1 = std::min(r + g, src.rows), c1 = std::min(c + g, src.cols);
  for (int a = r; a < r1; ++a)
    for (int b = c; b < c1; ++b) {
      const std::size_t k = src.index(a, b);
      if (!(*src.defined)[k]) continue;
      ++n_def;
      const double v = (*src.values)[k];
      if (std::isfinite(v)) {
        ++n_fin;
        sum += v;
      } else if (std::isnan(v) || v > 0) {
        ++n_alarm;
      }
    }
  if (n_alarm > 0) return cell_fill(pal, CellKind::nan, 0);
  if (n_fin > 0) return value_fill(pal, CellKind::finite, src.range, sum / n_fin);
  return cell_fill(pal, n_def > 0 ? CellKind::neg_inf : CellKind::undefined, 0);
}

void heat_image_size(const HeatSource& src, int g, int& w, int& h) {
  g = std::max(g, 1);
  w = (src.cols + g - 1) / g;
  h = (src.rows + g - 1) / g;
}

void heat_image(const Palette& pal, const HeatSource& src, int g, std::vector<ImU32>& out) {
  int w = 0, h = 0;
  heat_image_size(src, g, w, h);
  g = std::max(g, 1);
  out.resize(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out[static_cast<std::size_t>(y) * w + x] = block_fill(pal, src, y * g, x * g, g);
}

bool gl_renderer() {
  const char* name = ImGui::GetIO().BackendRendererName;
  return name && std::strncmp(name, "imgui_impl_opengl", 17) == 0;
}

ImTextureID heat_texture(const char* key, std::uint64_t content, int w, int h,
                         const std::function<void(std::vector<ImU32>&)>& paint) {
  ImGuiStorage* store = ImGui::GetStateStorage();
  const std::string k(key);
  const ImGuiID id_tex = ImGui::GetID((k + "#tex").c_str());
  const ImGuiID id_w = ImGui::GetID((k + "#w").c_str()), id_h = ImGui::GetID((k + "#h").c_str());
  const ImGuiID id_content = ImGui::GetID((k + "#content").c_str());
  GLuint tex = static_cast<GLuint>(store->GetInt(id_tex, 0));
  const bool same_size = tex != 0 && store->GetInt(id_w, 0) == w && store->GetInt(id_h, 0) == h;
  // Re-sending unchanged pixels costs llvmpipe more than drawing them.
  if (same_size &&
      store->GetVoidPtr(id_content) == reinterpret_cast<void*>(static_cast<std::uintptr_t>(content)))
    return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(tex));
  static std::vector<ImU32> px;  // one frame's scratch, reused
  paint(px);
  GLint bound = 0, unpack = 0, row_length = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpack);
  glGetIntegerv(GL_UNPACK_ROW_LENGTH, &row_length);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  if (tex == 0) {
    glGenTextures(1, &tex);
    store->SetInt(id_tex, static_cast<int>(tex));
  }
  glBindTexture(GL_TEXTURE_2D, tex);
  if (!same_size) {
    // Cells are squares of one colour: sampling must not blend neighbours.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    store->SetInt(id_w, w);
    store->SetInt(id_h, h);
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  }
  store->SetVoidPtr(id_content, reinterpret_cast<void*>(static_cast<std::uintptr_t>(content)));
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
  glPixelStorei(GL_UNPACK_ALIGNMENT, unpack);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, row_length);
  return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(tex));
}

}  // namespace flashstep::ui
