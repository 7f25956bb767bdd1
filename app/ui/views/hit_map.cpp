#include "app/ui/views/hit_map.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui {
namespace {

Rect shown(Rect r) {
  r.shown = true;
  return r;
}

Rect unite(const Rect& a, const Rect& b) {
  if (!a.shown) return b;
  const float x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
  const float x1 = std::max(a.x + a.w, b.x + b.w), y1 = std::max(a.y + a.h, b.y + b.h);
  return Rect{x0, y0, x1 - x0, y1 - y0, true};
}

bool overlaps(int a0, int a1, int b0, int b1) { return a0 < b1 && b0 < a1; }

// The part of `r` inside `clip` (all of it where clip is not shown); not shown when none is.
Rect within(const Rect& r, const Rect& clip) {
  if (!clip.shown || !r.shown) return r;
  const float x0 = std::max(r.x, clip.x), y0 = std::max(r.y, clip.y);
  const float x1 = std::min(r.x + r.w, clip.x + clip.w), y1 = std::min(r.y + r.h, clip.y + clip.h);
  if (x1 <= x0 || y1 <= y0) return Rect{};
  return Rect{x0, y0, x1 - x0, y1 - y0, true};
}

bool seen_at(const Rect& clip, float x, float y) { return !clip.shown || clip.contains(x, y); }

}  // namespace

void HitMap::clear() {
  heatmaps_.clear();
  boxes_.clear();
  order_.clear();
}

void HitMap::add_heatmap(int buffer, bool transposed, int rows, int cols, const Rect& rect, int row0, int col0,
                         const Rect& title) {
  if (rows <= 0 || cols <= 0 || rect.w <= 0 || rect.h <= 0) return;
  order_.push_back({true, heatmaps_.size()});
  heatmaps_.push_back({buffer, transposed, rows, cols, shown(rect), row0, col0, title, clip()});
}

void HitMap::add_strip(HitKind kind, int buffer, int row, int c0, int c1, const Rect& rect) {
  if (c1 <= c0) return;
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({kind, buffer, row, row + 1, c0, c1, "", shown(rect), Rect{}, clip()});
}

void HitMap::add_register(int buffer, int row, const std::string& name, const Rect& rect) {
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({HitKind::reg, buffer, row, row + 1, 0, 1, name, shown(rect), Rect{}, clip()});
}

void HitMap::add_node(const std::vector<int>& buffers, int row, int node, const std::string& name,
                      const Rect& rect) {
  // Reported last to first, so that at() (topmost first) names the first buffer.
  for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
    const int b = *it;
    if (b < 0) continue;
    order_.push_back({false, boxes_.size()});
    boxes_.push_back({HitKind::node, b, row, row + 1, node, node + 1, name, shown(rect), Rect{}, clip()});
  }
}

void HitMap::add_memory(const std::string& name, const Rect& rect, int buffer, int r0, int r1, int c0, int c1,
                        const Rect& labelled) {
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({HitKind::memory, buffer, r0, r1, c0, c1, name, shown(rect), labelled, clip()});
}

void HitMap::add_code_line(int line, const std::string& text, const Rect& rect) {
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({HitKind::code_line, -1, line, line + 1, 0, 0, text, shown(rect), Rect{}, clip()});
}

void HitMap::add_panel(const std::string& name, const Rect& rect) {
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({HitKind::panel, -1, 0, 0, 0, 0, name, shown(rect), Rect{}, clip()});
}

void HitMap::add_move(const std::string& name, const Rect& rect) {
  order_.push_back({false, boxes_.size()});
  boxes_.push_back({HitKind::move, -1, 0, 0, 0, 0, name, shown(rect), Rect{}, clip()});
}

std::vector<HitMap::Labelled> HitMap::memory_boxes() const {
  std::vector<Labelled> out;
  for (const Box& b : boxes_)
    if (b.kind == HitKind::memory) out.push_back({b.name, b.rect, b.labelled});
  return out;
}

std::vector<Rect> HitMap::step_rects(const Step& step) const {
  std::vector<Rect> out;
  for (const std::vector<Region>* regions : {&step.reads, &step.writes})
    for (const Region& g : *regions) {
      for (const Rect& r : rects_of_region(g.buffer, g.r0, g.r1, g.c0, g.c1)) out.push_back(r);
      // The memory panel's matrices and tiles that hold the region (rects_of_region leaves them).
      for (const Box& b : boxes_)
        if (b.kind == HitKind::memory && b.buffer == g.buffer && overlaps(b.r0, b.r1, g.r0, g.r1) &&
            overlaps(b.c0, b.c1, g.c0, g.c1))
          if (const Rect r = within(b.labelled.shown ? b.labelled : b.rect, b.clip); r.shown) out.push_back(r);
    }
  for (const Box& b : boxes_)
    if (b.kind == HitKind::move ||
        (b.kind == HitKind::code_line && b.r0 >= step.line && b.r0 <= std::max(step.line, step.line_end)))
      if (const Rect r = within(b.rect, b.clip); r.shown) out.push_back(r);
  return out;
}

std::vector<Rect> HitMap::drawn_rects() const {
  std::vector<Rect> out;
  for (const Heat& h : heatmaps_) {
    if (const Rect r = within(h.rect, h.clip); r.shown) out.push_back(r);
    if (const Rect r = within(h.title, h.clip); r.shown) out.push_back(r);
  }
  for (const Box& b : boxes_)
    if (b.kind != HitKind::panel)
      if (const Rect r = within(b.labelled.shown ? b.labelled : b.rect, b.clip); r.shown) out.push_back(r);
  return out;
}

std::optional<Rect> HitMap::rect_of(int buffer, int r, int c) const {
  return rect_of_region(buffer, r, r + 1, c, c + 1);
}

std::optional<Rect> HitMap::rect_of_region(int buffer, int r0, int r1, int c0, int c1) const {
  const std::vector<Rect> all = rects_of_region(buffer, r0, r1, c0, c1);
  if (all.empty()) return std::nullopt;
  return all.front();
}

std::vector<Rect> HitMap::rects_of_region(int buffer, int r0, int r1, int c0, int c1, bool titled) const {
  std::vector<Rect> out;
  if (buffer < 0 || r1 <= r0 || c1 <= c0) return out;
  std::vector<HitKind> kinds_done;
  for (const Order& o : order_) {
    if (o.heat) {
      const Heat& h = heatmaps_[o.index];
      if (h.buffer != buffer) continue;
      // The region in display cells, clipped to the heatmap.
      int dr0 = r0 - h.row0, dr1 = r1 - h.row0, dc0 = c0 - h.col0, dc1 = c1 - h.col0;
      if (h.transposed) dr0 = c0 - h.col0, dr1 = c1 - h.col0, dc0 = r0 - h.row0, dc1 = r1 - h.row0;
      dr0 = std::max(dr0, 0), dc0 = std::max(dc0, 0);
      dr1 = std::min(dr1, h.rows), dc1 = std::min(dc1, h.cols);
      if (dr1 <= dr0 || dc1 <= dc0) continue;
      const float cw = h.rect.w / static_cast<float>(h.cols), ch = h.rect.h / static_cast<float>(h.rows);
      Rect cells{h.rect.x + static_cast<float>(dc0) * cw, h.rect.y + static_cast<float>(dr0) * ch,
                 static_cast<float>(dc1 - dc0) * cw, static_cast<float>(dr1 - dr0) * ch, true};
      if (titled && h.title.shown && dr0 == 0 && dc0 == 0) cells = unite(cells, h.title);
      const Rect r = within(cells, h.clip);
      if (r.shown) out.push_back(r);
      continue;
    }
    // The first box of the buffer that shows any of the cells, joined with the boxes of the
    // same kind that show the others (the other columns of a strip).
    const Box& first = boxes_[o.index];
    if (first.buffer != buffer || first.kind == HitKind::memory || !overlaps(first.r0, first.r1, r0, r1) ||
        !overlaps(first.c0, first.c1, c0, c1) ||
        std::find(kinds_done.begin(), kinds_done.end(), first.kind) != kinds_done.end())
      continue;
    kinds_done.push_back(first.kind);
    Rect joined;
    for (const Box& b : boxes_)
      if (b.buffer == buffer && b.kind == first.kind && overlaps(b.r0, b.r1, r0, r1) && overlaps(b.c0, b.c1, c0, c1))
        if (const Rect r = within(b.rect, b.clip); r.shown) joined = unite(joined, r);
    if (joined.shown) out.push_back(joined);
  }
  return out;
}

std::optional<Hit> HitMap::at(float x, float y) const {
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    if (it->heat) {
      const Heat& h = heatmaps_[it->index];
      if (!h.rect.contains(x, y) || !seen_at(h.clip, x, y)) continue;
      const float cw = h.rect.w / static_cast<float>(h.cols), ch = h.rect.h / static_cast<float>(h.rows);
      const int dr = std::clamp(static_cast<int>(std::floor((y - h.rect.y) / ch)), 0, h.rows - 1);
      const int dc = std::clamp(static_cast<int>(std::floor((x - h.rect.x) / cw)), 0, h.cols - 1);
      Hit hit;
      hit.kind = HitKind::cell;
      hit.buffer = h.buffer;
      hit.row = h.row0 + (h.transposed ? dc : dr);
      hit.col = h.col0 + (h.transposed ? dr : dc);
      hit.rect = Rect{h.rect.x + static_cast<float>(dc) * cw, h.rect.y + static_cast<float>(dr) * ch, cw, ch, true};
      return hit;
    }
    const Box& b = boxes_[it->index];
    // A panel lies under every element drawn in it: it is found by name, not by point.
    if (b.kind == HitKind::panel || !b.rect.contains(x, y) || !seen_at(b.clip, x, y)) continue;
    Hit hit;
    hit.kind = b.kind;
    hit.buffer = b.buffer;
    hit.name = b.name;
    hit.rect = b.rect;
    if (b.kind == HitKind::code_line) {
      hit.row = b.r0;
    } else if (b.buffer >= 0) {
      hit.row = b.r0;
      // A column standing for several elements: the one under the point, by its share.
      const int span = b.c1 - b.c0;
      const float t = b.rect.w > 0 ? (x - b.rect.x) / b.rect.w : 0.0f;
      hit.col = b.c0 + std::clamp(static_cast<int>(t * static_cast<float>(span)), 0, std::max(span - 1, 0));
    }
    return hit;
  }
  return std::nullopt;
}

std::optional<Hit> HitMap::find(const std::string& name, std::optional<HitKind> kind) const {
  for (const Order& o : order_) {
    if (o.heat) continue;
    const Box& b = boxes_[o.index];
    if (b.name != name || (kind && b.kind != *kind)) continue;
    Hit hit;
    hit.kind = b.kind;
    hit.buffer = b.buffer;
    hit.row = b.r0;
    hit.col = b.buffer >= 0 ? b.c0 : -1;
    hit.name = b.name;
    hit.rect = b.rect;
    return hit;
  }
  return std::nullopt;
}

std::optional<Rect> HitMap::code_line(int line) const {
  for (const Box& b : boxes_)
    if (b.kind == HitKind::code_line && b.r0 == line) return b.rect;
  return std::nullopt;
}

bool overlaps(const Rect& a, const Rect& b) {
  return a.shown && b.shown && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

int first_clear(const std::vector<Rect>& candidates, const std::vector<Rect>& avoid) {
  int best = -1;
  float least = 0;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    float covered = 0;
    for (const Rect& r : avoid)
      if (overlaps(candidates[k], r)) {
        const Rect& c = candidates[k];
        covered += (std::min(c.x + c.w, r.x + r.w) - std::max(c.x, r.x)) * (std::min(c.y + c.h, r.y + r.h) - std::max(c.y, r.y));
      }
    if (covered <= 0) return static_cast<int>(k);
    if (best < 0 || covered < least) best = static_cast<int>(k), least = covered;
  }
  return best;
}

std::vector<Rect> grid_boxes(const Rect& bounds, float w, float h, float step) {
  std::vector<Rect> out;
  if (w > bounds.w || h > bounds.h || !(step > 0)) return out;
  for (float y = bounds.y + bounds.h - h;; y -= step) {
    y = std::max(y, bounds.y);
    for (float x = bounds.x + bounds.w - w;; x -= step) {
      x = std::max(x, bounds.x);
      out.push_back(Rect{x, y, w, h, true});
      if (x <= bounds.x) break;
    }
    if (y <= bounds.y) break;
  }
  return out;
}

}  // namespace flashstep::ui
