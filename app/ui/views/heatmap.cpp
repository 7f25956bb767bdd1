#include "app/ui/views/heatmap.h"

#include "app/ui/views/matrix_layout.h"
#include "app/ui/views/tile_states.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flashstep::ui {

// Whether buffer cell (r, col) of m has left the chip: a discarded tile of S or P̃, a finished
// Q block of an on-chip per-row buffer, a register reused since. Its ghost carries no number.
static bool cell_gone(const HeatmapCtx& c, const Heatmap& m, int r, int col);

static HeatSource source(const HeatmapCtx& c, const Heatmap& m, const ValueRange& range) {
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
void draw_cells(const HeatmapCtx& c, const Heatmap& m, const ValueRange& range) {
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
  // Numbers at a readable size or not at all: at least kMinCellTextPx (× the UI scale), the
  // largest size from the font's down to that minimum at which every visible cell has a number
  // that fits it, each written with the most digits that fit its cell, a fraction one way in the
  // whole matrix (cell_numbers: 1.66 as "1.7" beside "0.7", not as "2" because 0.675 needed a
  // third digit for its second), each on a backing plate so it reads against whatever colour
  // is behind it.
  const float min_size = kMinCellTextPx * c.s;
  auto hide = [&] { c.report.numbers_hidden = true; };
  ImFont* font = ImGui::GetFont();
  const float room = m.cw - 3.0f * c.s;
  std::vector<double> values;  // the visible defined cells', row by row
  for (int r = r_begin; r < r_end; ++r)
    for (int col = c_begin; col < c_end; ++col)
      if (const std::size_t k = src.index(r, col); (*src.defined)[k]) values.push_back((*src.values)[k]);
  float text_size = std::min(c.fs, m.ch * 0.8f);
  auto width = [&](const std::string& t) { return font->CalcTextSizeA(text_size, 1e9f, 0.0f, t.c_str()).x; };
  bool fits = false;
  for (; text_size >= min_size; text_size = text_size > min_size ? std::max(text_size * 0.9f, min_size) : 0.0f) {
    // The shortest form first (what cell_numbers falls back to): a size it does not fit is passed.
    fits = std::all_of(values.begin(), values.end(), [&](double v) { return width(tiny_number(v)) <= room; });
    if (fits) break;
  }
  if (!fits) return hide();
  const std::vector<std::string> numbers =
      cell_numbers(values, [&](std::size_t, const std::string& t) { return width(t) <= room; });
  c.report.number_px = c.report.number_px > 0 ? std::min(c.report.number_px, text_size) : text_size;
  std::size_t n = 0;
  for (int r = r_begin; r < r_end; ++r)
    for (int col = c_begin; col < c_end; ++col) {
      const std::size_t k = src.index(r, col);
      if (!(*src.defined)[k]) continue;
      const std::string& t = numbers[n++];
      int br = 0, bc = 0;
      to_buffer(m, r, col, br, bc);
      if (cell_gone(c, m, br, bc)) continue;
      const double v = (*src.values)[k];
      c.report.cell_numbers.push_back({m.buffer, v, t, text_size, room});  // a matrix per buffer
      const ImU32 fill = value_fill(c.pal, cell_kind(true, v), range, v);
      const ImVec2 p0 = cell_pos(m, static_cast<float>(r), static_cast<float>(col));
      if (fill == c.pal.nonfinite)
        hatch(c.dl, p0, ImVec2(p0.x + m.cw, p0.y + m.ch), IM_COL32(0, 0, 0, 70), 6.0f * c.s);
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

static bool cell_gone(const HeatmapCtx& c, const Heatmap& m, int r, int col) {
  if (m.transposed || !m.query_rows) return false;
  const Space space = c.rec.buffers[static_cast<std::size_t>(m.buffer)].space;
  if (space == Space::reg) return register_gone(c.rec, c.in.step, c.st, m.buffer, r, col);
  const TileStates& t = c.tiles[static_cast<std::size_t>(m.buffer)];
  if (t.Tr == 0 || c.rec.Br <= 0 || c.rec.Bc <= 0) return false;
  if (m.key_cols) return t.at(r / c.rec.Br, col / c.rec.Bc) == TileState::discarded;
  return space == Space::sram && t.row_block[static_cast<std::size_t>(r / c.rec.Br)] == TileState::discarded;
}

// An on-chip per-row buffer (FA-2's m, l, O_acc) keeps only the Q block being worked on:
// the blocks done before it have left SRAM and are drawn as ghosts.
static void draw_row_blocks(const HeatmapCtx& c, const Heatmap& m, const TileStates& tiles) {
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

// Registers keep one query row: the cells of other rows (and S's other scores) that held a value
// are drawn as gone (register_gone), run by run along each row.
static void draw_registers(const HeatmapCtx& c, const Heatmap& m) {
  if (!m.query_rows || m.transposed) return;
  if (c.rec.buffers[static_cast<std::size_t>(m.buffer)].space != Space::reg) return;
  const ImU32 ghost = with_alpha(c.pal.background, 0.80f);
  for (int r = 0; r < m.rows; ++r) {
    int run = -1;
    for (int k = 0; k <= m.cols; ++k) {
      const bool gone = k < m.cols && register_gone(c.rec, c.in.step, c.st, m.buffer, r, k);
      if (gone && run < 0) run = k;
      if (!gone && run >= 0) {
        c.dl->AddRectFilled(cell_pos(m, static_cast<float>(r), static_cast<float>(run)),
                            cell_pos(m, static_cast<float>(r + 1), static_cast<float>(k)), ghost);
        run = -1;
      }
    }
  }
}

void draw_tile_states(const HeatmapCtx& c, const Heatmap& m, const TileStates& tiles) {
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

void draw_grid(const HeatmapCtx& c, const Heatmap& m) {
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

void draw_marks(const HeatmapCtx& c, const Heatmap& m) {
  const Step* st = c.in.step;
  if (!st) return;
  // The current tile (i, j): on S and P the whole tile, elsewhere its rows or columns; only on
  // a matrix the step works on (a backward's tile leaves the forward's P̃ alone).
  bool tile_drawn = false;
  if (st->tile_i >= 0 && c.rec.Br > 0 && (m.query_rows || m.key_cols) && step_touches(*st, m.buffer)) {
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
          if (w == g)
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
      paired |= w == g;
    if (!paired) only_writes.push_back(w);
  }
  draw(only_writes, kMarkWrite);
}

static std::string cell_name(const Recording& rec, const Heatmap& m, int br, int bc) {
  const BufferInfo& b = rec.buffers[m.buffer];
  if (b.cols == 1) return strf("%s[%d]", b.name.c_str(), br + 1);
  return strf("%s[%d,%d]", b.name.c_str(), br + 1, bc + 1);
}

void hover(const HeatmapCtx& c, const Heatmap& m) {
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
static float draw_scale(const HeatmapCtx& c, const ValueRange& r, ImVec2 p, float max_w) {
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

Rect draw_title(const HeatmapCtx& c, const Heatmap& m, float max_w) {
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
  Rect title = w > 0 ? Rect{m.rect.x, y, w, c.fs, true} : Rect{};
  if (w >= 0 && !picture_mode() && w + c.fs * 1.6f <= max_w) {
    const BufferInfo& b = c.rec.buffers[m.buffer];
    const std::string help = b.description + " (lives in " + std::string(space_name(b.space)) + ", " +
                             std::to_string(b.rows) + "×" + std::to_string(b.cols) + ")";
    help_marker_at(ImVec2(m.rect.x + w + 4 * c.s, y), help.c_str());
    title.w = w + 4 * c.s + ImGui::CalcTextSize("(?)").x;  // the marker is part of the name
    w += c.fs * 1.6f;
  }
  // The colour scale after the title where it fits, else under the matrix (when a stack of
  // matrices does not sit there).
  const ValueRange& r = c.range_of(m.buffer);
  const float after = m.rect.x + std::max(w, 0.0f) + 6 * c.s;
  if (w >= 0 && draw_scale(c, r, ImVec2(after, y + c.fs * 0.1f), m.rect.x + max_w - after) > 0) return title;
  if (m.below_free) draw_scale(c, r, ImVec2(m.rect.x, m.rect.y + m.rect.h + m.below_offset), m.rect.w);
  return title;
}

}  // namespace flashstep::ui
