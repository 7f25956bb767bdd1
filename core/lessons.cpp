#include "core/lessons.h"

namespace flashstep {

static Scenario vector_scenario(Algorithm a, std::vector<double> x, Precision p = Precision::fp32) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.x = {std::move(x)};
  return s;
}

static Scenario attention_scenario(Algorithm a, int N, int d) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.seed = 7;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  return s;
}

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> kLessons = [] {
    std::vector<Lesson> l;
    l.push_back({"naive", "1. Naive softmax and overflow",
                 "y_i = exp(x_i) / sum_j exp(x_j), two passes. In fp16 the largest finite number is "
                 "65504, so exp(12) is already inf: watch the sum overflow and the output turn into "
                 "nan. Try the [1000, 2000, 3000] preset in fp32.",
                 vector_scenario(Algorithm::naive, {3, 2, 5, 12}, Precision::fp16)});
    l.push_back({"safe", "2. Safe softmax (3 passes)",
                 "Subtracting the max m first keeps every exponent <= 0, so nothing overflows. The "
                 "price is a third pass over x: read for the max, read for the sum, read to "
                 "normalize.",
                 vector_scenario(Algorithm::safe, {3, 2, 5, 1})});
    l.push_back({"online", "3. Online softmax (2 passes)",
                 "m and l in one sweep: when a new maximum arrives, the sum so far is rescaled by "
                 "exp(m_old - m_new). Two passes instead of three: 3 memory accesses per element "
                 "instead of 4.",
                 vector_scenario(Algorithm::online, {3, 2, 5, 1})});
    {
      Scenario s = vector_scenario(Algorithm::chunked, {3, 2, 5, 1, 7, 0, 4, 6});
      s.chunks = 4;
      l.push_back({"chunked", "4. Chunked online softmax (merge of (m, l) pairs)",
                   "K workers each run the online update over their own chunk; their (m, l) pairs "
                   "then merge up a tree with the same rescaling rule. This is how a GPU block "
                   "reduces a row in parallel.",
                   s});
    }
    l.push_back({"logsumexp", "5. Log-sum-exp",
                 "LSE = m + log l is log(sum exp(x)) without overflow; log-softmax is x_i - LSE. "
                 "FlashAttention-2 stores exactly this per row for the backward pass.",
                 vector_scenario(Algorithm::logsumexp, {3, 2, 5, 1})});
    {
      Scenario s = vector_scenario(Algorithm::safe, {10, 0, -5});
      s.scale_mode = ScaleMode::inv_sqrt_d;
      s.d = 64;
      l.push_back({"scale", "6. The 1/sqrt(d) lab",
                   "q.k of random vectors has variance d, so scores grow with the head dimension and "
                   "softmax turns into a one-hot. Dividing by sqrt(d) keeps the variance at 1: "
                   "[10, 0, -5] / sqrt(64) = [1.25, 0, -0.625] -> [0.6945, 0.1990, 0.1065].",
                   s});
    }
    l.push_back({"attn-naive", "7. Attention, materialized",
                 "S = QK^T, P = softmax(S), O = PV as three kernels: S and P are N x N matrices "
                 "written to and read back from HBM. That N^2 traffic is what FlashAttention "
                 "removes.",
                 attention_scenario(Algorithm::attn_naive, 8, 4)});
    l.push_back({"attn-online", "8. Attention online, one query row",
                 "One query row streams over the keys with the online softmax, keeping an output "
                 "accumulator o that is rescaled together with l. No N x N matrix is ever stored.",
                 attention_scenario(Algorithm::attn_online, 8, 4)});
    {
      Scenario s = attention_scenario(Algorithm::attn_tiled, 12, 4);
      s.sram = 64;
      l.push_back({"attn-tiled", "9. FlashAttention-1 tiles",
                   "Outer loop over K/V blocks, inner over Q blocks; tile sizes from the SRAM budget "
                   "M (Bc = ceil(M/4d), Br = min(Bc, d)). m, l and O_i go back to HBM after every "
                   "tile.",
                   s});
    }
    {
      Scenario s = attention_scenario(Algorithm::attn_tiled_v2, 12, 4);
      s.sram = 64;
      l.push_back({"attn-tiled-v2", "10. FlashAttention-2 loop order",
                   "Outer loop over Q blocks: m, l and O_i stay on chip, O_i is divided by l once at "
                   "the end and L = m + log l is stored. Fewer HBM writes than FlashAttention-1.",
                   s});
    }
    {
      Scenario s = attention_scenario(Algorithm::attn_tiled_v2, 12, 4);
      s.sram = 64;
      l.push_back({"cpu-vs-gpu", "11. CPU vs GPU",
                   "The same tiled algorithm run as OpenGL compute shaders: one workgroup per Q "
                   "block, K_j and V_j tiles in shared memory. Compare its m, l and O with the CPU "
                   "reference.",
                   s, "gpu"});
    }
    {
      Scenario s = attention_scenario(Algorithm::attn_tiled_v2, 64, 16);
      s.sram = 1024;
      l.push_back({"measure", "12. Measure it yourself",
                   "Time naive against tiled attention and safe against online softmax on this "
                   "machine, with the fast kernels, for growing N: the lessons' claims as numbers. "
                   "Press Run in the Measure tab.",
                   s});
    }
    return l;
  }();
  return kLessons;
}

const Lesson* find_lesson(std::string_view id) {
  for (const Lesson& l : lessons())
    if (l.id == id) return &l;
  return nullptr;
}

}  // namespace flashstep
