#include "app/ui/views/view_matrix.h"

#include "app/ui/views/heat_image.h"
#include "app/ui/views/matrix_layout.h"
#include "app/ui/views/tile_states.h"
#include "app/ui/views/view_close_up.h"
#include "app/ui/views/view_matrix_controls.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace flashstep::ui {
namespace {

// One heatmap on screen: which buffer, drawn transposed or not, where.
struct Mat {
  int buffer = -1;
  bool transposed = false;
  Rect rect;
  bool query_rows = false;          // display rows are queries: Br grid lines and tile_i apply
  bool key_cols = false;            // display columns are keys: Bc grid lines and tile_j apply
  std::vector<std::string> titles;  // longest first; the first that fits is drawn
  float cw = 0, ch = 0;             // cell size on screen
  int rows = 0, cols = 0;           // display shape
  bool below_free = false;          // room under it for its colour scale
  float below_offset = 0;           // where that room starts under its bottom edge
};

struct Ctx {
  const ViewInput& in;
  const Recording& rec;
  const State& st;
  const Palette& pal;
  ImDrawList* dl;
  float s, fs;
  const MatrixViewOptions& opt;
  std::uint64_t content;  // what the heat textures show: recording, step, palette
  MatrixViewOptions::Drawn& report;  // what this frame drew (numbers' size, hidden numbers)
  const std::vector<ValueRange>& ranges;  // each buffer's colour range
  const TileStates& tiles;                 // which tiles and row blocks are on chip
  const ValueRange& range_of(int buffer) const { return ranges[static_cast<std::size_t>(buffer)]; }
};

// Whether buffer cell (r, col) of m has left the chip: a discarded tile of S or P̃, a finished
// Q block of an on-chip per-row buffer, a register reused since. Its ghost carries no number.
bool cell_gone(const Ctx& c, const Mat& m, int r, int col);

// Display cell (r, c) of m → buffer cell.
inline void to_buffer(const Mat& m, int r, int c, int& br, int& bc) {
  if (m.transposed) {
    br = c;
    bc = r;
  } else {
    br = r;
    bc = c;
  }
}

// A region of the buffer in display coordinates [r0, r1) × [c0, c1).
inline void region_display(const Mat& m, const Region& g, int& r0, int& r1, int& c0, int& c1) {
  if (m.transposed) {
    r0 = g.c0, r1 = g.c1, c0 = g.r0, c1 = g.r1;
  } else {
    r0 = g.r0, r1 = g.r1, c0 = g.c0, c1 = g.c1;
  }
}

inline ImVec2 cell_pos(const Mat& m, float r, float c) {
  return ImVec2(m.rect.x + c * m.cw, m.rect.y + r * m.ch);
}

HeatSource source(const Ctx& c, const Mat& m, const ValueRange& range) {
  HeatSource src;
  src.values = &c.st.values[m.buffer];
  src.defined = &c.st.defined[m.buffer];
  src.rows = m.rows;
  src.cols = m.cols;
  src.stride = c.rec.buffers[m.buffer].cols;
  src.transposed = m.transposed;
  src.range = range;
  return src;
}

// Fills, then hairline gaps and numbers for the visible cells that are large enough.
void draw_cells(const Ctx& c, const Mat& m, const ValueRange& range) {
  const ImVec2 cmin = c.dl->GetClipRectMin(), cmax = c.dl->GetClipRectMax();
  if (m.rect.x > cmax.x || m.rect.y > cmax.y || m.rect.x + m.rect.w < cmin.x || m.rect.y + m.rect.h < cmin.y)
    return;
  const int r_begin = std::clamp(static_cast<int>(std::floor((cmin.y - m.rect.y) / m.ch)), 0, m.rows);
  const int r_end = std::clamp(static_cast<int>(std::ceil((cmax.y - m.rect.y) / m.ch)), 0, m.rows);
  const int c_begin = std::clamp(static_cast<int>(std::floor((cmin.x - m.rect.x) / m.cw)), 0, m.cols);
  const int c_end = std::clamp(static_cast<int>(std::ceil((cmax.x - m.rect.x) / m.cw)), 0, m.cols);
  const HeatSource src = source(c, m, range);
  const int g = std::max(decimation(m.cw), decimation(m.ch));
  if (gl_renderer()) {
    int w = 0, h = 0;
    heat_image_size(src, g, w, h);
    const std::string key = c.rec.buffers[m.buffer].name + (m.transposed ? "T" : "");
    const ImTextureID tex = heat_texture(key.c_str(), c.content ^ (static_cast<std::uint64_t>(g) << 56), w, h,
                                         [&](std::vector<ImU32>& px) { heat_image(c.pal, src, g, px); });
    const ImVec2 uv1(static_cast<float>(m.cols) / static_cast<float>(g * w),
                     static_cast<float>(m.rows) / static_cast<float>(g * h));
    c.dl->AddImage(tex, ImVec2(m.rect.x, m.rect.y), ImVec2(m.rect.x + m.rect.w, m.rect.y + m.rect.h),
                   ImVec2(0, 0), uv1);
  } else {
    for (int r = r_begin - r_begin % g; r < r_end; r += g)
      for (int col = c_begin - c_begin % g; col < c_end; col += g)
        c.dl->AddRectFilled(cell_pos(m, static_cast<float>(r), static_cast<float>(col)),
                            cell_pos(m, static_cast<float>(std::min(r + g, m.rows)),
                                     static_cast<float>(std::min(col + g, m.cols))),
                            block_fill(c.pal, src, r, col, g));
  }
  if (g > 1 || std::min(m.cw, m.ch) < 7.0f) {
    if (c.opt.show_values) c.report.numbers_hidden = true;
    return;
  }
  // A hairline gap between cells reads as a grid once cells are large.
  for (int r = std::max(r_begin, 1); r < r_end; ++r) {
    const float y = m.rect.y + static_cast<float>(r) * m.ch;
    c.dl->AddLine(ImVec2(m.rect.x, y), ImVec2(m.rect.x + m.rect.w, y), c.pal.background, 1.0f);
  }
  for (int col = std::max(c_begin, 1); col < c_end; ++col) {
    const float x = m.rect.x + static_cast<float>(col) * m.cw;
    c.dl->AddLine(ImVec2(x, m.rect.y), ImVec2(x, m.rect.y + m.rect.h), c.pal.background, 1.0f);
  }
  if (!c.opt.show_values) return;
  // Numbers at a readable size or not at all: at least kMinCellTextPx (× the UI scale), in one
  // format for the whole matrix (the longest that fits every visible cell), each on a backing
  // plate so it reads against whatever colour is behind it.
  // The largest size from the font's down to the minimum at which some format fits every cell.
  const float min_size = kMinCellTextPx * c.s;
  auto hide = [&] { c.report.numbers_hidden = true; };
  ImFont* font = ImGui::GetFont();
  const float room = m.cw - 3.0f * c.s;
  float text_size = std::min(c.fs, m.ch * 0.8f);
  int format = -1;  // digits 3, 2, 1, or 0 for tiny_number
  for (; text_size >= min_size && format < 0; text_size = text_size > min_size ? std::max(text_size * 0.9f, min_size) : 0.0f) {
    auto width = [&](const std::string& t) { return font->CalcTextSizeA(text_size, 1e9f, 0.0f, t.c_str()).x; };
    for (int digits = 3; digits >= 0 && format < 0; --digits) {
      bool fits = true;
      for (int r = r_begin; r < r_end && fits; ++r)
        for (int col = c_begin; col < c_end && fits; ++col) {
          const std::size_t k = src.index(r, col);
          if (!(*src.defined)[k]) continue;
          const double v = (*src.values)[k];
          fits = width(digits > 0 ? compact_number(v, digits) : tiny_number(v)) <= room;
        }
      if (fits) format = digits;
    }
    if (format >= 0) break;
  }
  auto width = [&](const std::string& t) { return font->CalcTextSizeA(text_size, 1e9f, 0.0f, t.c_str()).x; };
  if (format < 0) return hide();
  c.report.number_px = c.report.number_px > 0 ? std::min(c.report.number_px, text_size) : text_size;
  for (int r = r_begin; r < r_end; ++r)
    for (int col = c_begin; col < c_end; ++col) {
      const std::size_t k = src.index(r, col);
      if (!(*src.defined)[k]) continue;
      int br = 0, bc = 0;
      to_buffer(m, r, col, br, bc);
      if (cell_gone(c, m, br, bc)) continue;
      const double v = (*src.values)[k];
      const ImU32 fill = value_fill(c.pal, cell_kind(true, v), range, v);
      const ImVec2 p0 = cell_pos(m, static_cast<float>(r), static_cast<float>(col));
      if (fill == c.pal.nonfinite)
        hatch(c.dl, p0, ImVec2(p0.x + m.cw, p0.y + m.ch), IM_COL32(0, 0, 0, 70), 6.0f * c.s);
      const std::string t = format > 0 ? compact_number(v, format) : tiny_number(v);
      const float tw = width(t);
      const ImVec2 centre(p0.x + m.cw * 0.5f, p0.y + m.ch * 0.5f);
      const ImU32 ink = text_over(fill);
      // The plate: black under light text, white under dark, 3/4 opaque: 7:1 over any fill.
      const bool light_ink = ((ink >> IM_COL32_R_SHIFT) & 0xFF) > 128;
      const ImU32 plate = light_ink ? IM_COL32(0, 0, 0, 190) : IM_COL32(255, 255, 255, 190);
      const float pad = 1.0f * c.s;
      c.dl->AddRectFilled(ImVec2(std::floor(centre.x - tw * 0.5f) - pad, std::floor(centre.y - text_size * 0.5f)),
                          ImVec2(std::ceil(centre.x + tw * 0.5f) + pad, std::ceil(centre.y + text_size * 0.5f)),
                          plate);
      text_centered(c.dl, ImVec2(centre.x + 0.5f, centre.y + 0.5f), ink, t.c_str(), text_size);
    }
}

bool cell_gone(const Ctx& c, const Mat& m, int r, int col) {
  if (m.transposed || !m.query_rows) return false;
  const Space space = c.rec.buffers[static_cast<std::size_t>(m.buffer)].space;
  if (space == Space::reg) return !register_live(c.rec, c.in.step, m.buffer, r, col);
  const TileStates& t = c.tiles;
  if (t.Tr == 0 || c.rec.Br <= 0 || c.rec.Bc <= 0) return false;
  if (m.key_cols) return t.at(r / c.rec.Br, col / c.rec.Bc) == TileState::discarded;
  return space == Space::sram && t.row_block[static_cast<std::size_t>(r / c.rec.Br)] == TileState::discarded;
}

// An on-chip per-row buffer (FA-2's m, l, O_acc) keeps only the Q block being worked on:
// the blocks done before it have left SRAM and are drawn as ghosts.
void draw_row_blocks(const Ctx& c, const Mat& m, const TileStates& tiles) {
  if (tiles.Tr == 0 || !m.query_rows || m.key_cols || m.transposed) return;
  if (c.rec.buffers[static_cast<std::size_t>(m.buffer)].space != Space::sram) return;
  const ImU32 ghost = with_alpha(c.pal.background, 0.80f);
  for (int i = 0; i < tiles.Tr; ++i) {
    if (tiles.row_block[static_cast<std::size_t>(i)] != TileState::discarded) continue;
    const int r0 = i * c.rec.Br, r1 = std::min(r0 + c.rec.Br, m.rows);
    const ImVec2 p0 = cell_pos(m, static_cast<float>(r0), 0.0f);
    const ImVec2 p1 = cell_pos(m, static_cast<float>(r1), static_cast<float>(m.cols));
    c.dl->AddRectFilled(p0, p1, ghost);
    c.dl->AddRect(p0, p1, with_alpha(c.pal.grid, 0.9f), 0.0f, 0, 1.0f * c.s);
  }
}

// Registers keep one query row: the cells of other rows (and S's other scores) are drawn as
// gone, run by run along each row.
void draw_registers(const Ctx& c, const Mat& m) {
  if (!m.query_rows || m.transposed) return;
  if (c.rec.buffers[static_cast<std::size_t>(m.buffer)].space != Space::reg) return;
  const ImU32 ghost = with_alpha(c.pal.background, 0.80f);
  for (int r = 0; r < m.rows; ++r) {
    int run = -1;
    for (int k = 0; k <= m.cols; ++k) {
      const bool gone = k < m.cols && !register_live(c.rec, c.in.step, m.buffer, r, k);
      if (gone && run < 0) run = k;
      if (!gone && run >= 0) {
        c.dl->AddRectFilled(cell_pos(m, static_cast<float>(r), static_cast<float>(run)),
                            cell_pos(m, static_cast<float>(r + 1), static_cast<float>(k)), ghost);
        run = -1;
      }
    }
  }
}

void draw_tile_states(const Ctx& c, const Mat& m, const TileStates& tiles) {
  draw_registers(c, m);
  draw_row_blocks(c, m, tiles);
  if (tiles.Tr == 0 || !m.query_rows || !m.key_cols || m.transposed) return;
  const ImU32 ghost = with_alpha(c.pal.background, 0.80f);
  const ImU32 stripes = with_alpha(c.pal.text_dim, 0.55f);
  const Mask mask = mask_of(c.rec);
  for (int i = 0; i < tiles.Tr; ++i)
    for (int j = 0; j < tiles.Tc; ++j) {
      const int r0 = i * c.rec.Br, r1 = std::min(r0 + c.rec.Br, m.rows);
      const int c0 = j * c.rec.Bc, c1 = std::min(c0 + c.rec.Bc, m.cols);
      const ImVec2 p0 = cell_pos(m, static_cast<float>(r0), static_cast<float>(c0));
      const ImVec2 p1 = cell_pos(m, static_cast<float>(r1), static_cast<float>(c1));
      const TileState t = tiles.at(i, j);
      if (t == TileState::masked) {
        c.dl->AddRectFilled(p0, p1, c.pal.cell);
        hatch(c.dl, p0, p1, stripes, 6.0f * c.s);
        continue;
      }
      if (t == TileState::discarded) {
        c.dl->AddRectFilled(p0, p1, ghost);
        c.dl->AddRect(p0, p1, with_alpha(c.pal.grid, 0.9f), 0.0f, 0, 1.0f * c.s);
      }
      // Masked scores inside a tile the mask cuts.
      if (t != TileState::not_yet && mask.tile(r0, r1 - r0, c0, c1 - c0) == TileKind::partial)
        for (int r = r0; r < r1; ++r)
          for (int k = c0; k < c1; ++k) {
            if (mask.visible(r, k)) continue;
            const ImVec2 a = cell_pos(m, static_cast<float>(r), static_cast<float>(k));
            const ImVec2 b(a.x + m.cw, a.y + m.ch);
            c.dl->AddRectFilled(a, b, c.pal.cell);
            hatch(c.dl, a, b, stripes, 6.0f * c.s);
          }
      if (t != TileState::discarded) continue;
      // The word at the tile's size, up to the font's, and only where it is readable.
      const float tile_fs = std::min(c.fs, (p1.y - p0.y) * 0.45f);
      if (tile_fs < kMinCellTextPx * c.s) continue;
      for (const char* w : {"discarded", "disc.", ""}) {
        const float tw = ImGui::GetFont()->CalcTextSizeA(tile_fs, 1e9f, 0.0f, w).x;
        if (tw <= p1.x - p0.x - 4 * c.s) {
          if (*w)
            c.dl->AddText(ImGui::GetFont(), tile_fs,
                          ImVec2((p0.x + p1.x - tw) * 0.5f, (p0.y + p1.y - tile_fs) * 0.5f), c.pal.text_dim, w);
          break;
        }
      }
    }
}

void draw_grid(const Ctx& c, const Mat& m) {
  if (!c.opt.show_tiles || c.rec.Br <= 0 || c.rec.Bc <= 0) return;
  const ImU32 col = with_alpha(c.pal.grid, 0.9f);
  const float x1 = m.rect.x + m.rect.w, y1 = m.rect.y + m.rect.h;
  if (m.query_rows)
    for (int r = c.rec.Br; r < m.rows; r += c.rec.Br) {
      const float y = m.rect.y + static_cast<float>(r) * m.ch;
      c.dl->AddLine(ImVec2(m.rect.x, y), ImVec2(x1, y), col, 1.5f * c.s);
    }
  if (m.key_cols)
    for (int k = c.rec.Bc; k < m.cols; k += c.rec.Bc) {
      const float x = m.rect.x + static_cast<float>(k) * m.cw;
      c.dl->AddLine(ImVec2(x, m.rect.y), ImVec2(x, y1), col, 1.5f * c.s);
    }
}

void draw_marks(const Ctx& c, const Mat& m) {
  const Step* st = c.in.step;
  if (!st) return;
  // The current tile (i, j): on S and P the whole tile, elsewhere its rows or columns.
  bool tile_drawn = false;
  if (st->tile_i >= 0 && c.rec.Br > 0 && (m.query_rows || m.key_cols)) {
    const int rb = m.query_rows ? st->tile_i * c.rec.Br : 0;
    const int re = m.query_rows ? std::min(rb + c.rec.Br, m.rows) : m.rows;
    int cb = 0, ce = m.cols;
    if (m.key_cols) {
      if (st->tile_j < 0) return;  // FlashAttention-2's final step of a row block has no key tile
      cb = st->tile_j * c.rec.Bc;
      ce = std::min(cb + c.rec.Bc, m.cols);
    }
    if (m.query_rows && m.key_cols) {
      outline(c.dl, cell_pos(m, static_cast<float>(rb), static_cast<float>(cb)),
              cell_pos(m, static_cast<float>(re), static_cast<float>(ce)), c.pal.current, 3.0f * c.s,
              6.0f * c.s);
      tile_drawn = true;
    }
  }
  auto draw = [&](const std::vector<Region>& regions, std::uint8_t mark) {
    for (const Region& g : regions) {
      if (g.buffer != m.buffer) continue;
      int r0, r1, c0, c1;
      region_display(m, g, r0, r1, c0, c1);
      if (tile_drawn && mark == kMarkWrite) continue;  // the yellow tile already says it
      std::uint8_t both = mark;
      if (mark == kMarkRead)
        for (const Region& w : st->writes)
          if (w.buffer == g.buffer && w.r0 == g.r0 && w.r1 == g.r1 && w.c0 == g.c0 && w.c1 == g.c1)
            both |= kMarkWrite;
      mark_outline(c.dl, c.pal, cell_pos(m, static_cast<float>(r0), static_cast<float>(c0)),
                   cell_pos(m, static_cast<float>(r1), static_cast<float>(c1)), both, c.s, 7.0f * c.s);
    }
  };
  draw(st->reads, kMarkRead);
  // Writes not already drawn together with an identical read.
  std::vector<Region> only_writes;
  for (const Region& w : st->writes) {
    bool paired = false;
    for (const Region& g : st->reads)
      paired |= w.buffer == g.buffer && w.r0 == g.r0 && w.r1 == g.r1 && w.c0 == g.c0 && w.c1 == g.c1;
    if (!paired) only_writes.push_back(w);
  }
  draw(only_writes, kMarkWrite);
}

std::string cell_name(const Recording& rec, const Mat& m, int br, int bc) {
  const BufferInfo& b = rec.buffers[m.buffer];
  if (b.cols == 1) return strf("%s[%d]", b.name.c_str(), br + 1);
  return strf("%s[%d,%d]", b.name.c_str(), br + 1, bc + 1);
}

void hover(const Ctx& c, const Mat& m) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!m.rect.contains(mouse.x, mouse.y)) return;
  const int r = std::clamp(static_cast<int>((mouse.y - m.rect.y) / m.ch), 0, m.rows - 1);
  const int col = std::clamp(static_cast<int>((mouse.x - m.rect.x) / m.cw), 0, m.cols - 1);
  int br, bc;
  to_buffer(m, r, col, br, bc);
  const BufferInfo& b = c.rec.buffers[m.buffer];
  const CellChange ch = cell_change(c.rec, c.st, c.in.playhead, m.buffer, br, bc);
  std::string title = cell_name(c.rec, m, br, bc) + " = " +
                      (ch.new_defined ? display_number(ch.new_value) : "not computed yet");
  if (m.transposed) title += strf("   (shown as %sᵀ[%d,%d])", b.name.c_str(), r + 1, col + 1);
  std::string body;
  if (b.row_axis == Axis::query && b.col_axis == Axis::key)
    body = strf("query %d, key %d", br + 1, bc + 1);
  else if (b.cols == 1)
    body = strf("%s row %d", b.row_axis == Axis::key ? "key" : "query", br + 1);
  else
    body = strf("row %d, column %d of %d", br + 1, bc + 1, b.cols);
  if (const std::string block = block_name(c.rec, b, br, bc); !block.empty()) body += " · " + block;
  body += " · in " + std::string(space_name(b.space)) + "\n" + b.description;
  if (ch.changed())
    body += "\nThis step changed it: " +
            (ch.old_defined ? display_number(ch.old_value) : std::string("undefined")) + " → " +
            display_number(ch.new_value);
  const std::string why = nonfinite_reason(c.rec, c.st, m.buffer, br, bc);
  if (!why.empty()) body += "\n" + why;
  tooltip(title, body);
}

// The matrix's colour scale with its values, "−2.1 ▬▬ 2.2" (0 in the middle of a signed one),
// at `p` in at most `max_w`; returns the width drawn, 0 when it does not fit.
float draw_scale(const Ctx& c, const ValueRange& r, ImVec2 p, float max_w) {
  if (r.empty) return 0;
  const float size = c.fs * 0.8f;
  ImFont* f = ImGui::GetFont();
  const bool sym = r.signed_values();
  const double a = std::max(std::fabs(r.lo), std::fabs(r.hi));
  const std::string lo = compact_number(sym ? -a : r.lo, 2), hi = compact_number(sym ? a : r.hi, 2);
  const float lw = f->CalcTextSizeA(size, 1e9f, 0, lo.c_str()).x, hw = f->CalcTextSizeA(size, 1e9f, 0, hi.c_str()).x;
  const float bar_w = std::clamp(max_w - lw - hw - 8 * c.s, 0.0f, 60.0f * c.s);
  if (bar_w < 24.0f * c.s) return 0;
  c.dl->AddText(f, size, p, c.pal.text_dim, lo.c_str());
  colour_bar(c.dl, ImVec2(p.x + lw + 4 * c.s, p.y + size * 0.3f), ImVec2(bar_w, size * 0.55f), sym);
  c.dl->AddText(f, size, ImVec2(p.x + lw + 8 * c.s + bar_w, p.y), c.pal.text_dim, hi.c_str());
  return lw + hw + bar_w + 8 * c.s;
}

void draw_title(const Ctx& c, const Mat& m, float max_w) {
  const float y = m.rect.y - c.fs - 3.0f * c.s;
  float w = 0;
  for (const std::string& t : m.titles) {
    const float tw = draw_rich(nullptr, ImVec2(0, 0), 0, t, 0, true);
    if (tw <= max_w || &t == &m.titles.back()) {
      if (tw <= max_w) draw_rich(c.dl, ImVec2(m.rect.x, y), c.pal.text, t);
      w = tw <= max_w ? tw : -1;
      break;
    }
  }
  if (w >= 0 && !picture_mode() && w + c.fs * 1.6f <= max_w) {
    const BufferInfo& b = c.rec.buffers[m.buffer];
    const std::string help = b.description + " (lives in " + std::string(space_name(b.space)) + ", " +
                             std::to_string(b.rows) + "×" + std::to_string(b.cols) + ")";
    help_marker_at(ImVec2(m.rect.x + w + 4 * c.s, y), help.c_str());
    w += c.fs * 1.6f;
  }
  // The colour scale after the title where it fits, else under the matrix (when a stack of
  // matrices does not sit there).
  const ValueRange& r = c.range_of(m.buffer);
  const float after = m.rect.x + std::max(w, 0.0f) + 6 * c.s;
  if (w >= 0 && draw_scale(c, r, ImVec2(after, y + c.fs * 0.1f), m.rect.x + max_w - after) > 0) return;
  if (m.below_free) draw_scale(c, r, ImVec2(m.rect.x, m.rect.y + m.rect.h + m.below_offset), m.rect.w);
}

// Row indices (or block labels i = …) left of the first matrix, block labels j = … under S, P.
void draw_axes(const Ctx& c, const ItemsLayout& L, const std::vector<Mat>& mats, float origin_x) {
  const float cell = L.cell;
  const Rect* left = nullptr;
  for (const Mat& m : mats)
    if (m.query_rows && (!left || m.rect.x < left->x)) left = &m.rect;
  const int N = c.rec.n;
  const float small = c.fs * 0.85f;
  if (left) {
    if (cell >= small + 2) {
      for (int r = 0; r < N; ++r) {
        const std::string t = std::to_string(r + 1);
        const float w = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, t.c_str()).x;
        c.dl->AddText(
            ImGui::GetFont(), small,
            ImVec2(left->x - w - 4 * c.s, left->y + (static_cast<float>(r) + 0.5f) * cell - small * 0.5f),
            c.pal.text_dim, t.c_str());
      }
    } else if (c.rec.Br > 0 && c.rec.Br * cell >= small) {
      for (int i = 0; i * c.rec.Br < N; ++i) {
        const std::string t = strf("i=%d", i + 1);
        const float w = ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, t.c_str()).x;
        const float mid = left->y + (static_cast<float>(i * c.rec.Br) +
                                     0.5f * static_cast<float>(std::min(c.rec.Br, N - i * c.rec.Br))) *
                                        cell;
        c.dl->AddText(ImGui::GetFont(), small,
                      ImVec2(std::max(left->x - w - 4 * c.s, origin_x), mid - small * 0.5f), c.pal.text_dim,
                      t.c_str());
      }
    }
  }
  if (c.rec.Bc <= 0) return;
  for (const Mat& m : mats) {
    if (!m.key_cols || !m.query_rows) continue;
    for (int j = 0; j * c.rec.Bc < N; ++j) {
      const float w = static_cast<float>(std::min(c.rec.Bc, N - j * c.rec.Bc)) * cell;
      const std::string t = strf("j=%d", j + 1);
      if (ImGui::GetFont()->CalcTextSizeA(small, 1e9f, 0, t.c_str()).x > w) break;
      text_centered(c.dl,
                    ImVec2(m.rect.x + static_cast<float>(j * c.rec.Bc) * cell + w * 0.5f,
                           m.rect.y + m.rect.h + small * 0.5f + 3 * c.s),
                    c.pal.text_dim, t.c_str(), small);
    }
  }
}

// Centres the first region this step writes (S or P first: the tile is what the step is about).
// Double-click on a cell: the region to fill the view with, in buffer coordinates. The tile
// (i, j) for S and P of a tiled recording, the block of the cell's rows elsewhere, at most
// 8 × 8 cells around it otherwise. False when the mouse did not double-click in m.
bool double_clicked_region(const Ctx& c, const Mat& m, MatrixViewOptions::ZoomTarget& z) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!ImGui::IsMouseDoubleClicked(0) || !m.rect.contains(mouse.x, mouse.y)) return false;
  const int r = std::clamp(static_cast<int>((mouse.y - m.rect.y) / m.ch), 0, m.rows - 1);
  const int col = std::clamp(static_cast<int>((mouse.x - m.rect.x) / m.cw), 0, m.cols - 1);
  int br, bc;
  to_buffer(m, r, col, br, bc);
  const BufferInfo& b = c.rec.buffers[m.buffer];
  z.buffer = m.buffer;
  if (c.rec.Br > 0 && c.rec.Bc > 0 && m.query_rows && m.key_cols) {
    z.r0 = br / c.rec.Br * c.rec.Br, z.r1 = std::min(z.r0 + c.rec.Br, b.rows);
    z.c0 = bc / c.rec.Bc * c.rec.Bc, z.c1 = std::min(z.c0 + c.rec.Bc, b.cols);
  } else {
    z.r0 = std::max(0, std::min(br - 4, b.rows - 8)), z.r1 = std::min(b.rows, z.r0 + 8);
    z.c0 = std::max(0, std::min(bc - 4, b.cols - 8)), z.c1 = std::min(b.cols, z.c0 + 8);
  }
  return true;
}

void scroll_to_step(const Ctx& c, const std::vector<Mat>& mats, ImVec2 origin, ImVec2 view) {
  if (!c.in.step) return;
  const Mat* best = nullptr;
  const Region* region = nullptr;
  for (const Region& g : c.in.step->writes)
    for (const Mat& m : mats)
      if (m.buffer == g.buffer && (!best || (!best->key_cols && m.key_cols))) {
        best = &m;
        region = &g;
      }
  if (!best) return;
  int r0, r1, c0, c1;
  region_display(*best, *region, r0, r1, c0, c1);
  const ImVec2 a = cell_pos(*best, static_cast<float>(r0), static_cast<float>(c0));
  const ImVec2 b = cell_pos(*best, static_cast<float>(r1), static_cast<float>(c1));
  // origin moves with the scroll, so (a - origin) is the position in the scrolled content.
  ImGui::SetScrollX(std::max(0.0f, (a.x + b.x) * 0.5f - origin.x - view.x * 0.5f));
  ImGui::SetScrollY(std::max(0.0f, (a.y + b.y) * 0.5f - origin.y - view.y * 0.5f));
}

}  // namespace

bool matrix_view_draws(const Recording& rec) {
  return !placed_in_order(rec).empty() && rec.n > 0 && rec.d > 0 && !rec.initial.values.empty();
}

static void draw_matrix_view_body(const ViewInput& in, MatrixViewOptions& opt) {
  const Recording& rec = in.rec;
  if (!matrix_view_draws(rec)) {
    ImGui::TextDisabled("This lesson has no matrices to show.");
    return;
  }
  const float s = in.ui_scale, fs = ImGui::GetFontSize();
  if (opt.show_toolbar) draw_matrix_toolbar(rec, opt, s);
  const auto& rg = matrix_ranges(rec, opt);
  // The step and its part: the part walked to with . and , shows other contents under the same
  // playhead, and the textures must not keep what an earlier part showed.
  const std::uint64_t content = opt.cache.fingerprint * 31 +
                                static_cast<std::uint64_t>(in.playhead + 1) * 1000003 +
                                static_cast<std::uint64_t>(in.cursor.part() + 1) * 2003 + in.palette.cell * 7 +
                                in.palette.nonfinite * 13 + in.palette.background;
  opt.drawn = {};
  const TileStates tiles = tile_states(rec, in.playhead);
  Ctx c{in, rec, in.cursor.state(), in.palette, nullptr, s, fs, opt, content, opt.drawn, rg, tiles};

  // The buffers the recording places and the toolbar keeps (core/recording.h's Place).
  const PlacedBuffers placed = placed_buffers(rec, [&](int b) {
    const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
    return opt.shows(info.place == Place::stats ? MatrixViewOptions::kStatsName : info.name);
  });

  // The legend: one line, two for the tiled lessons' longer list (it wraps where it must).
  // The legend wraps onto as many lines as the width and the font need: its height is what it
  // took last frame (two lines before it has been drawn once).
  const float legend_h = !opt.show_legend ? 0.0f
                         : opt.legend_height > 0 ? opt.legend_height
                                                 : ImGui::GetFrameHeightWithSpacing() * 2.0f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 child(avail.x, std::max(avail.y - legend_h, 60.0f));
  // A picture at "fit" is drawn in the panel itself, the legend right under the matrices, so
  // that it crops to what it shows; the window scrolls a zoomed view in a child.
  const bool in_child = !(picture_mode() && opt.zoom <= 0);
  if (in_child) ImGui::BeginChild("##matrices", child, false, ImGuiWindowFlags_HorizontalScrollbar);
  c.dl = ImGui::GetWindowDrawList();
  // The labels among the matrices never crowd them out (a large font on a short view): at most
  // a sixteenth of the area's height. Cell numbers keep their own minimum (kMinCellTextPx).
  // Set every frame: a child keeps its font scale from the last frame (and the close-up's cap).
  const float cap = std::max(ImGui::GetContentRegionAvail().y / 16.0f, 12.0f * s);
  ImGui::SetWindowFontScale(fs > cap ? cap / fs : 1.0f);
  c.fs = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 inner = in_child ? ImGui::GetContentRegionAvail() : child;

  ItemsLayoutIn li;
  li.N = rec.n;
  li.items = placed.items;
  li.gap = std::max(12.0f * s, c.fs * 0.5f);
  li.title_h = c.fs + 6 * s;
  li.margin_left = ImGui::CalcTextSize("i=10").x + 8 * s;
  // Under the main band: the block labels j = … (tiled), then a row for the colour scales.
  float axis_h = rec.Bc > 0 ? c.fs + 6 * s : 2 * s;
  li.margin_bottom = axis_h + c.fs + 4 * s;
  li.avail_w = inner.x - 4 * s;
  li.avail_h = inner.y - 4 * s;
  li.cell = opt.zoom * s;
  li.max_cell = 56.0f * s;
  // A stat column is at least as wide as its name; wider when its numbers fit in the rows.
  const float narrow = ImGui::CalcTextSize("m").x + 8 * s;
  li.stat_min_w = opt.show_values ? ImGui::CalcTextSize("−0.000").x + 8 * s : narrow;
  ItemsLayout L = layout_items(li);
  // At "fit", cells too small for a number (about "−0.00" at the smallest size): the step's
  // close-up goes under the matrices, at a height that is the same at every step.
  CloseUpDraw cud{in, c.st, rg, s, c.fs, li.avail_h * 0.65f};
  float close_h = 0;
  if (opt.show_close_up && opt.zoom <= 0 && opt.show_values &&
      L.cell < ImGui::GetFont()->CalcTextSizeA(kMinCellTextPx * s, 1e9f, 0, "−0.00").x + 3 * s) {
    close_h = close_up_height(cud, li.avail_w);
    // A wide tile (16 × 16 beside O's 16 columns) takes several lines even with one query row:
    // it may take more of the area, the matrices above keeping where the tile is.
    if (close_h > cud.max_h) {
      cud.max_h = li.avail_h * 0.8f;
      close_h = close_up_height(cud, li.avail_w);
    }
    if (close_h > 0 && close_h <= cud.max_h) {
      // The labels among the matrices give up more of their size, so that the matrices keep
      // theirs beside the close-up: at most a twenty-fourth of the area's height.
      if (const float cap2 = std::max(inner.y / 24.0f, 12.0f * s); c.fs > cap2) {
        ImGui::SetWindowFontScale(cap2 / fs);
        c.fs = ImGui::GetFontSize();  // the close-up keeps its own sizes (cud.fs)
        li.gap = std::max(12.0f * s, c.fs * 0.5f);
        li.title_h = c.fs + 6 * s;
        li.margin_left = ImGui::CalcTextSize("i=10").x + 8 * s;
        axis_h = rec.Bc > 0 ? c.fs + 6 * s : 2 * s;
      }
      li.avail_h -= close_h + li.gap;
      // No row for colour scales under the matrices: the close-up sits there (a scale is drawn
      // beside its title where it fits).
      li.margin_bottom = axis_h + 2 * s;
      L = layout_items(li);
    } else {
      close_h = 0;
    }
  }
  if (L.cell < 12.0f * s && li.stat_min_w > narrow) {  // rows too short for numbers anyway
    li.stat_min_w = narrow;
    L = layout_items(li);
  }

  std::vector<Mat> mats;
  auto add = [&](int buffer, bool tr, const Rect& r, bool qrows, bool kcols,
                 std::vector<std::string> titles) {
    if (buffer < 0 || !r.shown) return;
    Mat m;
    m.buffer = buffer;
    m.transposed = tr;
    m.rect = r;
    m.rect.x += origin.x;
    m.rect.y += origin.y;
    m.query_rows = qrows;
    m.key_cols = kcols;
    m.titles = std::move(titles);
    const BufferInfo& b = rec.buffers[buffer];
    m.rows = tr ? b.cols : b.rows;
    m.cols = tr ? b.rows : b.cols;
    m.cw = r.w / static_cast<float>(m.cols);
    m.ch = r.h / static_cast<float>(m.rows);
    m.below_free = qrows && close_h <= 0;  // the main band: nothing stacked under it
    m.below_offset = axis_h;
    mats.push_back(std::move(m));
  };
  // In the declared order; each drawn on its side when placed above, its rows and columns
  // aligned with the others of the same role (queries down the band, keys across S and P).
  std::vector<std::size_t> order(placed.items.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return placed.items[a].order < placed.items[b].order; });
  for (std::size_t k : order) {
    const BufferInfo& b = rec.buffers[static_cast<std::size_t>(placed.buffers[k])];
    std::vector<std::string> titles;
    for (const std::string& t : b.titles) titles.push_back(with_transpose_mark(t));
    if (titles.empty()) titles.push_back(b.name);
    add(placed.buffers[k], b.place == Place::above, L.rects[k], display_row_axis(b) == Axis::query,
        display_col_axis(b) == Axis::key, std::move(titles));
  }

  for (const Mat& m : mats) draw_cells(c, m, rg[m.buffer]);
  for (const Mat& m : mats) draw_tile_states(c, m, tiles);
  for (const Mat& m : mats) draw_grid(c, m);
  for (const Mat& m : mats) draw_marks(c, m);
  // Titles: each may run until the next matrix to its right on the same band, and the last
  // one to the layout's right edge or the view's, whichever comes first.
  const float right = std::min(origin.x + L.width, ImGui::GetWindowDrawList()->GetClipRectMax().x);
  for (const Mat& m : mats) {
    float limit = right;
    for (const Mat& o : mats)
      if (&o != &m && std::fabs(o.rect.y - m.rect.y) < 1 && o.rect.x > m.rect.x)
        limit = std::min(limit, o.rect.x);
    draw_title(c, m, limit - m.rect.x - 4 * s);
  }
  draw_axes(c, L, mats, origin.x);
  // Right under the matrices: the fit layout's height is the same at every step.
  const ImVec2 close_at(origin.x, origin.y + L.height + li.gap * 0.5f);
  if (close_h > 0) {
    const CloseUp cu = close_up(rec, in.step);
    if (cu.shown) draw_close_up(cud, cu, c.dl, close_at, li.avail_w, opt.drawn.close_up_px);
    opt.drawn.close_up = Rect{close_at.x, close_at.y, li.avail_w, close_h, true};
  }
  opt.drawn.area = Rect{origin.x + ImGui::GetScrollX(), origin.y + ImGui::GetScrollY(), inner.x, inner.y, true};
  for (const Mat& m : mats) opt.drawn.matrices.emplace_back(m.buffer, m.rect);
  if (ImGui::IsWindowHovered()) {
    for (const Mat& m : mats) hover(c, m);
    // Double-click: that tile (or block) fills the view; double-click again: fit everything.
    MatrixViewOptions::ZoomTarget z;
    for (const Mat& m : mats)
      if (double_clicked_region(c, m, z)) {
        if (opt.zoom > 0) {
          opt.zoom = 0;
          opt.follow = true;
        } else {
          const float rows = static_cast<float>(z.r1 - z.r0), cols = static_cast<float>(z.c1 - z.c0);
          const bool tr = m.transposed;
          const float px = std::min(inner.x / (tr ? rows : cols), (inner.y - li.title_h) / (tr ? cols : rows));
          opt.zoom = std::clamp(px * 0.9f / s, 4.0f, 160.0f);
          opt.follow = false;
          opt.zoom_target = z;
        }
        break;
      }
  }
  // Not in the frame of the double-click itself: its layout is still the old zoom's, and the
  // scroll would be taken there (at "fit", to the top left, Kᵀ) instead of to the region.
  if (opt.zoom_target.buffer >= 0 && !ImGui::IsMouseDoubleClicked(0)) {
    // The layout of this frame has the zoom asked for last frame: bring the region into view.
    for (const Mat& m : mats)
      if (m.buffer == opt.zoom_target.buffer) {
        Region g;
        g.buffer = m.buffer;
        g.r0 = opt.zoom_target.r0, g.r1 = opt.zoom_target.r1, g.c0 = opt.zoom_target.c0, g.c1 = opt.zoom_target.c1;
        int r0, r1, c0, c1;
        region_display(m, g, r0, r1, c0, c1);
        const ImVec2 a = cell_pos(m, static_cast<float>(r0), static_cast<float>(c0));
        const ImVec2 b = cell_pos(m, static_cast<float>(r1), static_cast<float>(c1));
        if (opt.zoom_target.scrolled) {
          opt.zoom_target.buffer = -1;
        } else {
          ImGui::SetScrollX(std::max(0.0f, (a.x + b.x) * 0.5f - origin.x - inner.x * 0.5f));
          ImGui::SetScrollY(std::max(0.0f, (a.y + b.y) * 0.5f - origin.y - inner.y * 0.5f));
          opt.zoom_target.scrolled = true;
        }
      }
  }
  if (opt.zoom > 0 && opt.follow && in.playhead != opt.followed_step) {
    opt.followed_step = in.playhead;
    scroll_to_step(c, mats, origin, inner);
  }
  if (opt.drawn.numbers_hidden && !picture_mode() && close_h <= 0) {
    // Said where the numbers would be, so a projector without hover still tells the room why.
    const char* hint = "double-click a tile to zoom in for numbers";
    const ImVec2 ts = ImGui::CalcTextSize(hint);
    // Bottom right of the matrices' area, clear of the titles along the top.
    const ImVec2 p(origin.x + ImGui::GetScrollX() + std::max(inner.x - ts.x - 6 * s, 0.0f),
                   origin.y + ImGui::GetScrollY() + std::max(inner.y - close_h - ts.y - 4 * s, 0.0f));
    c.dl->AddRectFilled(ImVec2(p.x - 4 * s, p.y - 1), ImVec2(p.x + ts.x + 4 * s, p.y + ts.y + 1),
                        with_alpha(in.palette.background, 0.85f), 3.0f * s);
    c.dl->AddText(p, in.palette.text_dim, hint);
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(L.width, L.height + (close_h > 0 ? li.gap * 0.5f + close_h : 0.0f)));
  if (in_child) ImGui::EndChild();
  else ImGui::SetWindowFontScale(1.0f);
  if (opt.show_legend) {
    std::vector<int> shown;
    for (const Mat& m : mats) shown.push_back(m.buffer);
    const float y0 = ImGui::GetCursorPosY();
    draw_matrix_legend(rec, in.palette, shown, rg, s);
    opt.legend_height = ImGui::GetCursorPosY() - y0;
  }
}

// One ID scope per options struct, so two copies of the view (compare mode) never share
// widgets, child windows or textures.
void draw_matrix_view(const ViewInput& in, MatrixViewOptions& opt) {
  ImGui::PushID(&opt);
  draw_matrix_view_body(in, opt);
  ImGui::PopID();
}

}  // namespace flashstep::ui
