#include "core/params.h"

#include "core/algorithms.h"
#include "core/scenario.h"
#include "core/text.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace flashstep {
namespace {

// Format 1's fields are ints, and resolve() has always taken any of their values from 1 (a
// block or M larger than anything is capped at N); files take up to kMaxElements.
constexpr long long kIntMax = std::numeric_limits<int>::max();

bool tiled(const AlgorithmInfo& a) { return a.takes_blocks; }
bool workers(const AlgorithmInfo& a) { return a.takes_workers; }

std::vector<ParamDecl> declared() {
  std::vector<ParamDecl> out;
  // ---- format 1: named fields of Scenario, written to every file --------------------------
  {
    ParamDecl p;
    p.key = "block_rows", p.flag = "--block-rows", p.name = "block rows Br", p.label = "Br";
    p.help = "Br, rows of a Q block (tiled attention); 0 or absent: derived from M (--sram), said in notices. "
             "A CPU fp32 run with --steps none that gives none of --block-rows, --block-cols and --sram runs "
             "with the fast kernel's own blocks instead, said in notices and as blocks.chosen_by = \"kernel\"";
    p.lo = 1, p.hi = kIntMax, p.def = 0, p.zero_is_auto = true;
    p.takes = tiled, p.sets = "the tiles", p.lacks = "has no tiles";
    p.member = &Scenario::block_rows, p.own_widget = true;
    out.push_back(p);
  }
  {
    ParamDecl p;
    p.key = "block_cols", p.flag = "--block-cols", p.name = "block cols Bc", p.label = "Bc";
    p.help = "Bc, rows of a K/V block (tiled attention); 0 or absent: derived from M (--sram), said in notices";
    p.lo = 1, p.hi = kIntMax, p.def = 0, p.zero_is_auto = true;
    p.takes = tiled, p.sets = "the tiles", p.lacks = "has no tiles";
    p.member = &Scenario::block_cols, p.own_widget = true;
    out.push_back(p);
  }
  {
    ParamDecl p;
    p.key = "sram", p.flag = "--sram", p.name = "sram M", p.label = "M (SRAM)";
    p.help = "SRAM size M in elements, for the block sizes derived from it: Bc = ⌈M/4d⌉, Br = min(Bc, d); "
             "at least one row of each d-wide block of the algorithm's tile (4·d: Qᵢ, Kⱼ, Vⱼ, Oᵢ of the forward); "
             "0 or absent: " + std::to_string(kDefaultSram);
    p.lo = 1, p.hi = kIntMax, p.def = 0, p.zero_is_auto = true;
    p.takes = tiled, p.sets = "the tiles", p.lacks = "has no tiles";
    p.member = &Scenario::sram, p.own_widget = true;
    out.push_back(p);
  }
  {
    ParamDecl p;
    p.key = "chunks", p.flag = "--chunks", p.name = "chunks", p.label = "workers";
    p.help = "Workers of the chunked softmax; more workers than the n elements: n workers, said in notices";
    p.panel_help = "Number of workers n_{w}; each runs the online softmax over its own chunk before the "
                   "(m, l) pairs are merged.";
    p.lo = 1, p.hi = kIntMax, p.def = 4;
    p.takes = workers, p.sets = "the workers", p.lacks = "has none";
    p.member = &Scenario::chunks;
    out.push_back(p);
  }
  // ---- since format 1: in Scenario::params, written where not the default -----------------
  return out;
}

std::vector<ParamDecl>& registry() {
  static std::vector<ParamDecl> all = declared();
  return all;
}

}  // namespace

const std::vector<ParamDecl>& params() { return registry(); }

const ParamDecl* find_param(std::string_view key) {
  for (const ParamDecl& p : registry())
    if (p.key == key) return &p;
  return nullptr;
}

bool takes(Algorithm a, const ParamDecl& p) { return p.takes && p.takes(info(a)); }

std::string takers(const ParamDecl& p) {
  std::string out;
  for (const AlgorithmInfo& a : algorithm_table())
    if (p.takes && p.takes(a)) out += (out.empty() ? "" : ", ") + std::string(a.id);
  return out;
}

long long param_value(const Scenario& s, const ParamDecl& p) {
  if (p.member) return s.*p.member;
  const auto it = s.params.find(p.key);
  return it == s.params.end() ? p.def : it->second;
}

void set_param(Scenario& s, const ParamDecl& p, long long value) {
  if (p.member) {
    s.*p.member = static_cast<int>(value);  // callers check the range first (param_range_error)
    return;
  }
  s.params[p.key] = value;
}

long long param(const Scenario& s, std::string_view key) {
  const ParamDecl* p = find_param(key);
  if (!p) throw std::logic_error("param: no parameter is declared as \"" + std::string(key) + "\"");
  return param_value(s, *p);
}

std::string param_range_error(const ParamDecl& p, long long value) {
  if (p.zero_is_auto && value == 0) return "";
  if (value < p.lo) return strf("%s = %lld: must be at least %lld", p.name.c_str(), value, p.lo);
  if (value > p.hi) return strf("%s = %lld: must be at most %lld", p.name.c_str(), value, p.hi);
  return "";
}

void check_params(const Scenario& s) {
  for (const ParamDecl& p : registry()) {
    const long long v = param_value(s, p);
    if (takes(s.algorithm, p)) {
      if (std::string why = param_range_error(p, v); !why.empty()) throw InputError(why);
    } else if (!p.member && v != p.def) {
      // Format 1's fields are set by every form whatever the algorithm; a newer parameter is
      // given on purpose, and would otherwise be silently ignored.
      throw InputError(strf("%s = %lld: applies to %s only, not to %s", p.name.c_str(), v, takers(p).c_str(),
                            std::string(algorithm_id(s.algorithm)).c_str()));
    }
  }
}

ParamValues taken_params(const Scenario& s) {
  ParamValues out;
  for (const ParamDecl& p : registry())
    if (!p.member && takes(s.algorithm, p)) out[p.key] = param_value(s, p);
  return out;
}

ScopedParam::ScopedParam(ParamDecl p) : key_(p.key) {
  if (find_param(p.key)) throw std::logic_error("ScopedParam: \"" + p.key + "\" is declared already");
  registry().push_back(std::move(p));
}

ScopedParam::~ScopedParam() {
  auto& all = registry();
  all.erase(std::remove_if(all.begin(), all.end(), [&](const ParamDecl& p) { return p.key == key_; }), all.end());
}

}  // namespace flashstep
