#include "app/ui/model/explain.h"

#include "app/ui/model/inputs.h"
#include "app/ui/views/view_logic.h"
#include "core/algorithms.h"
#include "core/io_model.h"
#include "core/text.h"

#include <cmath>
#include <limits>

namespace flashstep::ui {

namespace {

std::string prec_name(Precision p) { return std::string(precision_name(p)); }

// "x₁, x₂ and x₃" for the 0-based indices given.
std::string names(const char* symbol, const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (k > 0) out += k + 1 == idx.size() ? " and " : ", ";
    out += symbol + sub(static_cast<long long>(idx[k] + 1));
  }
  return out;
}

std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + num(v[i]);
  return out + "]";
}

}  // namespace

// ---- block sizes and the SRAM budget -------------------------------------------------------

std::string block_rule_help() {
  return "FlashAttention picks the tile sizes from the on-chip memory M (in elements): "
         "Bc = ⌈M/4d⌉ rows of K and V (keys per tile), Br = min(Bc, d) rows of Q (queries per tile). "
         "Or set Br and Bc yourself.";
}

std::string tile_rule_help(const TileShape& t) {
  // "Kⱼ, Vⱼ" → "Kⱼ and Vⱼ"; a count before a term, none for 1: "2·Bc·d", "Br·Bc".
  auto both = [](std::string_view list) {
    std::string s(list);
    if (const std::size_t at = s.rfind(", "); at != std::string::npos) s.replace(at, 2, " and ");
    return s;
  };
  auto times = [](int k, const char* term) { return (k == 1 ? std::string() : std::to_string(k) + "·") + term; };
  const std::string keys = both(t.key_names), queries = both(t.query_names), scores = both(t.score_names);
  std::string out = "A tile step holds " + keys + " (Bc×d each), " + queries + " (Br×d each) and the scores " +
                    scores + " (Br×Bc): " + times(t.key_tiles, "Bc·d") + " + " + times(t.query_tiles, "Br·d") +
                    " + " + times(t.score_tiles, "Br·Bc") +
                    " elements. The paper's IO bound (Dao et al. 2022, proof of Theorem 2) asks Bc·d = O(M) for " +
                    keys + ", Br·d = O(M) for " + queries + ", and Br·Bc = O(M) for " + scores +
                    ", which gives Bc = Θ(M/d) and Br = Θ(min(M/d, d)): the d in Br = min(Bc, d) is there so "
                    "that " + scores + " fit" + (t.score_tiles == 1 ? "s" : "") + ". ";
  if (t.d_wide() == 4 && t.score_tiles == 1)
    return out + "The constants are loose: with Bc = ⌈M/4d⌉ the four d-wide tiles take about M (at most "
                 "4d·⌈M/4d⌉, under M + 4d) and " + scores + " up to d·⌈M/4d⌉, about M/4, more, so a tile can pass M "
                 "by about M/4.";
  // k quarters of M: "M", "1.75·M".
  auto quarters = [](int k) { return k == 4 ? std::string("M") : num(k / 4.0) + "·M"; };
  return out + strf("The constants are loose: with Bc = ⌈M/4d⌉ the %d d-wide tiles take about %s and the %d "
                    "score tiles up to %d·d·⌈M/4d⌉, about %s, more.",
                    t.d_wide(), quarters(t.d_wide()).c_str(), t.score_tiles, t.score_tiles,
                    quarters(t.score_tiles).c_str());
}

std::string sram_help() {
  // NVIDIA's figures per streaming multiprocessor: L1 and shared memory together, and the
  // largest part of it a kernel may take as shared memory.
  auto fp32 = [](int kb) { return num(kb * 1024.0 / 4); };
  return "On-chip memory (SRAM / shared memory) in elements, for one thread block. An NVIDIA A100 "
         "has 192 KB of L1 and shared memory per streaming multiprocessor, up to 164 KB of it "
         "shared (" + fp32(164) + " fp32 elements); an H100 has 256 KB, up to 228 KB shared (" +
         fp32(228) + "). The default M = " + num(kDefaultSram) + " is " +
         bytes_text(4.0 * kDefaultSram) + " of fp32.";
}

std::string TileFitLine::text() const {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

TileFitLine tile_fit_line(const TileShape& t, int Br, int Bc, int d, int M) {
  const long long qkvo = tile_elements_without_s(t, Br, Bc, d), all = tile_elements(t, Br, Bc, d);
  const long long s = all - qkvo;
  const std::string blocks = tile_blocks(t), scores(t.score_names);
  if (qkvo > M) return {{strf("%s: %lld > M = %d:", blocks.c_str(), qkvo, M), "these blocks do not fit"}, true};
  if (all <= M) return {{strf("tile %lld ≤ M = %d:", all, M), blocks + " and " + scores + " fit"}, false};
  return {{strf("%s: %lld ≤ M = %d", blocks.c_str(), qkvo, M), strf("%s adds %lld: tile %lld", scores.c_str(), s, all)}, false};
}

// ---- precision ----------------------------------------------------------------------------

std::string precision_help() {
  return "FlashStep rounds to the chosen format after every operation: in fp16 and bf16 it sums "
         "QKᵀ and PV and keeps m, l and O in 16 bits, so it overflows and loses digits where a "
         "16-bit accumulator would. FlashAttention's kernels with fp16 or bf16 inputs accumulate both "
         "matrix products in fp32 and keep m, l and O in fp32, rounding to 16 bits only P (before "
         "P·V) and the final O.";
}

std::string precision_note(Precision p) {
  if (p != Precision::fp16 && p != Precision::bf16) return {};
  const std::string prec = prec_name(p);
  return "Sums and running values (m, l, O) stay in " + prec + " too; FlashAttention's kernels keep "
         "them in fp32.";
}

std::string attention_preset_tooltip(int preset, Precision p) {
  const double b = overflowing_value(p), score = -b * b;
  const std::string prec = prec_name(p);
  const std::string product = num(b) + " · (" + num(-b) + ") = " + num(score);
  std::string t;
  if (preset == 0) {
    t = "q₁ · k₁ = " + product + " is beyond " + prec + "'s largest number " + num(precision_max(p)) +
        ": −∞. Row 1 meets it first, while its running max is still −∞, where exp(−∞ − (−∞)) would be "
        "nan. FlashAttention uses 0 instead of m there, so the score gets weight exactly 0 and the row "
        "is finite.";
  } else {
    t = "Every score of row 1 is " + product + ", beyond " + prec + "'s largest number " +
        num(precision_max(p)) + ": −∞, as if every key were masked: no probability mass. The row's "
        "output is 0 with l = 0 and m = −∞, as FlashAttention's kernels give it, not 0/0 = nan.";
  }
  // FlashAttention's kernels take q · k in fp32 whatever the 16-bit input format.
  if (p == Precision::fp16 || p == Precision::bf16) {
    if (std::fabs(score) <= std::numeric_limits<float>::max())
      t += " FlashStep sums q · k in " + prec + "; FlashAttention's kernels sum it in fp32, where " +
           num(score) + " is finite: there this score would not overflow. In fp32 the preset "
           "overflows in both.";
    else
      t += " FlashAttention's kernels sum q · k in fp32, where it overflows too.";
  } else if (p == Precision::fp32) {
    t += " FlashAttention's kernels sum q · k in fp32 too: the same −∞.";
  }
  return t;
}

// ---- the overflow lab's verdicts ----------------------------------------------------------

std::string naive_verdict(const OverflowRun& r, Precision p) {
  const std::string prec = prec_name(p), max = num(precision_max(p));
  if (r.naive_ok)
    return "All finite: every exp(xᵢ) and their sum l stay below " + max + ", " + prec +
           "'s largest number.";
  std::vector<std::size_t> over, zero, undefined;
  for (std::size_t i = 0; i < r.x.size() && i < r.exp_naive.size(); ++i)
    if (std::isinf(r.exp_naive[i])) over.push_back(i);
  for (std::size_t i = 0; i < r.y_naive.size(); ++i)
    (std::isnan(r.y_naive[i]) ? undefined : zero).push_back(i);
  std::string t;
  if (!over.empty()) {
    t = "exp(" + num(r.x[over.front()]) + ") = " + num(r.exp_naive[over.front()]) + " in " + prec +
        " (above " + max + "), so l = " + num(r.l_naive) + ": y = " + list(r.y_naive) + ".";
  } else {
    t = "l = " + num(r.l_naive) + " in " + prec + " (above " + max + "): y = " + list(r.y_naive) + ".";
  }
  if (!zero.empty() && std::isinf(r.l_naive))
    t += " " + names("y", zero) + ": a finite exp(xᵢ) / " + num(r.l_naive) + " = 0.";
  if (!undefined.empty())
    t += " " + names("y", undefined) + ": " + num(r.l_naive) + " / " + num(r.l_naive) + " is undefined, nan.";
  return t;
}

std::string safe_verdict(const OverflowRun& r, Precision p) {
  const std::string prec = prec_name(p);
  if (!r.safe_ok) return "Non-finite output (the input itself is not finite in " + prec + ").";
  std::string t = "Every exponent xᵢ − m is ≤ 0, so exp(xᵢ − m) lies in [0, 1]: no overflow.";
  std::vector<std::size_t> under;
  for (std::size_t i = 0; i < r.exp_safe.size(); ++i)
    if (r.exp_safe[i] == 0) under.push_back(i);
  if (under.empty()) return t;
  const std::size_t i = under.front();
  t += " It can underflow to 0: for " + names("x", under) + " the exponent (" + num(r.x[i]) + " − " +
       num(r.m_safe) + " = " + num(r.x[i] - r.m_safe) + (under.size() > 1 ? ", …" : "") +
       ") is too small for " + prec + ", so " + names("y", under) + (under.size() > 1 ? " are" : " is") +
       " 0.";
  return t;
}

// ---- HBM traffic --------------------------------------------------------------------------

std::string streaming_traffic_note(const Recording& rec) {
  // For an untiled row of a group whose materialized row moves less than it does.
  const Algorithm materialized = materialized_of(rec.algorithm);
  if (materialized == rec.algorithm || info(rec.algorithm).tile.tiled()) return {};
  const IoCounters naive = expected_io(comparable(rec, materialized));
  const std::uint64_t total = rec.io.hbm_accesses();
  if (total <= naive.hbm_accesses()) return {};
  const std::uint64_t q = static_cast<std::uint64_t>(rec.n) * static_cast<std::uint64_t>(rec.d);
  const std::uint64_t kv = rec.io.hbm_reads > q ? rec.io.hbm_reads - q : 0;
  return "One query at a time moves " + std::to_string(total) + " elements through HBM, more than "
         "materialized attention's " + std::to_string(naive.hbm_accesses()) + " for the same N and d: "
         "every query reads K and V again (" + std::to_string(kv) + " of the " +
         std::to_string(rec.io.hbm_reads) + " reads), where materialized attention reads them once and "
         "moves S and P instead. Tiling loads each Kⱼ, Vⱼ once for a whole block of Br queries.";
}

}  // namespace flashstep::ui
