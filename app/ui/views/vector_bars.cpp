#include "app/ui/views/vector_bars.h"

#include "app/ui/views/view_logic.h"
#include "core/algorithms.h"
#include "core/precision.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

double ExpBars::sum() const {
  double s = 0;
  for (std::size_t i = 0; i < value.size(); ++i)
    if (drawn[i]) s += value[i];
  return s;
}

ExpBars exp_bars(const Recording& rec, const State& now, int playhead, int row) {
  ExpBars out;
  const int bx = rec.find_buffer("x"), be = rec.find_buffer("e"), bm = rec.find_buffer("m");
  if (bx < 0 || be < 0 || row < 0 || row >= rec.rows) return out;
  const int n = rec.buffers[be].cols;
  out.drawn.assign(static_cast<std::size_t>(n), 0);
  out.value.assign(static_cast<std::size_t>(n), 0.0);
  out.rescaled.assign(static_cast<std::size_t>(n), 0);
  out.old_value.assign(static_cast<std::size_t>(n), 0.0);
  const Step* step = playhead >= 0 && playhead < rec.step_count() ? &rec.steps[static_cast<std::size_t>(playhead)] : nullptr;
  const bool has_max = bm >= 0 && info(rec.algorithm).has_max;
  const bool m_defined = has_max && now.is_defined(bm, row, 0, 1);
  const double m = m_defined ? now.at(bm, row, 0, 1) : 0.0;
  const Precision p = rec.precision;
  // What exp() sees: x as loaded, times the scale, in the format of the run.
  const double s = round_to(p, rec.scale);
  auto z = [&](int i) {
    const double x = now.at(bx, row, i, rec.buffers[bx].cols);
    return rec.scale != 1.0 ? round_to(p, x * s) : x;
  };
  // An x of −∞ adds exactly 0, as the engines' guard has it, also while m is still −∞ (where
  // e^{−∞ − (−∞)} would be undefined).
  auto term = [&](int i, double max) {
    const double zi = z(i);
    if (std::isinf(zi) && zi < 0) return 0.0;
    return round_to(p, std::exp(round_to(p, zi - max)));
  };
  for (int i = 0; i < n; ++i) {
    if (!now.is_defined(be, row, i, n)) continue;
    const std::size_t k = static_cast<std::size_t>(i);
    out.drawn[k] = 1;
    out.value[k] = has_max ? (m_defined ? term(i, m) : 0.0) : now.at(be, row, i, n);
  }
  // The online sweep's rescale: m grew in this step and there was an old l to carry over.
  const AlgorithmInfo& a = info(rec.algorithm);
  if (!(a.rescales && !a.global_max) || !step || !m_defined) return out;
  const int bl = rec.find_buffer("l");
  const CellChange dm = cell_change(rec, now, playhead, bm, row, 0);
  const CellChange dl = bl >= 0 ? cell_change(rec, now, playhead, bl, row, 0) : CellChange{};
  if (!dm.changed() || !dm.old_defined || !std::isfinite(dm.old_value) || !dl.old_defined || dl.old_value == 0)
    return out;
  out.rescale = true;
  out.m_old = dm.old_value;
  out.m_new = m;
  out.factor = round_to(p, std::exp(round_to(p, dm.old_value - m)));
  for (int i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    if (!out.drawn[k] || (cell_marks(step, be, row, i) & kMarkWrite)) continue;  // summed before this step
    out.rescaled[k] = 1;
    out.old_value[k] = term(i, dm.old_value);
  }
  return out;
}

BarExtent bar_extent(double v, bool finite, bool alarm, double top, float full, float min_outline) {
  BarExtent e;
  float frac = 0;
  if (finite && top > 0) frac = static_cast<float>(std::min(std::fabs(v) / top, 1.0));
  else if (alarm) frac = 1.0f;
  e.bar = std::max(frac * full, finite && v != 0 ? 1.0f : 0.0f);
  e.outline = std::min(std::max(e.bar, min_outline), std::max(full, min_outline));
  return e;
}

}  // namespace flashstep::ui
