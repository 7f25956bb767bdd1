#include "app/ui/views/view_matrix.h"

#include "app/ui/views/heatmap.h"
#include "app/ui/views/hit_map.h"
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

// Row indices (or block labels i = …) left of the first matrix, block labels j = … under S, P.
void draw_axes(const HeatmapCtx& c, const ItemsLayout& L, const std::vector<Heatmap>& mats, float origin_x) {
  const float cell = L.cell;
  const Rect* left = nullptr;
  for (const Heatmap& m : mats)
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
  for (const Heatmap& m : mats) {
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
bool double_clicked_region(const HeatmapCtx& c, const Heatmap& m, MatrixViewOptions::ZoomTarget& z) {
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

void scroll_to_step(const HeatmapCtx& c, const std::vector<Heatmap>& mats, ImVec2 origin, ImVec2 view) {
  if (!c.in.step) return;
  const Heatmap* best = nullptr;
  const Region* region = nullptr;
  for (const Region& g : c.in.step->writes)
    for (const Heatmap& m : mats)
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
  if (opt.show_toolbar) {
    // A font made larger (Ctrl+=) would wrap the toolbar onto lines the matrices need (at font
    // 2× in a 1280 × 800 window it took the whole view): as the legend, at most a twenty-fourth
    // of the view's height a line, down to its size at font 1×.
    // Its boxes' padding and the slider's width go down with its text.
    TextScale toolbar_text;
    if (const float cap = std::max(ImGui::GetContentRegionAvail().y / 24.0f, fs * in.floor_s() / s); fs > cap)
      toolbar_text.set(cap / fs);
    const float f = toolbar_text.get();
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(style.FramePadding.x * f, style.FramePadding.y * f));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemInnerSpacing,
                        ImVec2(style.ItemInnerSpacing.x * f, style.ItemInnerSpacing.y * f));
    draw_matrix_toolbar(rec, opt, s * f);
    ImGui::PopStyleVar(2);
  }
  const auto& rg = matrix_ranges(rec, opt);
  // The step and its part: the part walked to with . and , shows other contents under the same
  // playhead, and the textures must not keep what an earlier part showed.
  const std::uint64_t content = opt.cache.fingerprint * 31 +
                                static_cast<std::uint64_t>(in.playhead + 1) * 1000003 +
                                static_cast<std::uint64_t>(in.cursor.part() + 1) * 2003 + in.palette.cell * 7 +
                                in.palette.nonfinite * 13 + in.palette.background;
  opt.drawn = {};
  std::vector<TileStates> tiles;
  tiles.reserve(rec.buffers.size());
  // Only a matrix drawn with its queries down the side has tiles or row blocks to show.
  for (std::size_t b = 0; b < rec.buffers.size(); ++b)
    tiles.push_back(display_row_axis(rec.buffers[b]) == Axis::query ? tile_states(rec, in.playhead, static_cast<int>(b))
                                                                    : TileStates{});
  HeatmapCtx c{in, rec, in.cursor.state(), in.palette, nullptr, s, fs, opt, content, opt.drawn, rg, tiles};

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
  // The font scale of the window the view is drawn in (Compare draws a view smaller with it). A
  // child's font scales with it; drawn in that window itself (a picture), the labels' sizes
  // below are set relative to it, and it is put back after.
  const float outer = ImGui::GetCurrentWindow()->FontWindowScale;
  auto set_font_scale = [&](float f) { ImGui::SetWindowFontScale(in_child ? f : outer * f); };
  if (in_child) ImGui::BeginChild("##matrices", child, false, ImGuiWindowFlags_HorizontalScrollbar);
  c.dl = ImGui::GetWindowDrawList();
  // The labels among the matrices never crowd them out (a large font on a short view): at most
  // a sixteenth of the area's height, down to 12 px at font 1× (a font made larger with Ctrl+=
  // gives way first). Cell numbers keep their own minimum (kMinCellTextPx).
  // Set every frame: a child keeps its font scale from the last frame (and the close-up's cap).
  const float fl = in.floor_s();
  const float cap = std::max(ImGui::GetContentRegionAvail().y / 16.0f, 12.0f * fl);
  set_font_scale(fs > cap ? cap / fs : 1.0f);
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
  // close-up goes under the matrices, at a height that is the same at every step. It leaves the
  // matrices cells as tall as its numbers, or else as near kMinGridCellPx as it can (not in
  // Compare), or at least their titles and cells of 2 px at font 1× (where the tiles still
  // show), or for a large N a tenth of the height for their rows; where even its smallest
  // numbers (a font made larger) do not fit beside that, the matrices get smaller still, down
  // to their titles, before the close-up is left out. Measured with the labels as they are
  // beside it (below).
  const float fs_beside = std::min(c.fs, std::max(inner.y / 24.0f, 12.0f * fl));
  // The spaces among them go down with the labels, to their size at font 1×.
  const float s_beside = std::clamp(s * fs_beside / fs, std::min(fl, s), s);
  auto room_beside = [&](float cell) {
    ItemsLayoutIn least = li;
    least.gap = std::max(12.0f * s_beside, fs_beside * 0.5f);
    least.title_h = fs_beside + 6 * s_beside;
    least.margin_bottom = (rec.Bc > 0 ? fs_beside + 6 * s_beside : 2 * s_beside) + 2 * s_beside;
    least.cell = cell;
    return li.avail_h - layout_items(least).height - least.gap;
  };
  const float room = room_beside(std::min(2.0f * fl, 0.1f * li.avail_h / static_cast<float>(std::max(rec.n, 1))));
  // Its titles as large as the labels, or where a font made larger leaves too little room, as
  // the labels beside it: no larger than the numbers' floor would have them at font 1×.
  const float title_fs = std::min(c.fs, std::max(fs_beside, c.fs * fl / s));
  // First, the matrices keep cells as tall as the numbers' smallest text (a band of eleven
  // matrices on a projector otherwise gets cells of a few pixels), the close-up paging through
  // the step's rows in what is left; where not even one of its rows fits there, as above.
  const float readable = room_beside(std::min(kMinCellTextPx * fl, L.cell));
  CloseUpDraw cud{in, c.st, rg, s, title_fs, std::min(li.avail_h * 0.65f, readable), opt.close_up_page};
  float close_h = 0;
  if (opt.show_close_up && opt.zoom <= 0 && opt.show_values &&
      L.cell < ImGui::GetFont()->CalcTextSizeA(kMinCellTextPx * s, 1e9f, 0, "−0.00").x + 3 * s) {
    close_h = readable > 0 ? close_up_height(cud, li.avail_w) : 1e9f;
    // Next, the largest cells from kMinGridCellPx down to kMinGridFloorPx where the tile grid
    // still reads, the close-up paging in what they leave (a short view: a question asked under
    // it at 1280 × 800 left FlashAttention-2's matrices cells of 3.8 px beside a close-up of
    // every row of the step); then the least the matrices can take. In Compare, whose two
    // close-ups are read against each other, the tile stays whole before the grid does.
    for (float cell = kMinGridCellPx; close_h > cud.max_h && !in.side_by_side && cell >= kMinGridFloorPx;
         cell -= 0.5f) {
      cud.max_h = std::min(li.avail_h * 0.65f, room_beside(std::min(cell * fl, L.cell)));
      close_h = close_up_height(cud, li.avail_w);
    }
    if (close_h > cud.max_h) {
      cud.max_h = std::min(li.avail_h * 0.65f, room);
      close_h = close_up_height(cud, li.avail_w);
    }
    // A wide tile (16 × 16 beside O's 16 columns) takes several lines even with one query row:
    // it may take more of the area, the matrices above keeping where the tile is.
    if (close_h > cud.max_h) {
      cud.max_h = std::min(li.avail_h * 0.8f, room);
      close_h = close_up_height(cud, li.avail_w);
    }
    if (close_h > cud.max_h) {
      cud.max_h = std::min(li.avail_h * 0.8f, room_beside(0.25f));
      close_h = close_up_height(cud, li.avail_w);
    }
    if (close_h > 0 && close_h <= cud.max_h) {
      // The labels among the matrices give up more of their size, so that the matrices keep
      // theirs beside the close-up: at most a twenty-fourth of the area's height.
      if (c.fs > fs_beside) {
        set_font_scale(fs_beside / fs);
        c.fs = ImGui::GetFontSize();  // the close-up keeps its own sizes (cud.fs)
      }
      li.gap = std::max(12.0f * s_beside, c.fs * 0.5f);
      li.title_h = c.fs + 6 * s_beside;
      li.margin_left = ImGui::CalcTextSize("i=10").x + 8 * s_beside;
      axis_h = rec.Bc > 0 ? c.fs + 6 * s_beside : 2 * s_beside;
      li.avail_h -= close_h + li.gap;
      // No row for colour scales under the matrices: the close-up sits there (a scale is drawn
      // beside its title where it fits).
      li.margin_bottom = axis_h + 2 * s_beside;
      L = layout_items(li);
    } else {
      close_h = 0;
    }
  }
  // Rows too short for numbers anyway: heatmap.cpp draws them at 0.8 of the row, at least
  // kMinCellTextPx.
  if (L.cell < kMinCellTextPx * s / 0.8f && li.stat_min_w > narrow) {
    li.stat_min_w = narrow;
    L = layout_items(li);
  }

  std::vector<Heatmap> mats;
  auto add = [&](int buffer, bool tr, const Rect& r, bool qrows, bool kcols,
                 std::vector<std::string> titles) {
    if (buffer < 0 || !r.shown) return;
    Heatmap m;
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

  for (const Heatmap& m : mats) draw_cells(c, m, rg[m.buffer]);
  for (const Heatmap& m : mats) draw_tile_states(c, m, tiles[static_cast<std::size_t>(m.buffer)]);
  for (const Heatmap& m : mats) draw_grid(c, m);
  for (const Heatmap& m : mats) draw_marks(c, m);
  // Titles: each may run until the next matrix to its right on the same band, and the last
  // one to the layout's right edge or the view's, whichever comes first.
  const float right = std::min(origin.x + L.width, ImGui::GetWindowDrawList()->GetClipRectMax().x);
  for (const Heatmap& m : mats) {
    float limit = right;
    for (const Heatmap& o : mats)
      if (&o != &m && std::fabs(o.rect.y - m.rect.y) < 1 && o.rect.x > m.rect.x)
        limit = std::min(limit, o.rect.x);
    const Rect title = draw_title(c, m, limit - m.rect.x - 4 * s);
    if (in.hits) in.hits->add_heatmap(m.buffer, m.transposed, m.rows, m.cols, m.rect, 0, 0, title);
  }
  draw_axes(c, L, mats, origin.x);
  // Right under the matrices: the fit layout's height is the same at every step.
  const ImVec2 close_at(origin.x, origin.y + L.height + li.gap * 0.5f);
  if (close_h > 0) {
    const CloseUp cu = close_up(rec, in.step);
    if (cu.shown) {
      const CloseUpShown shown = draw_close_up(cud, cu, c.dl, close_at, li.avail_w);
      opt.drawn.close_up_px = shown.number_px;
      opt.drawn.close_up_heading_px = shown.heading_px;
      opt.drawn.close_up_pages = shown.pages;
      opt.drawn.close_up_r0 = shown.r0, opt.drawn.close_up_r1 = shown.r1;
      opt.drawn.close_up_cut = shown.cut;
      opt.drawn.close_up_numbers = shown.numbers;
      opt.drawn.close_up_rows = Rect{shown.rows_at.x, shown.rows_at.y, shown.rows_size.x, shown.rows_size.y,
                                     shown.rows_size.x > 0};
      // A click on its "rows … of …" turns to the next page, from the last back to the first.
      opt.close_up_page = shown.clicked ? (shown.page + 1) % shown.pages : shown.page;
    }
    opt.drawn.close_up = Rect{close_at.x, close_at.y, li.avail_w, close_h, true};
  }
  opt.drawn.area = Rect{origin.x + ImGui::GetScrollX(), origin.y + ImGui::GetScrollY(), inner.x, inner.y, true};
  for (const Heatmap& m : mats) opt.drawn.matrices.emplace_back(m.buffer, m.rect);
  if (ImGui::IsWindowHovered()) {
    for (const Heatmap& m : mats) hover(c, m);
    // Double-click: that tile (or block) fills the view; double-click again: fit everything.
    MatrixViewOptions::ZoomTarget z;
    for (const Heatmap& m : mats)
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
    for (const Heatmap& m : mats)
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
  else ImGui::SetWindowFontScale(outer);
  if (opt.show_legend) {
    std::vector<int> shown;
    for (const Heatmap& m : mats) shown.push_back(m.buffer);
    const float y0 = ImGui::GetCursorPosY();
    // A font made larger (Ctrl+=) on a short view would wrap the legend onto three lines that
    // the matrices and the close-up need: it takes at most a twenty-fourth of the view's height
    // a line, down to its size at font 1×.
    TextScale legend_text;
    if (const float cap_l = std::max(avail.y / 24.0f, fs * fl / s); fs > cap_l) legend_text.set(cap_l / fs);
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
