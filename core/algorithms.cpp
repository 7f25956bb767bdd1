// The algorithm table (core/algorithms.h): one row per algorithm, in teaching order.
#include "core/algorithms.h"

#include "core/engine.h"
#include "core/io_model.h"

#include <iterator>

namespace flashstep {
namespace {

std::vector<AlgorithmInfo> make_table() {
  std::vector<AlgorithmInfo> t;
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::naive;
    a.id = "naive";
    a.title = "Naive softmax e^x / sum e^x";
    a.short_name = "naive softmax";
    a.family = Family::softmax;
    a.view = ViewKind::vector;
    a.has_max = false;
    a.record = record_naive;
    a.io = io_naive;
    a.size = size_naive;
    a.fast = false;
    a.gpu = true;
    a.pseudocode = {
        "l_0 <- 0",
        "for i <- 1, n do                      # pass 1: sum",
        "    l_i <- l_(i-1) + exp(x_i)",
        "end",
        "for i <- 1, n do                      # pass 2: normalize",
        "    y_i <- exp(x_i) / l_n",
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
    a.record = record_safe;
    a.io = io_safe;
    a.size = size_safe;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "m_0 <- -inf",
        "for i <- 1, n do                      # pass 1: max",
        "    m_i <- max(m_(i-1), x_i)",
        "end",
        "l_0 <- 0",
        "for i <- 1, n do                      # pass 2: sum",
        "    l_i <- l_(i-1) + exp(x_i - m_n)",
        "end",
        "for i <- 1, n do                      # pass 3: normalize",
        "    y_i <- exp(x_i - m_n) / l_n",
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
    a.record = record_online;
    a.io = io_online;
    a.size = size_online;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "m_0 <- -inf,  l_0 <- 0",
        "for i <- 1, n do                      # pass 1: max and sum together",
        "    m_i <- max(m_(i-1), x_i)",
        "    l_i <- l_(i-1) * exp(m_(i-1) - m_i) + exp(x_i - m_i)",
        "end",
        "for i <- 1, n do                      # pass 2: normalize",
        "    y_i <- exp(x_i - m_n) / l_n",
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
    a.record = record_chunked;
    a.io = io_chunked;
    a.size = size_chunked;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "split x into n_w chunks; worker k owns chunk k",
        "in parallel, each worker k: m_k <- -inf, l_k <- 0",
        "    for x_i in chunk k:  m_k' <- max(m_k, x_i)",
        "        l_k <- l_k * exp(m_k - m_k') + exp(x_i - m_k');  m_k <- m_k'",
        "merge pairs up a tree:  m <- max(m_a, m_b)",
        "    l <- l_a * exp(m_a - m) + l_b * exp(m_b - m)",
        "in parallel, each worker k: for x_i in chunk k:",
        "    y_i <- exp(x_i - m) / l          # (m, l) of the root",
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
    a.record = record_logsumexp;
    a.io = io_logsumexp;
    a.size = size_logsumexp;
    a.fast = false;
    a.gpu = true;
    a.pseudocode = {
        "m_0 <- -inf,  l_0 <- 0",
        "for i <- 1, n do                      # pass 1: online max and sum",
        "    m_i <- max(m_(i-1), x_i)",
        "    l_i <- l_(i-1) * exp(m_(i-1) - m_i) + exp(x_i - m_i)",
        "end",
        "LSE <- m_n + log(l_n)",
        "for i <- 1, n do                      # pass 2: log-softmax",
        "    log y_i <- x_i - LSE",
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
    a.record = record_attn_naive;
    a.io = io_attn_naive;
    a.size = size_attn_naive;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "Load Q, K by blocks from HBM, compute S = QK^T * s, write S to HBM",
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
    a.record = record_attn_online;
    a.io = io_attn_online;
    a.size = size_attn_online;
    a.fast = false;
    a.gpu = true;
    a.pseudocode = {
        "for each query row i do",
        "    m <- -inf,  l <- 0,  o <- 0                  # registers",
        "    for j <- 1, N do                             # j <= i when causal",
        "        s <- (q_i . k_j) * scale",
        "        m' <- max(m, s)",
        "        o <- o * exp(m - m') + exp(s - m') * v_j",
        "        l <- l * exp(m - m') + exp(s - m');  m <- m'",
        "    end",
        "    O_i <- o / l                                 # write to HBM",
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
    a.record = record_attn_tiled;
    a.io = io_attn_tiled;
    a.size = size_attn_tiled;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "Set block sizes Bc = ceil(M/4d), Br = min(ceil(M/4d), d)",
        "Initialize O = (0)_Nxd, l = (0)_N, m = (-inf)_N in HBM",
        "Divide Q into Tr blocks Q_1..Q_Tr of Br x d; K, V into Tc blocks of Bc x d",
        "Divide O into Tr blocks O_i, l into Tr blocks l_i, m into Tr blocks m_i",
        "for 1 <= j <= Tc do",
        "    Load K_j, V_j from HBM to on-chip SRAM",
        "    for 1 <= i <= Tr do",
        "        Load Q_i, O_i, l_i, m_i from HBM to on-chip SRAM",
        "        On chip, compute S_ij = Q_i K_j^T * s  (Br x Bc)",
        "        On chip, m~_ij = rowmax(S_ij), P~_ij = exp(S_ij - m~_ij), l~_ij = rowsum(P~_ij)",
        "        On chip, m_new = max(m_i, m~_ij), l_new = exp(m_i - m_new) l_i + exp(m~_ij - m_new) l~_ij",
        "        Write O_i <- diag(l_new)^-1 (diag(l_i) exp(m_i - m_new) O_i + exp(m~_ij - m_new) P~_ij V_j) to HBM",
        "        Write l_i <- l_new, m_i <- m_new to HBM",
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
    a.record = record_attn_tiled_v2;
    a.io = io_attn_tiled_v2;
    a.size = size_attn_tiled_v2;
    a.fast = true;
    a.gpu = true;
    a.pseudocode = {
        "Divide Q into Tr blocks Q_i of Br x d; K, V into Tc blocks K_j, V_j of Bc x d",
        "for 1 <= i <= Tr do",
        "    Load Q_i from HBM to on-chip SRAM",
        "    On chip, initialize O_i(0) = (0)_Brxd, l_i(0) = (0)_Br, m_i(0) = (-inf)_Br",
        "    for 1 <= j <= Tc do",
        "        Load K_j, V_j from HBM to on-chip SRAM",
        "        On chip, compute S_ij = Q_i K_j^T * s  (Br x Bc)",
        "        On chip, m_i(j) = max(m_i(j-1), rowmax(S_ij)), P~_ij = exp(S_ij - m_i(j)),",
        "                 l_i(j) = exp(m_i(j-1) - m_i(j)) l_i(j-1) + rowsum(P~_ij)",
        "        On chip, O_i(j) = diag(exp(m_i(j-1) - m_i(j))) O_i(j-1) + P~_ij V_j",
        "    end for",
        "    On chip, O_i = diag(l_i(Tc))^-1 O_i(Tc)",
        "    On chip, L_i = m_i(Tc) + log(l_i(Tc))",
        "    Write O_i and L_i to HBM",
        "end for",
        "Return O, L",
    };
    a.compare_a = Algorithm::attn_tiled, a.compare_b = Algorithm::attn_tiled_v2;
    t.push_back(std::move(a));
  }
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
static_assert(std::size(kAllAlgorithms) == 9, "a new Algorithm needs its row in algorithms.cpp");

const std::vector<ComparePreset>& compare_presets() {
  static const std::vector<ComparePreset> presets = {
      {"safe vs online", Algorithm::safe, Algorithm::online,
       "Three passes against two: online softmax folds the max into the sum with a rescale."},
      {"naive vs online softmax", Algorithm::naive, Algorithm::online,
       "Same number of passes; only one of them survives large inputs."},
      {"naive vs tiled attention", Algorithm::attn_naive, Algorithm::attn_tiled,
       "S and P through HBM against tiles kept on chip: watch the HBM counters."},
      {"FlashAttention-1 vs -2", Algorithm::attn_tiled, Algorithm::attn_tiled_v2,
       "The same tiles in the other loop order: fewer writes of O, m and l."},
  };
  return presets;
}

// ---- what core/scenario.h declares about algorithms, answered by the table ----------------

std::string_view algorithm_id(Algorithm a) { return info(a).id; }
std::string_view algorithm_title(Algorithm a) { return info(a).title; }
bool is_attention(Algorithm a) { return info(a).family == Family::attention; }

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

}  // namespace flashstep
