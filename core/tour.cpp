#include "core/tour.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace flashstep {
namespace {

const char* const kPlaceholders[] = {"m", "m_old", "l", "l_old", "factor", "x", "i", "tile",
                                     "step", "pass", "row", "N", "hbm"};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw InputError(where + what); }

std::string quoted(const Json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool starts(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// A whole number of at least 1, alone in `s`.
bool count_in(const std::string& s, int& out) {
  const std::string t = trim(s);
  if (t.empty() || t.size() > 7 || t.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::atoi(t.c_str());
  return out >= 1;
}

void check_keys(const Json& j, const std::string& where, std::initializer_list<const char*> keys) {
  for (const auto& item : j.items())
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return item.key() == k; })) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(where, ": \"" + item.key() + "\" is not a field here; use " + list);
    }
}

std::string text_of(const Json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) fail(where, std::string(": no \"") + key + "\"");
  const Json& v = j[key];
  if (!v.is_string()) fail(where, std::string(".") + key + " is " + quoted(v) + ", not a string");
  const std::string s = v.get<std::string>();
  if (trim(s).empty()) fail(where, std::string(".") + key + " is empty");
  return s;
}

TourEvent parse_event(const std::string& text, const std::string& where) {
  TourEvent e;
  e.text = text;
  const std::string t = trim(text);
  auto bad = [&](const std::string& why) -> TourEvent {
    fail(where, ".at = \"" + text + "\": " + why);
  };
  if (t == "first step") return e.kind = TourEvent::Kind::first_step, e;
  if (t == "last step") return e.kind = TourEvent::Kind::last_step, e;
  if (t == "last pass begins") return e.kind = TourEvent::Kind::last_pass_begins, e;
  if (t == "first overflow") return e.kind = TourEvent::Kind::first_overflow, e;
  if (t == "first rescale") return e.kind = TourEvent::Kind::first_rescale, e.buffer = "m", e;
  if (starts(t, "pass ") && ends(t, " begins")) {
    if (!count_in(t.substr(5, t.size() - 5 - 7), e.k)) return bad("the pass is a whole number from 1");
    return e.kind = TourEvent::Kind::pass_begins, e;
  }
  if (starts(t, "row ") && ends(t, " begins")) {
    if (!count_in(t.substr(4, t.size() - 4 - 7), e.k)) return bad("the row is a whole number from 1");
    return e.kind = TourEvent::Kind::row_begins, e;
  }
  if (starts(t, "first rescale of ")) {
    e.buffer = trim(t.substr(17));
    if (e.buffer.empty()) return bad("name the buffer (\"first rescale of m\")");
    return e.kind = TourEvent::Kind::first_rescale, e;
  }
  if (starts(t, "first write of ")) {
    e.buffer = trim(t.substr(15));
    if (e.buffer.empty()) return bad("name the buffer (\"first write of y\")");
    return e.kind = TourEvent::Kind::first_write, e;
  }
  if (starts(t, "change ")) {
    const std::size_t of = t.find(" of ");
    if (of == std::string::npos || !count_in(t.substr(7, of - 7), e.k))
      return bad("write \"change K of B\", K a whole number from 1 and B a buffer (\"change 2 of m\")");
    e.buffer = trim(t.substr(of + 4));
    if (e.buffer.empty()) return bad("name the buffer (\"change 2 of m\")");
    return e.kind = TourEvent::Kind::change, e;
  }
  if (starts(t, "tile (") && ends(t, ")")) {
    const std::string in = t.substr(6, t.size() - 7);
    const std::size_t comma = in.find(',');
    if (comma == std::string::npos || !count_in(in.substr(0, comma), e.i) || !count_in(in.substr(comma + 1), e.j))
      return bad("write \"tile (I, J)\" with whole numbers from 1");
    return e.kind = TourEvent::Kind::tile, e;
  }
  return bad(std::string("use ") + tour_event_forms());
}

TourTarget parse_target(const Json& j, const std::string& where) {
  if (!j.is_object())
    fail(where, ".point is " + quoted(j) + ", not an object like {\"buffer\": \"m\"} or {\"panel\": \"Memory\"}");
  TourTarget t;
  const std::string w = where + ".point";
  if (j.contains("buffer")) {
    check_keys(j, w, {"buffer", "cells"});
    t.kind = TourTarget::Kind::buffer;
    t.name = text_of(j, "buffer", w);
    if (j.contains("cells")) {
      const std::string c = text_of(j, "cells", w);
      if (c == "written") t.cells = TourTarget::Cells::written;
      else if (c == "read") t.cells = TourTarget::Cells::read;
      else if (c == "row") t.cells = TourTarget::Cells::row;
      else if (c == "tile") t.cells = TourTarget::Cells::tile;
      else if (c == "all") t.cells = TourTarget::Cells::all;
      else if (c == "event") t.cells = TourTarget::Cells::event;
      else fail(w, ".cells = \"" + c + "\": use written, read, row, tile, all or event");
    }
    return t;
  }
  if (j.size() != 1)
    fail(w, " = " + quoted(j) + ": one of \"buffer\" (with \"cells\"), \"register\", \"memory\", \"panel\", \"line\"");
  const std::string key = j.begin().key();
  if (key == "register") {
    t.kind = TourTarget::Kind::reg;
    t.name = text_of(j, "register", w);
  } else if (key == "memory") {
    t.kind = TourTarget::Kind::memory;
    t.name = text_of(j, "memory", w);
    if (t.name != "HBM" && t.name != "SRAM") fail(w, ".memory = \"" + t.name + "\": use HBM or SRAM");
  } else if (key == "panel") {
    t.kind = TourTarget::Kind::panel;
    t.name = text_of(j, "panel", w);
    if (t.name != "View" && t.name != "Pseudocode" && t.name != "Memory")
      fail(w, ".panel = \"" + t.name + "\": use View, Pseudocode or Memory");
  } else if (key == "line") {
    t.kind = TourTarget::Kind::line;
    t.name = text_of(j, "line", w);
    if (t.name != "step") fail(w, ".line = \"" + t.name + "\": use step (the step's pseudocode line)");
  } else {
    fail(w, ": \"" + key + "\" is not a field here; use buffer, register, memory, panel or line");
  }
  return t;
}

bool changed(const Delta& d) {
  if (!d.old_defined) return d.defined;
  if (!d.defined) return true;
  return !(d.value == d.old || (std::isnan(d.value) && std::isnan(d.old)));
}

bool rescales(const Delta& d) { return d.old_defined && std::isfinite(d.old) && d.defined && d.value != d.old; }
bool overflows(const Delta& d) { return d.defined && (std::isnan(d.value) || (std::isinf(d.value) && d.value > 0)); }

// The steps [0, count) of rec whose deltas satisfy `pred`, in order: the first k.
template <class Pred>
int nth_step_with_delta(const Recording& rec, int buffer, int nth, Pred pred) {
  int seen = 0;
  for (int k = 0; k < rec.step_count(); ++k) {
    bool hit = false;
    for (std::uint32_t d = rec.delta_begin(k); d < rec.steps[k].delta_end && !hit; ++d) {
      const Delta& x = rec.deltas[d];
      hit = (buffer < 0 || static_cast<int>(x.buffer) == buffer) && pred(x);
    }
    if (hit && ++seen == nth) return k;
  }
  return -1;
}

double value_at(const Recording& rec, const State& st, int b, int r, int c, bool& defined) {
  const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
  if (r < 0 || r >= info.rows || c < 0 || c >= info.cols) {
    defined = false;
    return 0;
  }
  defined = st.is_defined(b, r, c, info.cols);
  return st.at(b, r, c, info.cols);
}

// The block of rows (or columns) of axis role `a` that tile (ti, tj) covers.
void block_of(const Recording& rec, Axis a, int extent, int ti, int tj, int& lo, int& hi) {
  lo = 0, hi = extent;
  if (a == Axis::query && ti >= 0 && rec.Br > 0) lo = ti * rec.Br, hi = std::min(extent, lo + rec.Br);
  if (a == Axis::key && tj >= 0 && rec.Bc > 0) lo = tj * rec.Bc, hi = std::min(extent, lo + rec.Bc);
}

}  // namespace

const char* tour_event_forms() {
  return "\"first step\", \"last step\", \"pass K begins\", \"last pass begins\", \"row R begins\", "
         "\"tile (I, J)\", \"first rescale\", \"first rescale of B\", \"change K of B\", "
         "\"first write of B\" or \"first overflow\"";
}

std::vector<std::string> tour_placeholders(const std::string& text, const std::string& where) {
  std::vector<std::string> out;
  for (std::size_t p = text.find('{'); p != std::string::npos; p = text.find('{', p + 1)) {
    if (p > 0 && (text[p - 1] == '^' || text[p - 1] == '_')) continue;  // markup: e^{x}, x_{i}
    const std::size_t close = text.find('}', p);
    if (close == std::string::npos) fail(where, ": a \"{\" without its \"}\"");
    const std::string name = text.substr(p + 1, close - p - 1);
    if (std::find(std::begin(kPlaceholders), std::end(kPlaceholders), name) == std::end(kPlaceholders)) {
      std::string list;
      for (const char* k : kPlaceholders) list += (list.empty() ? "{" : ", {") + std::string(k) + "}";
      fail(where, ": {" + name + "} is not a placeholder; use " + list);
    }
    out.push_back(name);
  }
  return out;
}

Tour parse_tour(const Json& j, const std::string& where) {
  if (!j.is_object()) fail(where, " is " + quoted(j) + ", not an object {\"stops\": [...], \"takeaway\": ...}");
  check_keys(j, where, {"stops", "takeaway", "lesson"});
  Tour t;
  if (!j.contains("stops") || !j["stops"].is_array() || j["stops"].empty())
    fail(where, ".stops: a list of stops {\"at\": ..., \"point\": ..., \"text\": ...}");
  const Json& stops = j["stops"];
  for (std::size_t k = 0; k < stops.size(); ++k) {
    const std::string w = where + strf(".stops[%zu]", k);
    const Json& s = stops[k];
    if (!s.is_object()) fail(w, " is " + quoted(s) + ", not an object {\"at\": ..., \"point\": ..., \"text\": ...}");
    check_keys(s, w, {"at", "point", "text"});
    TourStop stop;
    stop.at = parse_event(text_of(s, "at", w), w);
    if (!s.contains("point")) fail(w, ": no \"point\"");
    stop.point = parse_target(s["point"], w);
    stop.text = text_of(s, "text", w);
    tour_placeholders(stop.text, w + ".text");
    t.stops.push_back(std::move(stop));
  }
  t.takeaway = text_of(j, "takeaway", where);
  if (t.takeaway.find('\n') != std::string::npos) fail(where, ".takeaway: one line");
  return t;
}

Tour parse_tour_file(const std::string& name, const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail(name, strf(": not JSON (syntax error at byte %zu)", e.byte));
  } catch (const Json::exception& e) {
    fail(name, std::string(": not usable JSON: ") + e.what());
  }
  if (!j.is_object()) fail(name, ": expected a JSON object {\"lesson\": ..., \"stops\": [...], \"takeaway\": ...}");
  const std::string lesson = text_of(j, "lesson", name);
  Tour t = parse_tour(j, name + ": tour");
  t.lesson = lesson;
  return t;
}

void check_tour(const Tour& tour, const Recording& rec, const std::string& where) {
  const bool fixed = info(rec.algorithm).passes_per == PassesPer::fixed;
  for (std::size_t k = 0; k < tour.stops.size(); ++k) {
    const TourStop& s = tour.stops[k];
    const std::string w = where + strf(".stops[%zu]", k);
    if (!s.at.buffer.empty() && rec.find_buffer(s.at.buffer) < 0)
      fail(w, ".at = \"" + s.at.text + "\": this lesson's recording has no buffer " + s.at.buffer);
    if (s.at.kind == TourEvent::Kind::pass_begins && fixed && s.at.k > rec.pass_count())
      fail(w, ".at = \"" + s.at.text + "\": " + strf("this lesson has %d passes", rec.pass_count()));
    if (s.point.kind == TourTarget::Kind::buffer && rec.find_buffer(s.point.name) < 0)
      fail(w, ".point.buffer = \"" + s.point.name + "\": this lesson's recording has no such buffer");
  }
}

int event_step(const Recording& rec, const TourEvent& e) {
  const int n = rec.step_count();
  if (n == 0) return -1;
  using K = TourEvent::Kind;
  switch (e.kind) {
    case K::first_step: return 0;
    case K::last_step: return n - 1;
    case K::pass_begins:
    case K::last_pass_begins: {
      int want = e.k;
      if (e.kind == K::last_pass_begins) {
        want = 0;
        for (const Step& s : rec.steps) want = std::max(want, s.pass);
      }
      for (int k = 0; k < n; ++k)
        if (rec.steps[k].pass == want) return k;
      return -1;
    }
    case K::row_begins:
      for (int k = 0; k < n; ++k)
        if (rec.steps[k].row == e.k - 1) return k;
      return -1;
    case K::tile:
      for (int k = 0; k < n; ++k)
        if (rec.steps[k].tile_i == e.i - 1 && rec.steps[k].tile_j == e.j - 1) return k;
      return -1;
    case K::first_rescale: {
      const int b = rec.find_buffer(e.buffer);
      if (b < 0) return -1;
      return nth_step_with_delta(rec, b, 1, rescales);
    }
    case K::change: {
      const int b = rec.find_buffer(e.buffer);
      if (b < 0) return -1;
      return nth_step_with_delta(rec, b, e.k, changed);
    }
    case K::first_write: {
      // A sum kept on chip (Step::kept: the backward's dKⱼ, dVⱼ, which the HBM buffer shows as
      // they grow) is written when it leaves the chip, not while it is kept.
      const int b = rec.find_buffer(e.buffer);
      for (int k = 0; b >= 0 && k < n; ++k) {
        const Step& s = rec.steps[static_cast<std::size_t>(k)];
        for (const Region& g : s.writes)
          if (g.buffer == b && !s.keeps(g)) return k;
      }
      return -1;
    }
    case K::first_overflow:
      return nth_step_with_delta(rec, -1, 1, overflows);
  }
  return -1;
}

std::string event_phrase(const TourEvent& e) {
  using K = TourEvent::Kind;
  switch (e.kind) {
    case K::first_step: return "the first step";
    case K::last_step: return "the last step";
    case K::pass_begins: return strf("pass %d", e.k);
    case K::last_pass_begins: return "the last pass";
    case K::row_begins: return strf("row %d", e.k);
    case K::tile: return strf("tile (%d, %d)", e.i, e.j);
    case K::first_rescale: return e.buffer == "m" ? "the first rescale" : "the first rescale of " + e.buffer;
    case K::change: return strf("change %d of ", e.k) + e.buffer;
    case K::first_write: return "the first write of " + e.buffer;
    case K::first_overflow: return "the first overflow";
  }
  return e.text;
}

TargetCells target_cells(const Recording& rec, const TourTarget& t, int k, const TourEvent& at) {
  TargetCells out;
  if (t.kind != TourTarget::Kind::buffer || k < 0 || k >= rec.step_count()) return out;
  const int b = rec.find_buffer(t.name);
  if (b < 0) return out;
  const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
  const Step& s = rec.steps[static_cast<std::size_t>(k)];
  out.buffer = b;
  auto first_region = [&](const std::vector<Region>& list) {
    for (const Region& g : list) {
      if (g.buffer != b) continue;
      if (out.found) {
        out.also.push_back(g);
        continue;
      }
      out.r0 = g.r0, out.r1 = g.r1, out.c0 = g.c0, out.c1 = g.c1;
      out.found = true;
    }
  };
  switch (t.cells) {
    case TourTarget::Cells::written: first_region(s.writes); break;
    case TourTarget::Cells::read: first_region(s.reads); break;
    case TourTarget::Cells::row: {
      const int r = event_row(rec, at, k);
      if (r < info.rows) out.r0 = r, out.r1 = r + 1, out.c0 = 0, out.c1 = info.cols, out.found = true;
      break;
    }
    case TourTarget::Cells::tile:
      if (s.tile_i < 0 && s.tile_j < 0) break;
      block_of(rec, info.row_axis, info.rows, s.tile_i, s.tile_j, out.r0, out.r1);
      block_of(rec, info.col_axis, info.cols, s.tile_i, s.tile_j, out.c0, out.c1);
      out.found = out.r1 > out.r0 && out.c1 > out.c0;
      break;
    case TourTarget::Cells::all:
      out.r0 = 0, out.r1 = info.rows, out.c0 = 0, out.c1 = info.cols, out.found = true;
      break;
    case TourTarget::Cells::event: {
      const EventCell c = event_cell(rec, at, k);
      if (c.found && c.buffer == b) out.r0 = c.row, out.r1 = c.row + 1, out.c0 = c.col, out.c1 = c.col + 1, out.found = true;
      break;
    }
  }
  return out;
}

int stop_row(const Recording& rec, int k) {
  if (k < 0 || k >= rec.step_count()) return 0;
  const Step& s = rec.steps[static_cast<std::size_t>(k)];
  if (s.row >= 0) return s.row;
  if (s.tile_i >= 0 && rec.Br > 0) return s.tile_i * rec.Br;
  return 0;
}

EventCell event_cell(const Recording& rec, const TourEvent& e, int k) {
  using K = TourEvent::Kind;
  EventCell out;
  if (k < 0 || k >= rec.step_count()) return out;
  const int b = e.buffer.empty() ? -1 : rec.find_buffer(e.buffer);
  bool (*pred)(const Delta&) = nullptr;
  if (e.kind == K::first_rescale) pred = rescales;
  if (e.kind == K::change) pred = changed;
  if (e.kind == K::first_overflow) pred = overflows;
  if (pred && (b >= 0 || e.kind == K::first_overflow))
    for (std::uint32_t d = rec.delta_begin(k); d < rec.steps[k].delta_end; ++d) {
      const Delta& x = rec.deltas[d];
      if ((b < 0 || static_cast<int>(x.buffer) == b) && pred(x)) {
        const int cols = std::max(rec.buffers[x.buffer].cols, 1);
        out.buffer = static_cast<int>(x.buffer);
        out.row = static_cast<int>(x.index) / cols;
        out.col = static_cast<int>(x.index) % cols;
        out.found = true;
        return out;
      }
    }
  return out;
}

int event_row(const Recording& rec, const TourEvent& e, int k) {
  const EventCell c = event_cell(rec, e, k);
  return c.found ? c.row : stop_row(rec, k);
}

std::string fill_tour_text(const Recording& rec, const std::string& text, int k, int row) {
  if (k < 0 || k >= rec.step_count()) return text;
  const Step& s = rec.steps[static_cast<std::size_t>(k)];
  const State before = replay(rec, k - 1), after = replay(rec, k);
  const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l"), bx = rec.find_buffer("x");
  auto reg = [&](int b, const State& st) -> std::string {
    bool def = false;
    const double v = b >= 0 ? value_at(rec, st, b, row, 0, def) : 0;
    return def ? num(v) : "—";
  };
  // The element of x this step reads in the row (the first one).
  int xi = -1;
  for (const Region& g : s.reads)
    if (bx >= 0 && g.buffer == bx && g.r0 <= row && row < g.r1 && g.c1 > g.c0) {
      xi = g.c0;
      break;
    }
  std::string out;
  std::size_t from = 0;
  const std::vector<std::string> names = tour_placeholders(text, "tour text");
  std::size_t next = 0;
  for (std::size_t p = text.find('{'); p != std::string::npos; p = text.find('{', p + 1)) {
    if (p > 0 && (text[p - 1] == '^' || text[p - 1] == '_')) continue;
    const std::size_t close = text.find('}', p);
    const std::string& name = names[next++];
    out += text.substr(from, p - from);
    from = close + 1;
    std::string v = "—";
    if (name == "m") v = reg(bm, after);
    else if (name == "m_old") v = reg(bm, before);
    else if (name == "l") v = reg(bl, after);
    else if (name == "l_old") v = reg(bl, before);
    else if (name == "factor") {
      bool d0 = false, d1 = false;
      const double m0 = bm >= 0 ? value_at(rec, before, bm, row, 0, d0) : 0;
      const double m1 = bm >= 0 ? value_at(rec, after, bm, row, 0, d1) : 0;
      if (d0 && d1 && std::isfinite(m0) && std::isfinite(m1)) v = num(std::exp(m0 - m1));
    } else if (name == "x") {
      bool def = false;
      const double x = xi >= 0 ? value_at(rec, after, bx, row, xi, def) : 0;
      if (def) v = num(x);
    } else if (name == "i") {
      if (xi >= 0) v = std::to_string(xi + 1);
    } else if (name == "tile") {
      if (s.tile_i >= 0 || s.tile_j >= 0) v = strf("(%d, %d)", s.tile_i + 1, s.tile_j + 1);
    } else if (name == "step") v = std::to_string(k + 1);
    else if (name == "pass") {
      if (s.pass >= 1 && s.pass <= rec.pass_count()) v = rec.pass_names[static_cast<std::size_t>(s.pass - 1)];
    } else if (name == "row") v = std::to_string(row + 1);
    else if (name == "N") v = std::to_string(rec.n);
    else if (name == "hbm") v = std::to_string(s.io.hbm_accesses());
    out += v;
  }
  out += text.substr(from);
  return out;
}

}  // namespace flashstep
