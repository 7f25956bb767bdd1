// The options of each view and of the memory panel: the only state a view keeps besides the
// Recording and the playhead (views/view.h). AppState owns them in a ViewStates, one options
// struct per ViewKind, free of ImGui; the views that use them are in app/ui/views/ and are
// found by kind in app/ui/views/view_registry.h.
#pragma once

#include "app/ui/views/view_logic.h"
#include "core/algorithms.h"

#include <algorithm>
#include <any>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace flashstep {
struct Recording;
}

namespace flashstep::ui {

// The vector view of the softmax lessons (views/view_vector.h).
struct VectorViewOptions {
  static constexpr ViewKind kKind = ViewKind::vector;
  int row = -1;              // softmax row shown; -1 follows the step (step.row)
  bool show_toolbar = true;  // the row picker (only drawn when there are several rows)
  bool show_rows = true;     // the other rows as small strips below, clickable
  // What the view drew in its last frame, for tests.
  struct Drawn {
    float bar_px = 0;  // the height of a full bar (exp and y)
    std::string rescale;  // what the online update's rescale box said ("× 0.13534"); empty: none
    std::vector<RegisterLine> registers;  // what each register box (m, l, LSE) wrote on its value line
    std::vector<WrittenNumber> numbers;   // the x cells', s·x row's and bars' numbers
  } drawn;
};

// The matrix view of the attention lessons (views/view_matrix.h).
struct MatrixViewOptions {
  static constexpr ViewKind kKind = ViewKind::matrix;
  // The buffers the toolbar has hidden, by name (every buffer a recording places is shown until
  // then); kStatsName: the per-row columns beside O (m, l, LSE) together.
  static constexpr const char* kStatsName = "stats";
  std::vector<std::string> hidden;
  bool shows(const std::string& name) const {
    return std::find(hidden.begin(), hidden.end(), name) == hidden.end();
  }
  void show(const std::string& name, bool on) {
    hidden.erase(std::remove(hidden.begin(), hidden.end(), name), hidden.end());
    if (!on) hidden.push_back(name);
  }
  bool show_values = true;  // numbers in cells when they fit
  bool show_tiles = true;   // the Br × Bc tile grid
  bool show_close_up = true;  // at "fit", when cells are too small for numbers: the step's close-up
  // The close-up's page of query rows, when the step's tile has more rows than it shows at a
  // time ([ and ] page through them; kept from step to step, as a place in the tile).
  int close_up_page = 0;
  float zoom = 0;           // px per cell; 0 = fit the window
  bool follow = true;       // when zoomed in, scroll to the cells each new step writes
  bool show_toolbar = true;
  bool show_legend = true;
  float legend_height = 0;  // what the legend took in the last frame (it wraps)

  int followed_step = -2;  // the step the view last scrolled to

  // A region of a buffer (double-clicked) to bring into view once the zoom it asked for is laid
  // out; buffer −1: none.
  struct ZoomTarget {
    int buffer = -1, r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    bool scrolled = false;
  } zoom_target;

  // What the view drew in its last frame, for tests and for the hint it shows.
  struct Drawn {
    float number_px = 0;          // the smallest size cell numbers were drawn at; 0 = none drawn
    bool numbers_hidden = false;  // some matrix too small for readable numbers
    float close_up_px = 0;        // the size of the close-up's numbers; 0 = no close-up drawn
    float close_up_heading_px = 0;  // the size of its heading; 0 = none drawn
    int close_up_pages = 0;       // its pages of rows (1: every row of the step at once)
    int close_up_r0 = 0, close_up_r1 = 0;  // the query rows it shows, [r0, r1) (0-based)
    bool close_up_cut = false;    // a row of it without its last columns ("…")
    std::vector<std::string> close_up_numbers;  // its numbers as written, row by row
    std::vector<WrittenNumber> cell_numbers;  // each number written in a matrix's cell
    Rect close_up_rows;           // its "rows 3–4 of 16" line, which a click turns (screen)
    Rect close_up;                // where the close-up was drawn (screen)
    Rect area;                    // the matrices' visible area (screen)
    std::vector<std::pair<int, Rect>> matrices;  // each buffer drawn and its rectangle (screen)
  } drawn;

  // Colour ranges of the recording last drawn (recomputed when the recording changes).
  struct RangeCache {
    const Recording* rec = nullptr;
    std::size_t deltas = 0, steps = 0, buffers = 0;
    std::uint64_t fingerprint = 0;
    std::vector<ValueRange> ranges;
  } cache;
};

// The close-up's next (delta 1) or previous (−1) page of query rows, within the pages it drew
// last frame. False when there is no other page.
inline bool page_close_up(MatrixViewOptions& opt, int delta) {
  const int last = std::max(opt.drawn.close_up_pages - 1, 0);
  const int page = std::clamp(opt.close_up_page + delta, 0, last);
  const bool moved = page != std::clamp(opt.close_up_page, 0, last);
  opt.close_up_page = page;
  return moved;
}

// Presenting, the matrix view is drawn on a copy of its options without the toolbar, and
// keeps what it measured of its own layout (view_registry.h's keep_after_presenting).
inline void keep_after_presenting(MatrixViewOptions& opt, const MatrixViewOptions& shown) {
  opt.followed_step = shown.followed_step;
  opt.drawn = shown.drawn;
  opt.legend_height = shown.legend_height;
  opt.close_up_page = shown.close_up_page;
}

// Presenting, the softmax view keeps what it drew (for tests, as the window's).
inline void keep_after_presenting(VectorViewOptions& opt, const VectorViewOptions& shown) { opt.drawn = shown.drawn; }

// The chunked view (views/view_chunked.h).
struct ChunkedViewOptions {
  static constexpr ViewKind kKind = ViewKind::chunked;
  int row = -1;              // softmax row shown; -1 follows the step
  bool show_toolbar = true;  // the row picker (only drawn when there are several rows)
  // What the view drew in its last frame, for tests: each node's title, as it was written above
  // it ("" where none fitted), where it was written and the node's box (screen).
  struct Drawn {
    std::vector<std::string> titles;
    std::vector<Rect> title_rects, boxes;
    std::vector<std::string> lines;  // each node's m line and l line as written ("" where none fitted)
    std::vector<char> started;       // each node's: an element folded in (m finite)
    float line_px = 0;               // their text size
    std::vector<WrittenNumber> numbers;  // the x and y cells' numbers
  } drawn;
};
inline void keep_after_presenting(ChunkedViewOptions& opt, const ChunkedViewOptions& shown) { opt.drawn = shown.drawn; }

// The memory panel (views/panel_memory.h).
struct MemoryPanelOptions {
  int sram_budget = 0;  // M in elements as the scenario gives it; 0 = not given
  bool show_counters = true;
  bool show_comparison = true;
  // How the counters are shown: a table of seven lines; in a line ("so far: HBM reads 264 of 456
  // · ..."), wrapped where it is longer than the panel is wide; or the HBM reads and writes alone,
  // what the lessons compare, after the line under the boxes. The last two for a panel short of
  // height (presenting).
  enum class Counters : std::uint8_t { table, line, hbm_after_boxes };
  Counters counters_as = Counters::table;
  // While Ask me first asks for the HBM reads at the end of a pass: the counters' "whole run"
  // column would show the answer (the last pass's), so it shows "?".
  bool hide_whole_run = false;
  // What the panel showed in its last frame (presenting: what fitted), for tests.
  struct Drawn {
    bool counters = false;
    Counters counters_as = Counters::table;
    bool comparison = false;
    float scale = 1;  // of its text and shapes, against the window's
  } drawn;
};

// The options of every view, one struct per ViewKind, each made on first use. A view's options
// type names its kind (`static constexpr ViewKind kKind`); any such type can be kept here, so a
// new view's options may live in its own header.
class ViewStates {
 public:
  template <class Options>
  Options& get() {
    std::any& slot = by_kind_[Options::kKind];
    if (!slot.has_value()) slot.emplace<Options>();
    return std::any_cast<Options&>(slot);
  }
  // Every view back to its defaults (a lesson opened).
  void clear() { by_kind_.clear(); }

 private:
  std::map<ViewKind, std::any> by_kind_;
};

}  // namespace flashstep::ui
