// The exp bars of the vector view as numbers: what each bar of exp(x − m) must show at a step
// so that the picture is the algorithm's own claim. Each bar is the term element i contributes
// to the l of that moment, so the bars always sum to l, and it is made of the e the engine
// recorded for element i: as recorded where it was computed against the m of now, and where
// it was computed against an older m (the online sweep, before m grew) that e times
// e^{m_then − m_now}, the rescale l went through since. An engine that computes e its own way
// is drawn with its own numbers. At a step where the online sweep raises m, the elements
// already summed are given twice: their bar before (against the old m) and after the rescale
// by e^{m_old − m_new}, which the view draws side by side.
// No ImGui: tests/app/test_vector_bars.cpp checks the numbers.
#pragma once

#include "core/recording.h"

#include <vector>

namespace flashstep::ui {

struct ExpBars {
  // Per element of the row: whether it has a term in l now, and that term.
  std::vector<char> drawn;
  std::vector<double> value;
  // The rescale of this step (online sweep, m grew, the old l was not 0): for the elements
  // summed before this step, their bar against the old m; `factor` = e^{m_old − m_new}.
  bool rescale = false;
  double m_old = 0, m_new = 0, factor = 1;
  std::vector<char> rescaled;
  std::vector<double> old_value;
  // Σ value over the drawn elements (what l holds now, up to the rounding of the format).
  double sum() const;
};

// The bars of softmax row `row` with the recording's cursor state `now` at `playhead`.
// Without a max (naive softmax) the bars are the recorded exp(s·xᵢ). Empty (nothing drawn) for
// a recording without an "e" buffer.
ExpBars exp_bars(const Recording& rec, const State& now, int playhead, int row);

// How tall a bar and the outline of the current element are drawn, in px, in a row whose bars
// are up to `full` px tall and whose largest value is `top`: the bar |v|/top of it (at least
// 1 px for a value that is not 0; a full row for +inf or nan), the outline around the bar and
// at least `min_outline` tall, so that a tiny value is marked and never looks like a full bar.
struct BarExtent {
  float bar = 0, outline = 0;
};
BarExtent bar_extent(double v, bool finite, bool alarm, double top, float full, float min_outline);

}  // namespace flashstep::ui

namespace flashstep::ui {

// The bars while the playhead moves from `from_step` (state `from`) to `playhead` (state
// `now`), at eased progress t (app/ui/model/transition.h): each element's term mixed from its
// bar at the step left to its bar at the step shown (from nothing where it had none), so a
// rescale shows as the bars summed before shrinking by e^{m_old − m_new} as t goes to 1. At
// t = 1 it is exp_bars() at the step shown; the rescale's old bars are those of step shown.
ExpBars tween_exp_bars(const Recording& rec, const State& from, int from_step, const State& now, int playhead, int row,
                       float t);

}  // namespace flashstep::ui
