// The algorithm table (core/algorithms.h): one row per algorithm, in teaching order.
#include "core/algorithms.h"

#include "core/engine.h"
#include "core/io_model.h"
#include "core/text.h"
#include "core/timed_run.h"

#include <algorithm>
#include <iterator>

namespace flashstep {

// The backward family's rows (core/algorithms_backward.cpp), after the forward rows they run.
void add_backward_rows(std::vector<AlgorithmInfo>& t);

namespace {

std::vector<AlgorithmInfo> make_table() {
  std::vector<AlgorithmInfo> t;
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::naive;
    a.id = "naive";
    a.title = "Naive softmax eˣ / Σ eˣ";
    a.short_name = "naive softmax";
    a.family = Family::softmax;
    a.view = ViewKind::vector;
    a.has_max = false;
    a.inputs = {&kInputX};
    a.group = "softmax";
    a.passes = {"sum of exponentials", "normalize"};
    a.record = record_naive;
    a.io = io_naive;
    a.size = size_naive;
    a.gpu = true;
    a.pseudocode = {
        "l_{0} ← 0",
        "for i ← 1, n do                      # pass 1: sum",
        "    l_{i} ← l_{i−1} + exp(x_{i})",
        "end",
        "for i ← 1, n do                      # pass 2: normalize",
        "    y_{i} ← exp(x_{i}) / l_{n}",
        "end",
    };
    a.compare_a = Algorithm::naive, a.compare_b = Algorithm::safe;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::safe;
    a.id = "safe";
    a.title = "Safe softmax (max subtracted, 3 passes)";
    a.short_name = "safe softmax";
    a.family = Family::softmax;
    a.view = ViewKind::vector;
    a.inputs = {&kInputX};
    a.group = "softmax";
    a.passes = {"max", "sum of exponentials", "normalize"};
    a.record = record_safe;
    a.io = io_safe;
    a.size = size_safe;
    a.fast = fast_safe;
    a.gpu = true;
    a.pseudocode = {
        "m_{0} ← −∞",
        "for i ← 1, n do                      # pass 1: max",
        "    m_{i} ← max(m_{i−1}, x_{i})",
        "end",
        "l_{0} ← 0",
        "for i ← 1, n do                      # pass 2: sum",
        "    l_{i} ← l_{i−1} + exp(x_{i} − m_{n})",
        "end",
        "for i ← 1, n do                      # pass 3: normalize",
        "    y_{i} ← exp(x_{i} − m_{n}) / l_{n}",
        "end",
    };
    a.compare_a = Algorithm::safe, a.compare_b = Algorithm::online;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::online;
    a.id = "online";
    a.title = "Online softmax (2 passes)";
    a.short_name = "online softmax";
    a.family = Family::softmax;
    a.view = ViewKind::vector;
    a.rescales = true;
    a.inputs = {&kInputX};
    a.group = "softmax";
    a.passes = {"max and sum together", "normalize"};
    a.record = record_online;
    a.io = io_online;
    a.size = size_online;
    a.fast = fast_online;
    a.gpu = true;
    a.pseudocode = {
        "m_{0} ← −∞,  l_{0} ← 0",
        "for i ← 1, n do                      # pass 1: max and sum together",
        "    m_{i} ← max(m_{i−1}, x_{i})",
        "    l_{i} ← l_{i−1} · exp(m_{i−1} − m_{i}) + exp(x_{i} − m_{i})",
        "end",
        "for i ← 1, n do                      # pass 2: normalize",
        "    y_{i} ← exp(x_{i} − m_{n}) / l_{n}",
        "end",
    };
    a.compare_a = Algorithm::safe, a.compare_b = Algorithm::online;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::chunked;
    a.id = "chunked";
    a.title = "Chunked online softmax with a merge of (m, l) pairs";
    a.short_name = "chunked softmax";
    a.family = Family::softmax;
    a.view = ViewKind::chunked;
    a.rescales = true;
    a.global_max = true;
    a.takes_workers = true;
    a.inputs = {&kInputX};
    a.group = "softmax";
    a.passes = {"each worker: online (m, l) of its chunk", "merge (m, l) pairs", "normalize"};
    a.record = record_chunked;
    a.io = io_chunked;
    a.size = size_chunked;
    a.fast = fast_chunked;
    a.gpu = true;
    a.pseudocode = {
        "split x into n_{w} chunks; worker k owns chunk k",
        "in parallel, each worker k: m_{k} ← −∞, l_{k} ← 0",
        "    for x_{i} in chunk k:  m_{k}' ← max(m_{k}, x_{i})",
        "        l_{k} ← l_{k} · exp(m_{k} − m_{k}') + exp(x_{i} − m_{k}');  m_{k} ← m_{k}'",
        "merge pairs up a tree:  m ← max(m_{a}, m_{b})",
        "    l ← l_{a} · exp(m_{a} − m) + l_{b} · exp(m_{b} − m)",
        "in parallel, each worker k: for x_{i} in chunk k:",
        "    y_{i} ← exp(x_{i} − m) / l          # (m, l) of the root",
    };
    a.compare_a = Algorithm::online, a.compare_b = Algorithm::chunked;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::logsumexp;
    a.id = "logsumexp";
    a.title = "Log-softmax through log-sum-exp";
    a.short_name = "log-softmax";
    a.family = Family::softmax;
    a.view = ViewKind::vector;
    a.rescales = true;
    a.inputs = {&kInputX};
    a.group = "softmax";
    a.stores_lse = true;
    a.passes = {"max and sum together", "log-softmax"};
    a.record = record_logsumexp;
    a.io = io_logsumexp;
    a.size = size_logsumexp;
    a.gpu = true;
    a.pseudocode = {
        "m_{0} ← −∞,  l_{0} ← 0",
        "for i ← 1, n do                      # pass 1: online max and sum",
        "    m_{i} ← max(m_{i−1}, x_{i})",
        "    l_{i} ← l_{i−1} · exp(m_{i−1} − m_{i}) + exp(x_{i} − m_{i})",
        "end",
        "LSE ← m_{n} + log(l_{n})",
        "for i ← 1, n do                      # pass 2: log-softmax",
        "    log y_{i} ← x_{i} − LSE",
        "end",
    };
    a.compare_a = Algorithm::safe, a.compare_b = Algorithm::online;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_naive;
    a.id = "attn-naive";
    a.title = "Attention with S and P materialized";
    a.short_name = "naive attention";
    a.family = Family::attention;
    a.view = ViewKind::matrix;
    a.inputs = {&kInputQ, &kInputK, &kInputV};
    a.takes_mask = true;
    a.group = "attention";
    a.square = {"S", "P"};
    a.window_max_n = kWindowMaxN;
    a.passes = {"kernel 1: S = QKᵀ · s", "kernel 2: P = softmax(S)", "kernel 3: O = PV"};
    a.record = record_attn_naive;
    a.io = io_attn_naive;
    a.size = size_attn_naive;
    a.fast = fast_attn_naive;
    a.gpu = true;
    a.pseudocode = {
        "Load Q, K by blocks from HBM, compute S = QKᵀ · s, write S to HBM",
        "Read S from HBM, compute P = softmax(S), write P to HBM",
        "Load P and V by blocks from HBM, compute O = PV, write O to HBM",
        "Return O",
    };
    a.compare_a = Algorithm::attn_naive, a.compare_b = Algorithm::attn_tiled;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_online;
    a.id = "attn-online";
    a.title = "Attention online, one query row at a time";
    a.short_name = "online attention";
    a.family = Family::attention;
    a.view = ViewKind::matrix;
    a.rescales = true;
    a.inputs = {&kInputQ, &kInputK, &kInputV};
    a.takes_mask = true;
    a.group = "attention";
    a.window_max_n = kWindowMaxN;
    a.passes = {"query row "};
    a.passes_per = PassesPer::query_row;
    a.record = record_attn_online;
    a.io = io_attn_online;
    a.size = size_attn_online;
    a.gpu = true;
    a.pseudocode = {
        "for each query row i do",
        "    m ← −∞,  l ← 0,  O_{i}^{(0)} ← 0                  # registers",
        "    for j ← 1, N do                             # j ≤ i when causal",
        "        S_{ij} ← (q_{i} · k_{j}) · s",
        "        m' ← max(m, S_{ij});  b ← 0 if m' = −∞ else m'      # the guard",
        "        O_{i}^{(j)} ← O_{i}^{(j−1)} · exp(m − b) + exp(S_{ij} − b) · v_{j}",
        "        l ← l · exp(m − b) + exp(S_{ij} − b);  m ← m'",
        "    end",
        "    O_{i} ← O_{i}^{(N)} / l  (0 if l = 0)                   # write to HBM",
        "end",
    };
    a.compare_a = Algorithm::attn_naive, a.compare_b = Algorithm::attn_tiled;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_tiled;
    a.id = "attn-tiled";
    a.title = "FlashAttention-1 tiles";
    a.short_name = "FlashAttention-1";
    a.family = Family::attention;
    a.view = ViewKind::matrix;
    a.rescales = true;
    a.takes_blocks = true;
    a.inputs = {&kInputQ, &kInputK, &kInputV};
    a.takes_mask = true;
    a.group = "attention";
    a.tile = kForwardTile;
    a.window_max_n = kWindowMaxN;
    a.passes = {"K/V block j = "};
    a.passes_per = PassesPer::kv_block;
    a.record = record_attn_tiled;
    a.io = io_attn_tiled;
    a.size = size_attn_tiled;
    a.fast = fast_attn_tiled;
    a.gpu = true;
    a.pseudocode = {
        "Set block sizes B_{c} = ⌈M/4d⌉, B_{r} = min(⌈M/4d⌉, d)",
        "Initialize O = (0)_{N×d}, l = (0)_{N}, m = (−∞)_{N} in HBM",
        "Divide Q into T_{r} blocks Q_{1}…Q_{Tr} of B_{r} × d; K, V into T_{c} blocks of B_{c} × d",
        "Divide O into T_{r} blocks O_{i}, l into T_{r} blocks l_{i}, m into T_{r} blocks m_{i}",
        "for 1 ≤ j ≤ T_{c} do",
        "    Load K_{j}, V_{j} from HBM to on-chip SRAM",
        "    for 1 ≤ i ≤ T_{r} do",
        "        Load Q_{i}, O_{i}, l_{i}, m_{i} from HBM to on-chip SRAM",
        "        On chip, compute S_{ij} = Q_{i} K_{j}ᵀ · s  (B_{r} × B_{c})",
        "        On chip, \\~m_{ij} = rowmax(S_{ij}), \\~P_{ij} = exp(S_{ij} − \\~m_{ij}), \\~l_{ij} = rowsum(\\~P_{ij})",
        "        On chip, m_{new} = max(m_{i}, \\~m_{ij}), l_{new} = exp(m_{i} − m_{new}) l_{i} + exp(\\~m_{ij} − m_{new}) \\~l_{ij}  # m = −∞ → use 0",
        "        Write O_{i} ← diag(l_{new})^{−1} (diag(l_{i}) exp(m_{i} − m_{new}) O_{i} + exp(\\~m_{ij} − m_{new}) \\~P_{ij} V_{j}) to HBM",
        "        Write l_{i} ← l_{new}, m_{i} ← m_{new} to HBM",
        "    end for",
        "end for",
        "Return O",
    };
    a.compare_a = Algorithm::attn_naive, a.compare_b = Algorithm::attn_tiled;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_tiled_v2;
    a.id = "attn-tiled-v2";
    a.title = "FlashAttention-2 loop order";
    a.short_name = "FlashAttention-2";
    a.family = Family::attention;
    a.view = ViewKind::matrix;
    a.rescales = true;
    a.takes_blocks = true;
    a.inputs = {&kInputQ, &kInputK, &kInputV};
    a.takes_mask = true;
    a.group = "attention";
    a.tile = kForwardTile;
    a.window_max_n = kWindowMaxN;
    a.stores_lse = true;
    a.passes = {"Q block i = "};
    a.passes_per = PassesPer::q_block;
    a.record = record_attn_tiled_v2;
    a.io = io_attn_tiled_v2;
    a.size = size_attn_tiled_v2;
    a.fast = fast_attn_tiled_v2;
    a.gpu = true;
    a.pseudocode = {
        "Divide Q into T_{r} blocks Q_{i} of B_{r} × d; K, V into T_{c} blocks K_{j}, V_{j} of B_{c} × d",
        "for 1 ≤ i ≤ T_{r} do",
        "    Load Q_{i} from HBM to on-chip SRAM",
        "    On chip, initialize O_{i}^{(0)} = (0)_{Br×d}, l_{i}^{(0)} = (0)_{Br}, m_{i}^{(0)} = (−∞)_{Br}",
        "    for 1 ≤ j ≤ T_{c} do",
        "        Load K_{j}, V_{j} from HBM to on-chip SRAM",
        "        On chip, compute S_{ij} = Q_{i} K_{j}ᵀ · s  (B_{r} × B_{c})",
        "        On chip, m_{i}^{(j)} = max(m_{i}^{(j−1)}, rowmax(S_{ij})), \\~P_{ij} = exp(S_{ij} − m_{i}^{(j)}),  # m = −∞ → use 0",
        "                 l_{i}^{(j)} = exp(m_{i}^{(j−1)} − m_{i}^{(j)}) l_{i}^{(j−1)} + rowsum(\\~P_{ij})",
        "        On chip, O_{i}^{(j)} = diag(exp(m_{i}^{(j−1)} − m_{i}^{(j)})) O_{i}^{(j−1)} + \\~P_{ij} V_{j}",
        "    end for",
        "    On chip, O_{i} = diag(l_{i}^{(Tc)})^{−1} O_{i}^{(Tc)}",
        "    On chip, L_{i} = m_{i}^{(Tc)} + log(l_{i}^{(Tc)})",
        "    Write O_{i} and L_{i} to HBM",
        "end for",
        "Return O, L",
    };
    a.compare_a = Algorithm::attn_tiled, a.compare_b = Algorithm::attn_tiled_v2;
    t.push_back(std::move(a));
  }
  add_backward_rows(t);
  return t;
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithm_table() {
  static const std::vector<AlgorithmInfo> table = make_table();
  return table;
}

const AlgorithmInfo& info(Algorithm a) { return algorithm_table()[static_cast<std::size_t>(a)]; }

// An algorithm added to the enum without a row fails here (kAllAlgorithms lists the enum) and
// in tests/core/test_algorithms.cpp (row k must describe algorithm k).
static_assert(std::size(kAllAlgorithms) == 11, "a new Algorithm needs its row in algorithms.cpp");

const std::vector<ComparePreset>& compare_presets() {
  static const std::vector<ComparePreset> presets = {
      {"safe vs online", Algorithm::safe, Algorithm::online,
       "Three passes against two: online softmax folds the max into the sum with a rescale."},
      {"naive vs online softmax", Algorithm::naive, Algorithm::online,
       "Same number of passes; only one of them survives large inputs."},
      {"naive vs tiled attention", Algorithm::attn_naive, Algorithm::attn_tiled,
       "S and P through HBM against tiles kept on chip: watch the HBM counters."},
      {"FlashAttention-1 vs FlashAttention-2", Algorithm::attn_tiled, Algorithm::attn_tiled_v2,
       "The same tiles in the other loop order: fewer writes of O, m and l."},
      {"standard vs FlashAttention-2 backward", Algorithm::attn_backward, Algorithm::attn_flash_backward,
       "P, dP and dS through HBM against P recomputed from L on chip: watch the HBM counters."},
  };
  return presets;
}

// ---- what core/scenario.h declares about algorithms, answered by the table ----------------

std::string_view algorithm_id(Algorithm a) { return info(a).id; }
std::string_view algorithm_title(Algorithm a) { return info(a).title; }

std::optional<Algorithm> parse_algorithm(std::string_view id) {
  for (const AlgorithmInfo& a : algorithm_table())
    if (a.id == id) return a.algorithm;
  return std::nullopt;
}

std::string algorithm_id_list() {
  std::string out;
  for (const AlgorithmInfo& a : algorithm_table()) {
    if (!out.empty()) out += ", ";
    out += a.id;
  }
  return out;
}

const std::vector<std::string>& pseudocode(Algorithm a) { return info(a).pseudocode; }

std::string no_gpu_engine(const AlgorithmInfo& row) {
  if (row.gpu) return "";
  return std::string(row.id) + " has no GPU engine: it runs on the CPU only (--backend cpu)";
}

// ---- questions answered from the traits ----------------------------------------------------

std::string_view extent_name(Extent e) {
  switch (e) {
    case Extent::n: return "n";
    case Extent::rows: return "rows";
    case Extent::N: return "N";
    case Extent::d: return "d";
  }
  return "?";
}

const std::vector<const InputSpec*>& all_inputs() {
  static const std::vector<const InputSpec*> inputs = [] {
    std::vector<const InputSpec*> out;
    for (const AlgorithmInfo& a : algorithm_table())
      for (const InputSpec* in : a.inputs)
        if (std::find(out.begin(), out.end(), in) == out.end()) out.push_back(in);
    return out;
  }();
  return inputs;
}

bool takes(Algorithm a, const InputSpec& input) {
  for (const InputSpec* in : info(a).inputs)
    if (in == &input) return true;
  return false;
}

bool same_group(Algorithm a, Algorithm b) { return info(a).group == info(b).group; }

std::vector<Algorithm> group_of(Algorithm a) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& row : algorithm_table())
    if (row.group == info(a).group) out.push_back(row.algorithm);
  return out;
}

Algorithm materialized_of(Algorithm a) {
  for (Algorithm b : group_of(a))
    if (!info(b).square.empty()) return b;
  return a;
}

std::string square_names(Algorithm a) {
  const auto& sq = info(a).square;
  std::string out;
  for (std::size_t k = 0; k < sq.size(); ++k)
    out += (k == 0 ? "" : k + 1 == sq.size() ? " and " : ", ") + std::string(sq[k]);
  return out;
}

double square_bytes(Algorithm a, long long N, int heads, double value_bytes) {
  return static_cast<double>(info(a).square.size()) * heads * static_cast<double>(N) *
         static_cast<double>(N) * value_bytes;
}

int pseudocode_line(Algorithm a, std::string_view start) {
  const auto& lines = info(a).pseudocode;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (std::string_view(lines[k]).substr(0, start.size()) == start) return static_cast<int>(k) + 1;
  return 0;
}

// The passes of row a's own loops in a run of r.
static void add_passes(const AlgorithmInfo& a, const Resolved& r, std::vector<std::string>& out) {
  if (a.runs_after) add_passes(info(*a.runs_after), r, out);
  int count = 0;
  switch (a.passes_per) {
    case PassesPer::fixed:
      for (std::string_view p : a.passes) out.emplace_back(p);
      return;
    case PassesPer::query_row: count = r.n; break;
    case PassesPer::q_block: count = r.Tr; break;
    case PassesPer::kv_block: count = r.Tc; break;
  }
  // The names before the last are passes of their own; the last is numbered per row or block.
  for (std::size_t k = 0; k + 1 < a.passes.size(); ++k) out.emplace_back(a.passes[k]);
  for (int k = 1; k <= count; ++k) out.push_back(std::string(a.passes.back()) + std::to_string(k));
}

std::vector<std::string> pass_names(const Resolved& r) {
  std::vector<std::string> out;
  add_passes(info(r.scenario.algorithm), r, out);
  return out;
}

int own_pass_offset(const Resolved& r) {
  const AlgorithmInfo& a = info(r.scenario.algorithm);
  if (!a.runs_after) return 0;
  Resolved before = r;
  before.scenario.algorithm = *a.runs_after;
  return static_cast<int>(pass_names(before).size());
}

int own_line_offset(Algorithm a) {
  return info(a).runs_after ? static_cast<int>(info(*info(a).runs_after).pseudocode.size()) : 0;
}

}  // namespace flashstep
