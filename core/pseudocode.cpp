// The algorithms in the notation of their papers. Step::line indexes these lists from 1, so
// an edit here must keep the engines' line numbers (softmax.cpp, attention.cpp) in step.
#include "core/engine.h"

namespace flashstep {

const std::vector<std::string>& pseudocode(Algorithm a) {
  static const std::vector<std::string> kNaive = {
      "l_0 <- 0",
      "for i <- 1, n do                      # pass 1: sum",
      "    l_i <- l_(i-1) + exp(x_i)",
      "end",
      "for i <- 1, n do                      # pass 2: normalize",
      "    y_i <- exp(x_i) / l_n",
      "end",
  };
  static const std::vector<std::string> kSafe = {
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
  static const std::vector<std::string> kOnline = {
      "m_0 <- -inf,  l_0 <- 0",
      "for i <- 1, n do                      # pass 1: max and sum together",
      "    m_i <- max(m_(i-1), x_i)",
      "    l_i <- l_(i-1) * exp(m_(i-1) - m_i) + exp(x_i - m_i)",
      "end",
      "for i <- 1, n do                      # pass 2: normalize",
      "    y_i <- exp(x_i - m_n) / l_n",
      "end",
  };
  static const std::vector<std::string> kChunked = {
      "split x into K chunks; worker k owns chunk k",
      "in parallel, each worker k: m_k <- -inf, l_k <- 0",
      "    for x_i in chunk k:  m_k' <- max(m_k, x_i)",
      "        l_k <- l_k * exp(m_k - m_k') + exp(x_i - m_k');  m_k <- m_k'",
      "merge pairs up a tree:  m <- max(m_a, m_b)",
      "    l <- l_a * exp(m_a - m) + l_b * exp(m_b - m)",
      "in parallel, each worker k: for x_i in chunk k:",
      "    y_i <- exp(x_i - m) / l          # (m, l) of the root",
  };
  static const std::vector<std::string> kLogsumexp = {
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
  static const std::vector<std::string> kAttnNaive = {
      "Load Q, K by blocks from HBM, compute S = QK^T * s, write S to HBM",
      "Read S from HBM, compute P = softmax(S), write P to HBM",
      "Load P and V by blocks from HBM, compute O = PV, write O to HBM",
      "Return O",
  };
  static const std::vector<std::string> kAttnOnline = {
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
  static const std::vector<std::string> kAttnTiled = {
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
  static const std::vector<std::string> kAttnTiledV2 = {
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
  switch (a) {
    case Algorithm::naive: return kNaive;
    case Algorithm::safe: return kSafe;
    case Algorithm::online: return kOnline;
    case Algorithm::chunked: return kChunked;
    case Algorithm::logsumexp: return kLogsumexp;
    case Algorithm::attn_naive: return kAttnNaive;
    case Algorithm::attn_online: return kAttnOnline;
    case Algorithm::attn_tiled: return kAttnTiled;
    case Algorithm::attn_tiled_v2: return kAttnTiledV2;
  }
  return kNaive;
}

}  // namespace flashstep
