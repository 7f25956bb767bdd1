#include "app/ui/views/panel_memory.h"

#include "app/ui/model/explain.h"
#include "app/ui/views/hit_map.h"
#include "app/ui/views/view_logic.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/io_model.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {
namespace {

// The step before the one shown (what it read or wrote is still on chip), none at the first.
const Step* step_before(const ViewInput& in) {
  const int k = in.playhead;
  return k >= 1 && k <= in.rec.step_count() ? &in.rec.steps[static_cast<std::size_t>(k - 1)] : nullptr;
}

struct Shape {
  std::string name;         // as the hit map and the tooltip name it
  std::string label, size;  // as drawn: the name, without its remark where it has no room
  float w = 0, h = 0;  // px
  ImU32 fill = 0;
  int buffer = -1;
  const OnChip* item = nullptr;
};

// The width a shape's slot takes: the shape, its label above and its size below.
float slot_width(const Shape& sh) {
  return std::max(
      {sh.w, draw_rich(nullptr, ImVec2(0, 0), 0, sh.label, 0, true), ImGui::CalcTextSize(sh.size.c_str()).x * 0.85f});
}

// Lays shapes left to right, wrapping; returns the height used. Labels above, sizes below.
// With dl == nullptr it only measures. `extra` gets each shape's box and its slot (the box with
// its label and size).
float place_shapes(ImDrawList* dl, const Palette& pal, std::vector<Shape>& shapes, ImVec2 p0, float width,
                   float fs, float s, const std::function<void(const Shape&, ImVec2, ImVec2, const Rect&)>& extra) {
  const float gap = 10 * s, label_h = fs + 2 * s;
  float x = p0.x, y = p0.y, line_h = 0;
  for (Shape& sh : shapes) {
    const float lw = slot_width(sh);
    if (x > p0.x && x + lw > p0.x + width) {
      x = p0.x;
      y += line_h + gap;
      line_h = 0;
    }
    const ImVec2 a(x, y + label_h), b(x + sh.w, y + label_h + sh.h);
    if (dl) {
      draw_rich(dl, ImVec2(x, y), pal.text, sh.label);
      dl->AddRectFilled(a, b, sh.fill, 2 * s);
      if (extra) extra(sh, a, b, Rect{x, y, lw, label_h + sh.h + fs + 2 * s, true});
      dl->AddText(ImGui::GetFont(), fs * 0.85f, ImVec2(x, b.y + 2 * s), pal.text_dim, sh.size.c_str());
    }
    line_h = std::max(line_h, label_h + sh.h + fs + 2 * s);
    x += lw + gap;
  }
  return y - p0.y + line_h;
}

void arrow(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float s) {
  dl->AddLine(a, b, col, 3 * s);
  const float dir = b.x > a.x ? 1.0f : -1.0f;
  dl->AddTriangleFilled(ImVec2(b.x + dir * 2 * s, b.y), ImVec2(b.x - dir * 9 * s, b.y - 6 * s),
                        ImVec2(b.x - dir * 9 * s, b.y + 6 * s), col);
}

std::string big(std::uint64_t v) {
  std::string t = std::to_string(v), out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && (t.size() - i) % 3 == 0) out += ' ';
    out += t[i];
  }
  return out;
}

// The boxes' titles: in full where they fit with their "(?)", else their first words.
constexpr const char* kHbmTitle = "HBM (slow, large)";
constexpr const char* kHbmBrief = "HBM";
constexpr const char* kChipTitle = "on chip (SRAM, registers)";
constexpr const char* kChipBrief = "on chip";

// The title a box `width` px wide with padding `pad` shows.
const char* box_title(float width, float pad, const char* full, const char* brief) {
  return ImGui::CalcTextSize(full).x <= width - 2 * pad - ImGui::CalcTextSize(" (?)").x ? full : brief;
}

// The two boxes with their titles and help markers; reports each box to the hit map with its
// title (as `labelled`: the box and what its title takes, the "(?)" included).
void draw_frames(const ViewInput& in, ImVec2 h0, ImVec2 h1, ImVec2 c0, ImVec2 c1, float pad) {
  const Palette& pal = in.palette;
  const float s = in.ui_scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(h0, h1, mix(pal.background, pal.hbm, 0.12f), 6 * s);
  dl->AddRect(h0, h1, pal.hbm, 6 * s, 0, 2 * s);
  dl->AddRectFilled(c0, c1, mix(pal.background, pal.sram, 0.12f), 6 * s);
  dl->AddRect(c0, c1, pal.sram, 6 * s, 0, 2 * s);
  auto title = [&](const char* name, ImVec2 b0, ImVec2 b1, const char* full, const char* brief) {
    const char* t = box_title(b1.x - b0.x, pad, full, brief);
    dl->AddText(ImVec2(b0.x + pad, b0.y + pad), pal.text, t);
    const ImVec2 marker(b0.x + pad + ImGui::CalcTextSize(t).x + ImGui::CalcTextSize(" ").x, b0.y + pad);
    if (in.hits) {
      const float right = std::max(b1.x, marker.x + ImGui::CalcTextSize("(?)").x);
      in.hits->add_memory(name, Rect{b0.x, b0.y, b1.x - b0.x, b1.y - b0.y, true}, -1, 0, 0, 0, 0,
                          Rect{b0.x, b0.y, right - b0.x, b1.y - b0.y, true});
    }
    return marker;
  };
  help_marker_at(title("HBM", h0, h1, kHbmTitle, kHbmBrief),
                 "High-bandwidth memory: the GPU's main memory, tens of GB but about 10× slower than "
                 "on-chip SRAM. Inputs and outputs live here; every element moved to or from it is "
                 "counted; on the CPU backend it stands for main memory (RAM), and SRAM for the caches. "
                 "Highlighted: what this step loads from it (blue) and writes back to it (orange); a block still "
                 "on chip from the step before is not loaded again.");
  help_marker_at(title("SRAM", c0, c1, kChipTitle, kChipBrief),
                 "Shared memory (SRAM) and registers of one streaming multiprocessor: fast but only "
                 "M elements (here per thread block). Shown: what this step has on chip — tiles "
                 "loaded from HBM and values computed there.");
}

// A move into this step (app/ui/model/transition.h): each tile this step loads travels from
// its place in its HBM matrix to its place on chip in the first 60 % of the move, and each
// block it writes back (O_i) travels from chip to HBM in the last 60 %. Rectangles as
// (x0, y0, x1, y1); `chip_bg` covers a tile on chip until it has arrived.
void draw_moving_tiles(const ViewInput& in, const std::vector<ImVec4>& hbm_at,
                       const std::vector<std::pair<const OnChip*, ImVec4>>& chip_at, ImU32 chip_bg) {
  const Palette& pal = in.palette;
  const float s = in.ui_scale, t = in.tween->t;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto lerp = [](const ImVec4& a, const ImVec4& b, float u) {
    return ImVec4(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u, a.w + (b.w - a.w) * u);
  };
  auto tile = [&](const ImVec4& r, ImU32 col) {
    dl->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.z, r.w), with_alpha(col, 0.7f), 2 * s);
    dl->AddRect(ImVec2(r.x, r.y), ImVec2(r.z, r.w), col, 2 * s, 0, 2 * s);
  };
  for (const auto& [item, chip] : chip_at) {
    if (!item->loaded && !item->written_back) continue;
    const ImVec4& m = hbm_at[static_cast<std::size_t>(item->buffer)];
    if (m.z < m.x) continue;
    const BufferInfo& bi = in.rec.buffers[static_cast<std::size_t>(item->buffer)];
    const float sx = (m.z - m.x) / static_cast<float>(std::max(bi.cols, 1)),
                sy = (m.w - m.y) / static_cast<float>(std::max(bi.rows, 1));
    const Region& g = item->region;
    const ImVec4 hbm(m.x + static_cast<float>(g.c0) * sx, m.y + static_cast<float>(g.r0) * sy,
                     m.x + static_cast<float>(g.c1) * sx, m.y + static_cast<float>(g.r1) * sy);
    if (item->loaded) {
      const float u = ease(t / 0.6f);
      if (u < 1.0f) {
        dl->AddRectFilled(ImVec2(chip.x - 1, chip.y - 1), ImVec2(chip.z + 1, chip.w + 1), with_alpha(chip_bg, 1.0f - u));
        tile(lerp(hbm, chip, u), pal.read);
      }
    }
    if (item->written_back) {
      const float u = ease((t - 0.4f) / 0.6f);
      if (u > 0.0f && u < 1.0f) tile(lerp(chip, hbm, u), pal.write);
    }
  }
}

// What the step moves: elements loaded from HBM and written back to it.
struct Moved {
  long long loaded = 0, back = 0;
};
Moved moved(const std::vector<OnChip>& items) {
  Moved m;
  for (const OnChip& o : items) {
    if (o.loaded) m.loaded += o.elements;
    if (o.written_back) m.back += o.elements;
  }
  return m;
}

// What the chip's box says when nothing is on chip.
const char* empty_chip(const ViewInput& in) { return in.step ? "nothing this step" : "before the first step"; }

// The arrows' labels.
std::string load_label(const Moved& m) { return "load " + big(static_cast<std::uint64_t>(m.loaded)); }
std::string write_label(const Moved& m) { return "write " + big(static_cast<std::uint64_t>(m.back)); }

// The two boxes laid out at the scale of the moment: sizes times `s`, text in the window's
// font, in a region `avail` large.
struct BoxLayout {
  float s = 1, fs = 13, pad = 8, title_h = 19, arrows_w = 96, hbm_w = 0, chip_w = 0, box_h = 0;
  std::vector<Shape> hs, cs;
  // Every box's title (its short form at least), every matrix's and tile's label and size and
  // the arrows' labels within their room.
  bool fits = true;
};

BoxLayout lay_out_boxes(const ViewInput& in, const std::vector<OnChip>& items, float s, ImVec2 avail) {
  const Recording& rec = in.rec;
  const Palette& pal = in.palette;
  BoxLayout L;
  L.s = s;
  L.fs = ImGui::GetFontSize();
  L.arrows_w = 96 * s;
  L.pad = 8 * s;
  L.title_h = L.fs + 6 * s;
  const float pad = L.pad;
  const float max_shape_h = std::clamp(avail.y * 0.28f, 36 * s, 150 * s);

  // One scale for both boxes, so a tile looks as big next to its matrix as it is.
  std::vector<int> hbm;
  float cols_sum = 0, max_rows = 1, labels_w = 0;
  for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b)
    if (rec.buffers[b].space == Space::hbm) {
      hbm.push_back(b);
      cols_sum += static_cast<float>(rec.buffers[b].cols);
      max_rows = std::max(max_rows, static_cast<float>(rec.buffers[b].rows));
      const std::string size = strf("%d×%d", rec.buffers[b].rows, rec.buffers[b].cols);
      labels_w += std::max(ImGui::CalcTextSize(rec.buffers[b].name.c_str()).x, ImGui::CalcTextSize(size.c_str()).x * 0.85f) + 10 * s;
    }
  // The HBM box is wide enough for its matrices on one line (its title too) where the SRAM box
  // keeps 40 % of the width: at a large font no matrix wraps under the others and out of sight.
  const float both = avail.x - L.arrows_w;
  const float hbm_need = std::max(labels_w, ImGui::CalcTextSize(kHbmTitle).x) + 2 * pad + 10 * s;
  L.hbm_w = std::clamp(hbm_need, both * 0.55f, both * 0.6f);
  L.chip_w = both - L.hbm_w;
  const float hbm_w = L.hbm_w, chip_w = L.chip_w;
  const float gaps = 10 * s * static_cast<float>(hbm.size() + 1);
  const float f = std::max(
      std::min({(hbm_w - 2 * pad - gaps) / std::max(cols_sum, 1.0f), max_shape_h / max_rows, 26.0f * s}),
      0.25f);

  for (int b : hbm) {
    const BufferInfo& bi = rec.buffers[b];
    Shape sh;
    sh.name = sh.label = bi.name;
    sh.size = strf("%d×%d", bi.rows, bi.cols);
    // Never wider than the box (a vector of 100,000 at the shared scale's smallest factor).
    sh.w = std::min(std::max(static_cast<float>(bi.cols) * f, 4 * s), hbm_w - 2 * pad);
    sh.h = std::max(static_cast<float>(bi.rows) * f, 4 * s);
    sh.fill = mix(pal.cell, pal.hbm, 0.3f);
    sh.buffer = b;
    L.hs.push_back(sh);
  }
  for (const OnChip& o : items) {
    Shape sh;
    sh.name = sh.label = o.name;
    sh.size = std::to_string(o.elements) + (o.loaded ? " · loaded" : o.space == Space::reg ? " · reg" : "");
    sh.w = std::min(std::max(static_cast<float>(o.region.c1 - o.region.c0) * f, 4 * s), chip_w - 2 * pad);
    sh.h = std::max(static_cast<float>(o.region.r1 - o.region.r0) * f, 4 * s);
    sh.fill = o.loaded ? mix(pal.cell, pal.hbm, 0.55f) : mix(pal.cell, pal.sram, 0.6f);
    sh.item = &o;
    L.cs.push_back(sh);
  }
  // A label with a remark ("O₂⁽¹⁾ (not yet divided)") drops the remark where the box has no
  // room for it (its tooltip says what the tile holds).
  for (std::vector<Shape>* shapes : {&L.hs, &L.cs})
    for (Shape& sh : *shapes)
      if (const std::size_t cut = sh.label.find(" ("); cut != std::string::npos && cut > 0 &&
                                                        slot_width(sh) > (shapes == &L.hs ? hbm_w : chip_w) - 2 * pad)
        sh.label.resize(cut);
  const float content_h =
      std::max({place_shapes(nullptr, pal, L.hs, ImVec2(0, 0), hbm_w - 2 * pad, L.fs, s, {}),
                place_shapes(nullptr, pal, L.cs, ImVec2(0, 0), chip_w - 2 * pad, L.fs, s, {}), L.fs * 2});
  L.box_h = L.title_h + content_h + 2 * pad;

  auto within = [&](const std::vector<Shape>& shapes, float room) {
    return std::all_of(shapes.begin(), shapes.end(), [&](const Shape& sh) { return slot_width(sh) <= room; });
  };
  const float marker = ImGui::CalcTextSize(" (?)").x;
  const Moved m = moved(items);
  const float lane = L.arrows_w - 16 * s;  // between the arrows' ends (draw_boxes)
  L.fits = ImGui::CalcTextSize(kHbmBrief).x + marker <= hbm_w - 2 * pad &&
           ImGui::CalcTextSize(kChipBrief).x + marker <= chip_w - 2 * pad && within(L.hs, hbm_w - 2 * pad) &&
           within(L.cs, chip_w - 2 * pad) && (m.loaded == 0 || ImGui::CalcTextSize(load_label(m).c_str()).x <= lane) &&
           (m.back == 0 || ImGui::CalcTextSize(write_label(m).c_str()).x <= lane) &&
           (!items.empty() || ImGui::CalcTextSize(empty_chip(in)).x <= chip_w - 2 * pad);
  return L;
}

// Draws the two boxes at y and moves y under them; with measure, only moves y. Where the font is
// larger than at font 1× (Ctrl+=) and a title, label, size or arrow label would not fit its room,
// the boxes' text and spaces give way together, by twentieths, down to their size at font 1×, as
// the views' labels do: at font 2× in a 1280 × 800 window the lane between the boxes kept 192 px
// while the chip's title and its tiles' sizes were cut ("on chi", "16 · loa").
void draw_boxes(const ViewInput& in, const std::vector<OnChip>& items, float& y, bool measure = false) {
  const Recording& rec = in.rec;
  const Palette& pal = in.palette;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float x0 = ImGui::GetCursorScreenPos().x;
  TextScale text;
  const float lowest = in.floor_fraction();
  BoxLayout L;
  for (int k = 0;; ++k) {
    const float f = std::max(1.0f - 0.05f * static_cast<float>(k), lowest);
    text.set(f);
    L = lay_out_boxes(in, items, in.ui_scale * f, avail);
    if (L.fits || f <= lowest) break;
  }
  const float s = L.s, fs = L.fs, pad = L.pad, title_h = L.title_h, arrows_w = L.arrows_w, hbm_w = L.hbm_w,
              chip_w = L.chip_w, box_h = L.box_h;
  std::vector<Shape>&hs = L.hs, &cs = L.cs;
  if (measure) {
    y += box_h + 8 * in.ui_scale;
    return;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 h0(x0, y), h1(x0 + hbm_w, y + box_h);
  const ImVec2 c0(h1.x + arrows_w, y), c1(c0.x + chip_w, y + box_h);
  ViewInput scaled = in;
  scaled.ui_scale = s;
  draw_frames(scaled, h0, h1, c0, c1, pad);

  // Where each matrix and each tile on chip lands, for a move between steps (below).
  std::vector<ImVec4> hbm_at(rec.buffers.size(), ImVec4(0, 0, -1, -1));
  std::vector<std::pair<const OnChip*, ImVec4>> chip_at;
  place_shapes(dl, pal, hs, ImVec2(h0.x + pad, h0.y + pad + title_h), hbm_w - 2 * pad, fs, s,
               [&](const Shape& sh, ImVec2 a, ImVec2 b, const Rect& slot) {
                 hbm_at[static_cast<std::size_t>(sh.buffer)] = ImVec4(a.x, a.y, b.x, b.y);
                 const BufferInfo& bi = rec.buffers[sh.buffer];
                 if (in.hits)
                   in.hits->add_memory(bi.name, Rect{a.x, a.y, b.x - a.x, b.y - a.y, true}, sh.buffer, 0, bi.rows, 0,
                                       bi.cols, slot);
                 if (!in.step) return;
                 const float sx = (b.x - a.x) / static_cast<float>(bi.cols),
                             sy = (b.y - a.y) / static_cast<float>(bi.rows);
                 // What moves between HBM and the chip this step: not what stays on chip.
                 for (int pass = 0; pass < 2; ++pass)
                   for (const Region& g : pass == 0 ? in.step->reads : in.step->writes) {
                     if (g.buffer != sh.buffer) continue;
                     if (pass == 0 ? !hbm_read(rec, step_before(in), g) : !hbm_written(rec, *in.step, g)) continue;
                     const ImVec2 p(a.x + static_cast<float>(g.c0) * sx, a.y + static_cast<float>(g.r0) * sy);
                     const ImVec2 q(a.x + static_cast<float>(g.c1) * sx, a.y + static_cast<float>(g.r1) * sy);
                     const ImU32 col = pass == 0 ? pal.read : pal.write;
                     dl->AddRectFilled(p, q, with_alpha(col, 0.6f));
                     outline(dl, p, q, col, 2 * s, 5 * s);
                   }
               });
  if (cs.empty()) dl->AddText(ImVec2(c0.x + pad, c0.y + pad + title_h), pal.text_dim, empty_chip(in));
  place_shapes(dl, pal, cs, ImVec2(c0.x + pad, c0.y + pad + title_h), chip_w - 2 * pad, fs, s,
               [&](const Shape& sh, ImVec2 a, ImVec2 b, const Rect& slot) {
                 chip_at.emplace_back(sh.item, ImVec4(a.x, a.y, b.x, b.y));
                 if (sh.item->written_back) outline(dl, a, b, pal.write, 2 * s, 5 * s);
                 if (in.hits) {
                   const Region& g = sh.item->region;
                   in.hits->add_memory(sh.name, Rect{a.x, a.y, b.x - a.x, b.y - a.y, true}, sh.item->buffer, g.r0,
                                       g.r1, g.c0, g.c1, slot);
                 }
                 if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, b))
                   tooltip(
                       sh.name + ": " + std::to_string(sh.item->elements) + " elements",
                       rec.buffers[sh.item->buffer].description +
                           (sh.item->loaded ? "\nLoaded from HBM in this step." : "") +
                           (sh.item->written_back ? "\nWritten back to HBM at the end of this step." : ""));
               });

  if (in.tween && in.tween->forward())
    draw_moving_tiles(scaled, hbm_at, chip_at, mix(pal.background, pal.sram, 0.12f));

  // What moves this step: each arrow with its label, reported as the two take.
  const Moved m = moved(items);
  const float mx0 = h1.x + 8 * s, mx1 = c0.x - 8 * s, mid = y + box_h * 0.5f;
  auto move = [&](const char* name, const std::string& label, float at, float label_y, ImU32 col, bool right) {
    arrow(dl, ImVec2(right ? mx0 : mx1, at), ImVec2(right ? mx1 : mx0, at), col, s);
    const ImVec2 c((mx0 + mx1) * 0.5f, label_y);
    text_centered(dl, c, col, label.c_str());
    if (!in.hits) return;
    const ImVec2 t = ImGui::CalcTextSize(label.c_str());
    const float x_0 = std::min(mx0, c.x - t.x * 0.5f), x_1 = std::max(mx1, c.x + t.x * 0.5f);
    const float y_0 = std::min(at - 6 * s, c.y - t.y * 0.5f), y_1 = std::max(at + 6 * s, c.y + t.y * 0.5f);
    in.hits->add_move(name, Rect{x_0, y_0, x_1 - x_0, y_1 - y_0, true});
  };
  if (m.loaded > 0) move("load", load_label(m), mid - 14 * s, mid - 14 * s - fs * 0.8f, pal.read, true);
  if (m.back > 0) move("write", write_label(m), mid + 14 * s, mid + 14 * s + fs * 0.8f, pal.write, false);
  y += box_h + 8 * in.ui_scale;
}

// A line of terms joined by `sep`: drawn whole where it fits `width` with `tail` px after it
// (a "(?)"), else the terms flow, each onto the next line where it does not fit beside the one
// before (after `sep`), one wider than the width wrapped at its spaces. Whole, the terms are one
// text (`one_text`, in the colour of term 0), or one item each, the next after ImGui's item
// spacing and `sep`. Returns the lines it takes; draws nothing with `colour` empty (term k's
// colour otherwise).
int term_line(const std::vector<std::string>& terms, const char* sep, bool one_text, float tail, float width,
              const std::function<ImVec4(std::size_t)>& colour) {
  std::string whole;
  for (std::size_t k = 0; k < terms.size(); ++k) whole += (k ? sep : "") + terms[k];
  const float items_gap = one_text ? 0.0f : ImGui::GetStyle().ItemSpacing.x * static_cast<float>(terms.size() - 1);
  if (ImGui::CalcTextSize(whole.c_str()).x + items_gap + tail <= width) {
    if (!colour) return 1;
    if (one_text) {
      ImGui::TextColored(colour(0), "%s", whole.c_str());
    } else {
      for (std::size_t k = 0; k < terms.size(); ++k) {
        if (k > 0) ImGui::SameLine();
        ImGui::TextColored(colour(k), "%s%s", k ? sep : "", terms[k].c_str());
      }
    }
    return 1;
  }
  const float gap = ImGui::CalcTextSize(sep).x;
  int lines = 1;
  float x = 0;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const float w = ImGui::CalcTextSize(terms[k].c_str()).x + (k + 1 == terms.size() ? tail : 0.0f);
    const bool wraps = w > width;
    const bool next_line = k > 0 && (wraps || x + gap + w > width);
    if (next_line) {
      ++lines;
      x = 0;
    } else if (k > 0) {
      x += gap;
    }
    const std::vector<std::string> rows = wraps ? wrap_words(terms[k], width - tail) : std::vector<std::string>{};
    if (wraps) lines += static_cast<int>(rows.size()) - 1;
    x = wraps ? width : x + w;  // nothing goes beside a wrapped term
    if (!colour) continue;
    if (k > 0 && !next_line) {  // the separator between two terms of a line, as `whole` has it
      ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(sep);
      ImGui::SameLine(0, 0);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, colour(k));
    if (wraps) {
      for (const std::string& r : rows) ImGui::TextUnformatted(r.c_str());
    } else {
      ImGui::TextUnformatted(terms[k].c_str());
    }
    ImGui::PopStyleColor();
  }
  return lines;
}

// The tile's budget: what its blocks take against M, in two lines of terms (term_line).
struct BudgetText {
  std::vector<std::string> sizes, verdict;  // verdict: the paper's sum against M, then with S
  bool fits = true, fits_with_s = true;
  std::string help;
};
std::optional<BudgetText> budget_text(const ViewInput& in, const MemoryPanelOptions& opt) {
  const Recording& rec = in.rec;
  if (rec.Br <= 0 || rec.Bc <= 0) return std::nullopt;
  const bool default_m = opt.sram_budget <= 0;
  // The step's tile (core/tiles.h): what one tile step holds, by shape; the forward's while a
  // backward row runs its forward.
  const TileShape& shape = step_tile(rec, in.step);
  const TileBudget t = tile_budget(shape, rec.Br, rec.Bc, rec.d, default_m ? kDefaultSram : opt.sram_budget);
  const std::string kv(shape.key_names), qo(shape.query_names), sc(shape.score_names), sum(shape.paper_sum);
  BudgetText b;
  b.sizes = {strf("%s: %d·Bc·d = %d·%d·%d = %lld", kv.c_str(), shape.key_tiles, shape.key_tiles, rec.Bc, rec.d, t.kv),
             strf("%s: %d·Br·d = %d·%d·%d = %lld", qo.c_str(), shape.query_tiles, shape.query_tiles, rec.Br, rec.d, t.qo),
             shape.score_tiles == 1 ? strf("%s: Br·Bc = %d·%d = %lld", sc.c_str(), rec.Br, rec.Bc, t.s)
                                    : strf("%s: %d·Br·Bc = %d·%d·%d = %lld", sc.c_str(), shape.score_tiles,
                                           shape.score_tiles, rec.Br, rec.Bc, t.s)};
  b.fits = t.fits_paper();
  b.fits_with_s = t.fits_with_s();
  b.verdict = {strf("%s = %lld %s M = %d%s: %s", sum.c_str(), t.paper, b.fits ? "≤" : ">", t.M,
                    default_m ? " (default)" : "", b.fits ? "fits" : "does not fit"),
               strf("with %s: %lld %s M", sc.c_str(), t.with_s, b.fits_with_s ? "≤" : ">")};
  b.help = tile_rule_help(shape);
  return b;
}

// Without tiles, what is on chip in a sentence.
std::string on_chip_sentence(const std::vector<OnChip>& items) {
  long long now = 0;
  for (const OnChip& o : items) now += o.elements;
  return strf("On chip in this step: %lld element%s.", now, now == 1 ? "" : "s");
}

// The counters in a line, each as far as the step has come of the whole run ("so far: HBM reads
// 264 of 456 · ..."), or the HBM ones alone, for a wide panel short of height (presenting). The
// HBM ones alone follow the line under the boxes (what is on chip, or the budget's verdict).
std::vector<std::string> counter_terms(const ViewInput& in, const MemoryPanelOptions& opt) {
  const bool hide_whole_run = opt.hide_whole_run;
  const IoCounters now = in.step ? in.step->io : IoCounters{};
  std::vector<std::string> terms;
  for (const IoCounterInfo& c : kIoCounters)
    if (opt.counters_as != MemoryPanelOptions::Counters::hbm_after_boxes || c.key.rfind("hbm_", 0) == 0)
      terms.push_back((terms.empty() ? "so far: " : "") + std::string(c.name) + " " + big(now.*c.field) + " of " +
                    (hide_whole_run ? std::string("?") : big(in.rec.io.*c.field)));
  return terms;
}
constexpr const char* kTermsGap = "  ·  ";

// The HBM counters that follow the line under the boxes, where they go there (none otherwise).
std::vector<std::string> counters_after(const ViewInput& in, const MemoryPanelOptions& opt) {
  return opt.show_counters && opt.counters_as == MemoryPanelOptions::Counters::hbm_after_boxes
             ? counter_terms(in, opt)
             : std::vector<std::string>{};
}

// `a` and then `b`.
std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The lines draw_budget takes at the window's font of the moment.
int budget_lines(const ViewInput& in, const MemoryPanelOptions& opt, const std::vector<OnChip>& items) {
  const std::optional<BudgetText> b = budget_text(in, opt);
  const std::vector<std::string> after = counters_after(in, opt);
  const float width = ImGui::GetContentRegionAvail().x;
  if (!b) {
    if (after.empty()) return static_cast<int>(wrap_words(on_chip_sentence(items), width).size());
    return term_line(joined({on_chip_sentence(items)}, after), kTermsGap, false, 0.0f, width, {});
  }
  const float marker = picture_mode() ? 0.0f : ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  return term_line(b->sizes, "    ", true, marker, width, {}) +
         term_line(joined(b->verdict, after), "   ", false, 0.0f, width, {});
}

void draw_budget(const ViewInput& in, const MemoryPanelOptions& opt, const std::vector<OnChip>& items) {
  const Palette& pal = in.palette;
  const std::optional<BudgetText> b = budget_text(in, opt);
  const std::vector<std::string> after = counters_after(in, opt);
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec4 text = ImGui::GetStyle().Colors[ImGuiCol_Text], dim = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
  if (!b) {
    if (!after.empty()) {
      term_line(joined({on_chip_sentence(items)}, after), kTermsGap, false, 0.0f, width,
                [&](std::size_t k) { return k == 0 ? dim : text; });
      return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, dim);
    text_wrapped_words(on_chip_sentence(items), width);
    ImGui::PopStyleColor();
    return;
  }
  const float marker = picture_mode() ? 0.0f : ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  term_line(b->sizes, "    ", true, marker, width, [&](std::size_t) { return text; });
  help_marker(b->help.c_str());
  const ImVec4 ok = ImGui::ColorConvertU32ToFloat4(pal.sram), bad = ImGui::ColorConvertU32ToFloat4(pal.nonfinite);
  const std::size_t verdict = b->verdict.size();
  term_line(joined(b->verdict, after), "   ", false, 0.0f, width,
            [&](std::size_t k) { return k >= verdict ? text : k == 1 ? dim : b->fits ? ok : bad; });
}

// The counters as a table, a row each (counter, so far, whole run), or in a line as `opt` says.
void draw_counters(const ViewInput& in, const MemoryPanelOptions& opt) {
  const bool hide_whole_run = opt.hide_whole_run;
  if (opt.counters_as == MemoryPanelOptions::Counters::line) {
    const ImVec4 text = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    term_line(counter_terms(in, opt), kTermsGap, true, 0.0f, ImGui::GetContentRegionAvail().x,
              [&](std::size_t) { return text; });
    return;
  }
  const IoCounters now = in.step ? in.step->io : IoCounters{};
  const IoCounters& all = in.rec.io;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV;
  if (!ImGui::BeginTable("##io", 3, flags)) return;
  ImGui::TableSetupColumn("counter");
  ImGui::TableSetupColumn("so far");
  ImGui::TableSetupColumn("whole run");
  ImGui::TableHeadersRow();
  // One row per counter of the list (core/io_counters.h), in its order.
  for (const IoCounterInfo& c : kIoCounters) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.name.data(), c.name.data() + c.name.size());
    help_marker(std::string(c.help).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(big(now.*c.field).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", hide_whole_run ? "?" : big(all.*c.field).c_str());
    if (hide_whole_run && ImGui::IsItemHovered())
      ImGui::SetTooltip("Shown again once the question about the HBM reads is answered or skipped.");
  }
  ImGui::EndTable();
}

void draw_comparison(const ViewInput& in) {
  const Recording& rec = in.rec;
  const Palette& pal = in.palette;
  const float s = in.ui_scale, fs = ImGui::GetFontSize();
  // The rows of its group, each against the one that materializes its N × N matrices.
  const bool attention = takes_qkv(rec.algorithm);
  const std::vector<Algorithm> algos = group_of(rec.algorithm);
  const Algorithm materialized = materialized_of(rec.algorithm);
  const std::size_t base =
      static_cast<std::size_t>(std::find(algos.begin(), algos.end(), materialized) - algos.begin());
  std::vector<IoCounters> io;
  std::uint64_t most = 1;
  for (Algorithm a : algos) {
    io.push_back(expected_io(comparable(rec, a)));
    most = std::max(most, io.back().hbm_accesses());
  }
  const std::string heading =
      attention ? strf("HBM traffic for N = %d, d = %d (FlashAttention with Br = %d, Bc = %d)", rec.n, rec.d,
                       comparable(rec, rec.algorithm).Br, comparable(rec, rec.algorithm).Bc)
                : strf("HBM traffic for %d × %d elements", rec.rows, rec.n);
  text_wrapped_words(heading, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("(?)").x - 8 * s);
  help_marker(
      "From the IO model (core/io_model.h) for the same shape, not from a run. Softmax: safe "
      "reads x three times (max, sum, normalize) and writes y once, 4 accesses per element; "
      "online and the others read twice, 3 per element. Attention: the materialized version "
      "moves N×N scores through HBM, FlashAttention never stores them.");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // The names' column: the longest of the group's ids ("attn-flash-backward") and two spaces.
  float name_w = ImGui::CalcTextSize("attn-tiled-v2  ").x;
  for (Algorithm a : algos)
    name_w = std::max(name_w, ImGui::CalcTextSize((std::string(algorithm_id(a)) + "  ").c_str()).x);
  const double elements = static_cast<double>(rec.rows) * rec.n;
  std::vector<std::string> labels;
  float label_w = 0;
  for (std::size_t k = 0; k < algos.size(); ++k) {
    std::string t = big(io[k].hbm_accesses());
    if (!attention && elements > 0)
      t += strf(" (%s per element)", num(static_cast<double>(io[k].hbm_accesses()) / elements).c_str());
    else if (attention && !info(materialized).square.empty() && io[base].hbm_accesses() > 0 && k != base)
      t += strf(" (%s%% of materialized)",
                num(std::round(1000.0 * static_cast<double>(io[k].hbm_accesses()) /
                               static_cast<double>(io[base].hbm_accesses())) /
                    10.0)
                    .c_str());
    label_w = std::max(label_w, ImGui::CalcTextSize(t.c_str()).x);
    labels.push_back(std::move(t));
  }
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float bar_w = std::max(avail_w - name_w - label_w - 10 * s, 40 * s);
  const float right_room = avail_w - name_w - bar_w - 8 * s;
  const std::uint64_t so_far = in.step ? in.step->io.hbm_accesses() : 0;
  for (std::size_t k = 0; k < algos.size(); ++k) {
    const bool current = algos[k] == rec.algorithm;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const std::string id(algorithm_id(algos[k]));
    dl->AddText(p, current ? pal.text : pal.text_dim, id.c_str());
    const float w = bar_w * static_cast<float>(io[k].hbm_accesses()) / static_cast<float>(most);
    const ImVec2 a(p.x + name_w, p.y + 2 * s), b(a.x + std::max(w, 2.0f), p.y + fs - 1 * s);
    dl->AddRectFilled(a, b, with_alpha(current ? pal.hbm : pal.grid, current ? 0.45f : 0.6f), 2 * s);
    if (current) {
      const float done = w * static_cast<float>(std::min<double>(
                                 1.0, static_cast<double>(so_far) /
                                          std::max<double>(1.0, static_cast<double>(io[k].hbm_accesses()))));
      dl->AddRectFilled(a, ImVec2(a.x + done, b.y), pal.hbm, 2 * s);
      dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), pal.current, 2 * s, 0, 1.5f * s);
    }
    // The number, and its share when the room allows it (the tooltip has the split).
    std::string t = labels[k];
    if (ImGui::CalcTextSize(t.c_str()).x > right_room) t = big(io[k].hbm_accesses());
    dl->AddText(ImVec2(b.x + 6 * s, p.y), current ? pal.text : pal.text_dim, t.c_str());
    ImGui::Dummy(ImVec2(name_w + bar_w, fs + 3 * s));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s reads + %s writes", id.c_str(), big(io[k].hbm_reads).c_str(),
                        big(io[k].hbm_writes).c_str());
  }
  if (const std::string note = streaming_traffic_note(rec); !note.empty())
    text_wrapped_words(note, ImGui::GetContentRegionAvail().x);
}

// The width of the counters' column beside the comparison.
float counters_width() {
  const ImGuiStyle& st = ImGui::GetStyle();
  return ImGui::CalcTextSize("SRAM writes (?)").x + ImGui::CalcTextSize("whole run").x +
         ImGui::CalcTextSize("000 000 000").x + st.CellPadding.x * 6 + st.ItemSpacing.x * 2;
}

// The width the counters' table takes, its columns fitted to their words and numbers, in the
// window's font of the moment. The "so far" numbers are measured at the whole run's, the most
// they come to: the table's text keeps one size while the playhead moves.
float counters_table_width(const ViewInput& in) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float marker = picture_mode() ? 0.0f : st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  float names = ImGui::CalcTextSize("counter").x, so_far = ImGui::CalcTextSize("so far").x,
        run = ImGui::CalcTextSize("whole run").x;
  for (const IoCounterInfo& c : kIoCounters) {
    names = std::max(names, ImGui::CalcTextSize(c.name.data(), c.name.data() + c.name.size()).x + marker);
    const float most = ImGui::CalcTextSize(big(in.rec.io.*c.field).c_str()).x;
    so_far = std::max(so_far, most);
    run = std::max(run, most);
  }
  return names + so_far + run + st.CellPadding.x * 6 + 2.0f;  // and its two inner borders
}

// The scale of the counters' text where the table stands alone (under the boxes or above the
// comparison): 1 where it fits the panel's width, else the largest by twentieths down to its
// size at font 1×, as the boxes' text gives way.
float counters_text_scale(const ViewInput& in) {
  const float room = ImGui::GetContentRegionAvail().x;
  TextScale t;
  return shrink_to_fit(t, room, [&] { return counters_table_width(in); }, in.floor_fraction());
}

// The counters and the comparison side by side where the comparison keeps room for an
// algorithm's name and ten ems of bar and number beside the counters; else one above the other
// (a larger font in a narrow panel). In a line, the counters stand above the comparison.
bool side_by_side(const MemoryPanelOptions& opt) {
  return opt.show_counters && opt.show_comparison && opt.counters_as == MemoryPanelOptions::Counters::table &&
         ImGui::GetContentRegionAvail().x - counters_width() >=
             ImGui::CalcTextSize("attn-tiled-v2  ").x + 10.0f * ImGui::GetFontSize();
}

}  // namespace

// What the shown step has on chip, against the step before it (what that one read or wrote
// is still there).
static std::vector<OnChip> step_on_chip(const ViewInput& in) {
  return in.step ? on_chip(in.rec, *in.step, step_before(in)) : std::vector<OnChip>{};
}

float memory_panel_height(const ViewInput& in, const MemoryPanelOptions& opt) {
  const Recording& rec = in.rec;
  const ImGuiStyle& st = ImGui::GetStyle();
  if (rec.buffers.empty()) return ImGui::GetTextLineHeightWithSpacing();
  const std::vector<OnChip> items = step_on_chip(in);
  float y = 0;
  draw_boxes(in, items, y, true);
  y += ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(budget_lines(in, opt, items));
  // The counters: a table of a header and a row each, or their line; the HBM ones alone after
  // the boxes take no lines of their own (budget_lines counts them).
  float counters = 0;
  if (opt.show_counters && opt.counters_as != MemoryPanelOptions::Counters::hbm_after_boxes) {
    if (opt.counters_as == MemoryPanelOptions::Counters::line) {
      counters = static_cast<float>(term_line(counter_terms(in, opt), kTermsGap, true, 0.0f,
                                              ImGui::GetContentRegionAvail().x, nullptr)) *
                 ImGui::GetTextLineHeightWithSpacing();
    } else {
      TextScale t;
      if (!side_by_side(opt)) t.set(counters_text_scale(in));
      counters = (1.0f + static_cast<float>(kIoCounterCount)) * (ImGui::GetTextLineHeight() + st.CellPadding.y * 2);
    }
  }
  // The comparison: its heading (wrapped) and a bar for each algorithm of the family.
  float comparison = 0;
  if (opt.show_comparison) {
    const float w = ImGui::GetContentRegionAvail().x - (side_by_side(opt) ? counters_width() : 0.0f);
    const std::string heading =
        takes_qkv(rec.algorithm) ? "HBM traffic for N = 0000, d = 000 (FlashAttention with Br = 000, Bc = 000)"
                                 : "HBM traffic for 000 × 000000 elements";
    const int algos = static_cast<int>(group_of(rec.algorithm).size());
    comparison = static_cast<float>(wrap_words(heading, w - ImGui::CalcTextSize("(?)").x - 8 * in.ui_scale).size()) *
                     ImGui::GetTextLineHeightWithSpacing() +
                 static_cast<float>(algos) * (ImGui::GetFontSize() + 3 * in.ui_scale + st.ItemSpacing.y);
  }
  return y + (side_by_side(opt) ? std::max(counters, comparison) : counters + comparison) + st.ItemSpacing.y;
}

static void draw_memory_panel_body(const ViewInput& in, MemoryPanelOptions& opt) {
  const Recording& rec = in.rec;
  if (rec.buffers.empty()) {
    ImGui::TextDisabled("Nothing recorded yet.");
    return;
  }
  const std::vector<OnChip> items = step_on_chip(in);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  float y = origin.y;
  draw_boxes(in, items, y);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
  draw_budget(in, opt, items);
  if (side_by_side(opt) && ImGui::BeginTable("##memory_lower", 2, ImGuiTableFlags_SizingStretchProp)) {
    // The counters take the width their words and numbers need; the comparison the rest.
    ImGui::TableSetupColumn("a", ImGuiTableColumnFlags_WidthFixed, counters_width());
    ImGui::TableSetupColumn("b", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    draw_counters(in, opt);
    ImGui::TableNextColumn();
    draw_comparison(in);
    ImGui::EndTable();
  } else {
    if (opt.show_counters && opt.counters_as != MemoryPanelOptions::Counters::hbm_after_boxes) {
      TextScale t;
      if (opt.counters_as == MemoryPanelOptions::Counters::table) t.set(counters_text_scale(in));
      draw_counters(in, opt);
    }
    if (opt.show_comparison) draw_comparison(in);
  }
}

// One ID scope per options struct, so two copies of the view (compare mode) never share
// widgets, child windows or textures.
void draw_memory_panel(const ViewInput& in, MemoryPanelOptions& opt) {
  ImGui::PushID(&opt);
  draw_memory_panel_body(in, opt);
  ImGui::PopID();
}

}  // namespace flashstep::ui
