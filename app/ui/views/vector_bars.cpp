#include "app/ui/views/vector_bars.h"

#include "app/ui/model/transition.h"

#include "app/ui/views/view_logic.h"
#include "core/algorithms.h"
#include "core/precision.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace flashstep::ui {

double ExpBars::sum() const {
  double s = 0;
  for (std::size_t i = 0; i < value.size(); ++i)
    if (drawn[i]) s += value[i];
  return s;
}

namespace {

// The m each element's recorded e was computed against: the m after the step that last wrote
// it, found by walking the recording back from `playhead` (an e never written: the m of now).
// NaN where that m was not defined.
std::vector<double> e_against(const Recording& rec, const State& now, int playhead, int row, int be, int bm,
                              const std::vector<char>& drawn) {
  const int n = rec.buffers[be].cols;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double m = now.is_defined(bm, row, 0, 1) ? now.at(bm, row, 0, 1) : nan;
  std::vector<double> out(drawn.size(), nan);
  std::vector<char> found(drawn.size(), 0);
  long long left = std::count(drawn.begin(), drawn.end(), 1);
  const std::uint32_t lo = static_cast<std::uint32_t>(row) * static_cast<std::uint32_t>(n), hi = lo + static_cast<std::uint32_t>(n);
  for (int k = std::min(playhead, rec.step_count() - 1); k >= 0 && left > 0; --k) {
    const std::uint32_t b = rec.delta_begin(k), e = rec.steps[static_cast<std::size_t>(k)].delta_end;
    for (std::uint32_t t = b; t < e; ++t) {
      const Delta& d = rec.deltas[t];
      if (d.buffer != static_cast<std::uint32_t>(be) || d.index < lo || d.index >= hi) continue;
      const std::size_t i = d.index - lo;
      if (found[i] || !drawn[i]) continue;
      found[i] = 1;
      out[i] = m;
      --left;
    }
    // m before step k.
    for (std::uint32_t t = e; t > b; --t) {
      const Delta& d = rec.deltas[t - 1];
      if (d.buffer == static_cast<std::uint32_t>(bm) && d.index == static_cast<std::uint32_t>(row))
        m = d.old_defined ? d.old : nan;
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (drawn[i] && !found[i]) out[i] = m;
  return out;
}

}  // namespace

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
  for (int i = 0; i < n; ++i)
    if (now.is_defined(be, row, i, n)) out.drawn[static_cast<std::size_t>(i)] = 1;
  // Each bar is the e the engine recorded. An e computed against an older m (the online
  // sweep, before m grew) adds e·e^{m_then − max} to the l of `max`: the rescale l went
  // through since, applied to that element's own term. An e of 0 (an x of −∞, which the
  // engines' guard makes exactly 0, also while m is −∞) stays 0.
  const std::vector<double> against = has_max ? e_against(rec, now, playhead, row, be, bm, out.drawn)
                                              : std::vector<double>(static_cast<std::size_t>(n), 0.0);
  auto term = [&](int i, double max) {
    const std::size_t k = static_cast<std::size_t>(i);
    const double e = now.at(be, row, i, n);
    if (!has_max || e == 0.0 || against[k] == max) return e;
    return round_to(p, e * round_to(p, std::exp(round_to(p, against[k] - max))));
  };
  for (int i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    if (out.drawn[k]) out.value[k] = has_max ? (m_defined ? term(i, m) : 0.0) : term(i, 0.0);
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

namespace flashstep::ui {

ExpBars tween_exp_bars(const Recording& rec, const State& from, int from_step, const State& now, int playhead, int row,
                       float t) {
  const ExpBars a = exp_bars(rec, from, from_step, row);
  ExpBars out = exp_bars(rec, now, playhead, row);
  for (std::size_t i = 0; i < out.value.size() && i < a.value.size(); ++i) {
    bool def = false;
    // A bar that appears grows from 0; one that goes (stepping back) shrinks to 0.
    const double v = tween_value(true, a.drawn[i] ? a.value[i] : 0.0, true, out.drawn[i] ? out.value[i] : 0.0, t, &def);
    out.value[i] = v;
    out.drawn[i] = (a.drawn[i] || out.drawn[i]) ? 1 : 0;
  }
  return out;
}

}  // namespace flashstep::ui
