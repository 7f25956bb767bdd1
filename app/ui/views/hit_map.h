// What the views drew where in this frame: each view that is handed a HitMap (ViewInput::hits)
// reports its heatmaps, cells, bars, registers, merge-tree nodes, memory boxes and pseudocode
// lines as it draws them. Whoever must find an element on screen (a tour's outline, the cell
// under the mouse) asks the map instead of recomputing a view's layout. No ImGui here: the
// shell owns one map per frame and clears it when the frame starts.
#pragma once

#include "app/ui/views/view_logic.h"
#include "core/recording.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {

// What an element is on screen.
enum class HitKind {
  cell,      // a heatmap cell, or a value cell of the vector or chunked view
  bar,       // a bar of the vector view (e, y)
  reg,       // a register box (m, l, LSE: one row's scalar)
  node,      // a merge-tree node of the chunked view (m_tree and l_tree at the node's column)
  memory,    // a box of the memory panel: "HBM", "SRAM", or a named tile in one of them
  code_line,  // a line of the pseudocode panel (row = the line's number, as Step::line: 1 first)
  panel,      // a panel of the window ("View", "Pseudocode", "Memory")
  move        // what the step moves between memories, as drawn: the memory panel's "load" and "write" arrows
};

// An element under a point, or found by name: which buffer cell(s) it shows, where.
struct Hit {
  HitKind kind = HitKind::cell;
  int buffer = -1;       // -1: no buffer (a memory box, a pseudocode line)
  int row = -1, col = -1;  // the buffer cell under the point (at(): the one under it)
  std::string name;      // "m", "HBM", "K₂", "worker 1", the line's text
  Rect rect;             // the element's box on screen (a heatmap: the cell's)
};

class HitMap {
 public:
  void clear();
  // Where what is added next can be seen: the clip of the window it is drawn in, from
  // `source` (the shell asks ImGui). The parts of an element outside it are not reported by
  // step_rects, rects_of_region and at() (a scrolled panel's hidden rows, which lie under the
  // panel below it). Without a source nothing is clipped. clear() keeps it.
  void set_clip_source(std::function<Rect()> source) { clip_source_ = std::move(source); }
  bool empty() const { return heatmaps_.empty() && boxes_.empty(); }

  // A heatmap of `rows` × `cols` display cells filling `rect`; display cell (r, c) is buffer
  // cell (row0 + r, col0 + c), or transposed (row0 + c, col0 + r). Cells are computed from the
  // rectangle, not stored one by one (a part of a buffer, as the close-up's: row0, col0 > 0).
  // `title`: the box of the name drawn with it ("L", "S = QKᵀ"), where one is.
  void add_heatmap(int buffer, bool transposed, int rows, int cols, const Rect& rect, int row0 = 0, int col0 = 0,
                   const Rect& title = {});
  // One drawn column of a strip (value cells or bars) of buffer row `row`: elements [c0, c1)
  // (several where a column stands for many elements).
  void add_strip(HitKind kind, int buffer, int row, int c0, int c1, const Rect& rect);
  // A register box: buffer cell (row, 0) named `name` ("m", "l", "LSE").
  void add_register(int buffer, int row, const std::string& name, const Rect& rect);
  // A merge-tree node: cell (row, node) of each of `buffers` (m_tree, l_tree); at() names the
  // first of them.
  void add_node(const std::vector<int>& buffers, int row, int node, const std::string& name, const Rect& rect);
  // A memory-panel box: "HBM", "SRAM", or a tile named as the panel labels it; `buffer` and
  // its region where the box stands for one (-1 otherwise); `labelled`: the box with its label
  // and size, where they are drawn beside it (what step_rects keeps in sight).
  void add_memory(const std::string& name, const Rect& rect, int buffer = -1, int r0 = 0, int r1 = 0, int c0 = 0,
                  int c1 = 0, const Rect& labelled = {});
  // Pseudocode line `line` (numbered as Step::line: 1 is the first), its text.
  void add_code_line(int line, const std::string& text, const Rect& rect);
  // A panel of the window by its title.
  void add_panel(const std::string& name, const Rect& rect);
  // A move of this step (the memory panel's "load" or "write" arrow with its number).
  void add_move(const std::string& name, const Rect& rect);

  // Everything drawn that the step points at: each element that shows a cell it reads or
  // writes (matrices, the close-up, strips, registers, nodes, memory tiles and matrices), its
  // moves between memories and its pseudocode lines. What a box laid over the views must leave
  // in sight.
  std::vector<Rect> step_rects(const Step& step) const;
  // Everything drawn but the panels themselves, as much of each as can be seen: every heatmap
  // with its name, strip, register, node, memory box with its label, move and pseudocode line.
  std::vector<Rect> drawn_rects() const;

  // The screen box of buffer cell (r, c): the first element reported that shows it (a heatmap
  // before a strip or a register, as drawn), nullopt when no view drew it this frame.
  std::optional<Rect> rect_of(int buffer, int r, int c) const;
  // The box around the buffer cells [r0, r1) × [c0, c1) on the first heatmap or strip that
  // shows any of them (the union of the strips' columns, one heatmap's region): a row, a tile.
  std::optional<Rect> rect_of_region(int buffer, int r0, int r1, int c0, int c1) const;
  // The same on every element that shows any of them, in the order drawn: one box per heatmap
  // (the matrix and its close-up), one per kind of strip or box.
  // `titled`: a heatmap's box joined with its title where the region starts at the heatmap's
  // first row and column, beside its name (an outline of the L column that takes "L" in, not
  // one that hides it).
  std::vector<Rect> rects_of_region(int buffer, int r0, int r1, int c0, int c1, bool titled = false) const;
  // The element under the screen point (the last drawn on top), nullopt over nothing.
  std::optional<Hit> at(float x, float y) const;
  // A named element: a register, a merge-tree node, a memory box or tile ("SRAM", "K₂"), a
  // panel ("Pseudocode"); with
  // `kind`, only elements of that kind. nullopt when none of that name was drawn.
  std::optional<Hit> find(const std::string& name, std::optional<HitKind> kind = std::nullopt) const;
  // Every memory-panel box and tile drawn, in order: its name, its box and its box with what
  // its label, size or title take (`labelled`; not shown where it was reported without).
  struct Labelled {
    std::string name;
    Rect rect, labelled;
  };
  std::vector<Labelled> memory_boxes() const;
  // Pseudocode line `line` (as Step::line) when the pseudocode panel drew it.
  std::optional<Rect> code_line(int line) const;

 private:
  struct Heat {
    int buffer;
    bool transposed;
    int rows, cols;
    Rect rect;
    int row0, col0;
    Rect title;  // its name's box; not shown: none drawn
    Rect clip;   // where it can be seen; not shown: everywhere
  };
  struct Box {
    HitKind kind;
    int buffer;
    int r0, r1, c0, c1;  // buffer cells it shows; a code line: r0 = the line
    std::string name;
    Rect rect;
    Rect labelled;  // a memory box with its label and size; not shown: rect
    Rect clip;      // as Heat's
  };
  // Draw order across both lists, so at() finds the topmost.
  struct Order {
    bool heat;
    std::size_t index;
  };
  std::vector<Heat> heatmaps_;
  std::vector<Box> boxes_;
  std::vector<Order> order_;
  std::function<Rect()> clip_source_;
  Rect clip() const { return clip_source_ ? clip_source_() : Rect{}; }
};

// Whether two shown boxes share any point inside them.
bool overlaps(const Rect& a, const Rect& b);

// The first of `candidates` that lies clear of every rect of `avoid`; where none does, the one
// that covers the least area of them (the first on a tie); -1 without candidates.
int first_clear(const std::vector<Rect>& candidates, const std::vector<Rect>& avoid);

// Boxes of w × h inside `bounds`, `step` apart, row by row from the bottom right (where a
// view's corners are emptiest) to the top left.
std::vector<Rect> grid_boxes(const Rect& bounds, float w, float h, float step);

}  // namespace flashstep::ui
