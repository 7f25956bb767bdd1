#include "core/heads.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <stdexcept>

namespace flashstep {

std::uint64_t head_seed(std::uint64_t seed, int h) {
  if (h == 0) return seed;
  // SplitMix64 of the seed stepped h times: neighbouring seeds and heads land far apart.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(h);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string s_and_p_text(double bytes) {
  return bytes >= 1e9 ? bytes_text(bytes) + strf(" (%.0f GB)", bytes / 1e9) : bytes_text(bytes);
}

Resolved resolve_head(const Resolved& r, int h) {
  Scenario s = r.scenario;  // N and d as resolved, the blocks as given: resolve() derives the same
  for (const InputSpec* in : all_inputs()) (s.*(in->given)).clear();  // each head draws its own
  s.seed = head_seed(r.scenario.seed, h);
  return resolve(s);
}

void check_heads(const Resolved& r, int heads) {
  if (!takes_qkv(r.scenario.algorithm))  // a head draws its own Q, K, V
    throw InputError(strf("heads: %s is a softmax; heads are for the attention algorithms",
                          std::string(algorithm_id(r.scenario.algorithm)).c_str()));
  if (heads < 1 || heads > kMaxHeads)
    throw InputError(strf("heads H = %d: use 1 to %d", heads, kMaxHeads));
  const long long values = static_cast<long long>(heads) * r.n * r.d;
  if (values > kMaxElements)
    throw InputError(strf("heads H = %d at N = %d, d = %d: Q alone would hold H·N·d = %lld values, "
                          "more than the %d an input may have; use fewer heads or a smaller N",
                          heads, r.n, r.d, values, kMaxElements));
}

// A head's result of the name head 0 has; the heads run one algorithm, so it is there.
template <class R>
static const auto& same_result(const R* r, const std::string& name) {
  if (!r) throw std::logic_error("stack_heads: a head lacks the result '" + name + "' of head 0");
  return r->values;
}

Recording stack_heads(std::vector<Recording> heads) {
  Recording out = std::move(heads.front());
  out.heads = static_cast<int>(heads.size());
  // Every result, matrix or per row, head after head: each head declares the same ones.
  for (MatrixResult& m : out.results.matrices) {
    const Eigen::Index N = m.values.rows();
    if (N == 0) continue;  // not kept (--output none)
    m.values.conservativeResize(N * out.heads, m.values.cols());
    for (std::size_t h = 1; h < heads.size(); ++h)
      m.values.middleRows(N * static_cast<Eigen::Index>(h), N) = same_result(heads[h].results.find_matrix(m.name), m.name);
  }
  for (RowResult& r : out.results.rows)
    for (std::size_t h = 1; h < heads.size(); ++h) {
      const std::vector<double>& more = same_result(heads[h].results.find_row(r.name), r.name);
      r.values.insert(r.values.end(), more.begin(), more.end());
    }
  for (std::size_t h = 1; h < heads.size(); ++h) {
    const Recording& rec = heads[h];
    out.io += rec.io;
    out.nonfinite += rec.nonfinite;
  }
  return out;
}

}  // namespace flashstep
