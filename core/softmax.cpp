// The softmax engines: naive, safe, online, chunked, logsumexp.
//
// Each is written as its pseudocode (core/algorithms.cpp) reads, in the scalar type T of the
// chosen precision (so fp16 rounds after every operation), row by row: every row of x is its
// own softmax with its own m and l. What each step says, counts and writes is in
// narration_softmax.cpp, shared with the GPU backend.
#include "core/engine.h"
#include "core/initial_state.h"
#include "core/narration_softmax.h"

#include <algorithm>
#include <cmath>

namespace flashstep {
namespace {

using std::exp;
using std::log;

// Loading x_i in T: rounded to the precision, then scaled.
template <class T>
struct Input {
  const Resolved& r;
  const T s = from_double<T>(r.scale);
  const bool scaled = r.scale != 1.0;

  T operator()(int row, int i) const {
    T z = from_double<T>(r.x(row, i));
    if (scaled) z = z * s;
    return z;
  }
};

template <class T>
void naive(const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  const Input<T> load{r};
  for (int row = 0; row < r.rows; ++row) {
    // 1. sum of exp(x_i): no max subtracted, so large x overflows.
    T l = initial_state().l_as<T>();
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      const T e = exp(z);
      const T l_old = l;
      l = l + e;
      say.sum_exp(row, i, to_double(z), to_double(e), to_double(l_old), to_double(l));
    }
    // 2. normalize.
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      const T e = exp(z);
      say.normalize(row, i, to_double(z), 0.0, to_double(l), to_double(e), to_double(e / l));
    }
    say.finish_row(row, 0.0, to_double(l));
  }
}

// exp(a - b), exactly 0 when a = -inf: a masked entry adds nothing and an (m, l) that has seen
// only masked entries (m = -inf, l = 0) needs no rescale, even when b is -inf too and
// exp(-inf + inf) would be nan.
template <class T>
T exp_diff(T a, T b) {
  if (std::isinf(to_double(a)) && to_double(a) < 0) return T(0);
  return exp(a - b);
}

// Pass 3 of safe, pass 2 of online: y_i = exp(x_i - m) / l, written to HBM.
template <class T>
void normalize_row(SoftmaxNarration& say, const Input<T>& load, int row, T m, T l) {
  for (int i = 0; i < load.r.n; ++i) {
    const T z = load(row, i);
    const T e = exp_diff(z, m);
    say.normalize(row, i, to_double(z), to_double(m), to_double(l), to_double(e), to_double(e / l));
  }
}

template <class T>
void safe(const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  const Input<T> load{r};
  for (int row = 0; row < r.rows; ++row) {
    // 1. max. Subtracting it changes nothing mathematically; it only keeps exp() in range.
    T m = initial_state().m_as<T>();
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      const T m_old = m;
      m = nan_max(m, z);  // a NaN makes m NaN, as numpy's max
      say.running_max(row, i, to_double(z), to_double(m_old), to_double(m));
    }
    // 2. sum of exp(x_i - m): every term is at most 1, so nothing overflows.
    T l = initial_state().l_as<T>();
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      const T e = exp_diff(z, m);
      const T l_old = l;
      l = l + e;
      say.sum_exp_minus_max(row, i, to_double(z), to_double(m), to_double(e), to_double(l_old),
                            to_double(l));
    }
    // 3. normalize.
    normalize_row(say, load, row, m, l);
    say.finish_row(row, to_double(m), to_double(l));
  }
}

// The online normalizer update (Milakov & Gimelshein): z folded into (m, l). The old sum is
// rescaled by exp(m_old - m_new).
template <class T>
struct OnlineUpdate {
  T m, l, factor, e;
};

template <class T>
OnlineUpdate<T> online_update(T m, T l, T z) {
  OnlineUpdate<T> u;
  u.m = nan_max(m, z);
  u.factor = exp_diff(m, u.m);
  u.e = exp_diff(z, u.m);
  u.l = l * u.factor + u.e;
  return u;
}

template <class T>
OnlineNumbers numbers(T z, T m_old, T l_old, const OnlineUpdate<T>& u) {
  return {to_double(z), to_double(m_old), to_double(l_old), to_double(u.m),
          to_double(u.l), to_double(u.factor), to_double(u.e)};
}

// Pass 1 of online and logsumexp: (m, l) of one row in one sweep.
template <class T>
std::pair<T, T> online_pass(SoftmaxNarration& say, const Input<T>& load, int row) {
  T m = initial_state().m_as<T>(), l = initial_state().l_as<T>();
  for (int i = 0; i < load.r.n; ++i) {
    const T z = load(row, i);
    const auto u = online_update(m, l, z);
    say.online(row, i, numbers(z, m, l, u));
    m = u.m;
    l = u.l;
  }
  return {m, l};
}

template <class T>
void online(const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  const Input<T> load{r};
  for (int row = 0; row < r.rows; ++row) {
    // 1. m and l in one sweep: l is rescaled whenever the max grows.
    const auto [m, l] = online_pass(say, load, row);
    // 2. normalize.
    normalize_row(say, load, row, m, l);
    say.finish_row(row, to_double(m), to_double(l));
  }
}

template <class T>
void logsumexp(const Resolved& r, Recorder& rec) {
  SoftmaxNarration say(r, rec);
  const Input<T> load{r};
  for (int row = 0; row < r.rows; ++row) {
    const auto [m, l] = online_pass(say, load, row);
    // LSE = log Σ exp(x_i) computed without overflow: m + log l.
    const T lse = m + log(l);
    say.log_sum_exp(row, to_double(m), to_double(l), to_double(lse));
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      say.log_softmax(row, i, to_double(z), to_double(lse), to_double(z - lse));
    }
    say.finish_row(row, to_double(m), to_double(l));
  }
}

template <class T>
void chunked(const Resolved& r, Recorder& rec) {
  ChunkedNarration say(r, rec);
  const Input<T> load{r};
  const int K = r.chunks, nodes = say.nodes(), longest = say.longest();
  for (int row = 0; row < r.rows; ++row) {
    say.start_row(row);
    std::vector<T> tm(static_cast<std::size_t>(nodes), initial_state().m_as<T>()),
        tl(static_cast<std::size_t>(nodes), initial_state().l_as<T>());
    // 1. Every worker runs the online update over its own chunk; all advance in lockstep.
    for (int t = 0; t < longest; ++t) {
      Step st;
      for (int w = 0; w < K; ++w) {
        const int i = say.begin(w) + t;
        if (i >= say.begin(w + 1)) continue;
        const T z = load(row, i);
        const auto u = online_update(tm[w], tl[w], z);
        say.worker(st, row, w, i, numbers(z, tm[w], tl[w], u));
        tm[w] = u.m;
        tl[w] = u.l;
      }
      say.commit_workers(st, row, t);
    }
    // 2. Merge pairs up the tree, as a shared-memory reduction does.
    for (int id = K; id < nodes; ++id) {
      const MergeNode& nd = say.node(id);
      if (nd.right < 0) {
        tm[id] = tm[nd.left];
        tl[id] = tl[nd.left];
        say.merge(row, id, to_double(tm[id]), to_double(tl[id]), 0.0, 0.0, to_double(tm[id]),
                  to_double(tl[id]));
      } else {
        const T ma = tm[nd.left], la = tl[nd.left], mb = tm[nd.right], lb = tl[nd.right];
        const T m = nan_max(ma, mb);
        const T fa = exp_diff(ma, m), fb = exp_diff(mb, m);
        tm[id] = m;
        tl[id] = la * fa + lb * fb;
        say.merge(row, id, to_double(ma), to_double(la), to_double(mb), to_double(lb), to_double(m),
                  to_double(tl[id]));
      }
    }
    const T m = tm[nodes - 1], l = tl[nodes - 1];
    say.global(row, to_double(m), to_double(l));
    // 3. Every worker normalizes its chunk with the global (m, l).
    for (int t = 0; t < longest; ++t) {
      Step st;
      for (int w = 0; w < K; ++w) {
        const int i = say.begin(w) + t;
        if (i >= say.begin(w + 1)) continue;
        const T z = load(row, i);
        const T e = exp_diff(z, m);
        say.normalize_element(st, row, i, to_double(z), to_double(m), to_double(l), to_double(e),
                              to_double(e / l));
      }
      say.commit_normalized(st, row, t);
    }
    say.finish_row(row, to_double(m), to_double(l));
  }
}

}  // namespace

#define FLASHSTEP_DISPATCH(name)                                                  \
  void record_##name(const Resolved& r, Recorder& rec) {                          \
    with_scalar(r.scenario.precision, [&](auto zero) { name<decltype(zero)>(r, rec); }); \
  }
FLASHSTEP_DISPATCH(naive)
FLASHSTEP_DISPATCH(safe)
FLASHSTEP_DISPATCH(online)
FLASHSTEP_DISPATCH(chunked)
FLASHSTEP_DISPATCH(logsumexp)
#undef FLASHSTEP_DISPATCH

}  // namespace flashstep
