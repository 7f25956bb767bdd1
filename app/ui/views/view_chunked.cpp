#include "app/ui/views/view_chunked.h"

#include "app/ui/views/hit_map.h"
#include "app/ui/views/view_logic.h"
#include "app/ui/widgets.h"
#include "core/engine.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace flashstep::ui {
namespace {

struct Ctx {
  const ViewInput& in;
  const Recording& rec;
  const State& st;
  const Palette& pal;
  ImDrawList* dl;
  float s, fs;
  int row;
  int bm, bl;  // m_tree, l_tree
  ChunkedViewOptions::Drawn& drawn;
};

// What a node's two lines may say, longest first: "m 3 → 5" where this step changed it, then
// "m = 5" in full, with 3 and 2 digits, and the number alone with 2 digits (its tooltip has
// them all). The same for l.
struct NodeLines {
  CellChange m, l;
  bool started = false;  // m finite: an element folded in
  std::vector<std::string> m_forms, l_forms;
};
constexpr int kNamedForms = 4;  // the forms that keep the name ("m = …")

NodeLines node_lines(const Ctx& c, int node) {
  NodeLines out;
  out.m = cell_change(c.rec, c.st, c.in.playhead, c.bm, c.row, node);
  out.l = cell_change(c.rec, c.st, c.in.playhead, c.bl, c.row, node);
  auto forms = [](const char* name, const CellChange& ch) {
    const std::string now = ch.new_defined ? display_number(ch.new_value) : "—";
    const std::string shorter = std::string(name) + " = " + now;
    const std::string full =
        ch.changed() ? std::string(name) + " " + (ch.old_defined ? display_number(ch.old_value) : "—") + " → " + now
                     : shorter;
    auto named = [&](int digits) {
      return ch.new_defined ? std::string(name) + " = " + compact_number(ch.new_value, digits) : shorter;
    };
    return std::vector<std::string>{full, shorter, named(3), named(2), compact_number(ch.new_value, 2)};
  };
  out.started = out.m.new_defined && std::isfinite(out.m.new_value);
  out.m_forms = forms("m", out.m);
  out.l_forms = forms("l", out.l);
  return out;
}

// The first form at which every node's m line (`l_line`: l line) fits `room` at text size
// `px`: one form for the tree, so that no box drops a name another keeps (the tooltip has every
// digit). Nodes not started (m = −∞, drawn dim) do not count: each takes the first form from
// the tree's on that fits it.
int tree_form(const std::vector<NodeLines>& nodes, bool l_line, float room, float px) {
  ImFont* f = ImGui::GetFont();
  int form = 0;
  for (const NodeLines& n : nodes) {
    if (!n.started) continue;
    const std::vector<std::string>& forms = l_line ? n.l_forms : n.m_forms;
    while (form + 1 < static_cast<int>(forms.size()) &&
           f->CalcTextSizeA(px, 1e9f, 0, forms[static_cast<std::size_t>(form)].c_str()).x > room)
      ++form;
  }
  return form;
}

// One (m, l) node: a title above, its two lines inside at `text_px`, in forms `m_form` and
// `l_form` (NodeLines).
// `title_room`: how far its title may run right of the box's left edge (up to the next node of
// its level, or the view's edge); `title` where it fits, else `short_title` (the root: its
// shorter names).
void node_box(const Ctx& c, ImVec2 centre_top, float w, const std::string& title, const std::string& short_title,
              float title_room, int node, bool root, const NodeLines& lines, int m_form, int l_form, float text_px) {
  const float pad = 5 * c.s, line = c.fs + 2 * c.s;
  const ImVec2 p0(centre_top.x - w * 0.5f, centre_top.y),
      p1(centre_top.x + w * 0.5f, centre_top.y + 2 * line + 2 * pad);
  const CellChange& m = lines.m;
  const CellChange& l = lines.l;
  std::uint8_t marks = cell_marks(c.in.step, c.bm, c.row, node) | cell_marks(c.in.step, c.bl, c.row, node);
  // The root's pair is the global (m, l) the normalize pass reads from the registers m and l.
  if (root)
    marks |= (cell_marks(c.in.step, c.rec.find_buffer("m"), c.row, 0) |
              cell_marks(c.in.step, c.rec.find_buffer("l"), c.row, 0)) &
             kMarkRead;
  const bool started = lines.started;
  const bool alarm =
      is_alarm(cell_kind(m.new_defined, m.new_value)) || is_alarm(cell_kind(l.new_defined, l.new_value));
  ImU32 bg = started ? mix(c.pal.background, c.pal.cell, 0.9f) : mix(c.pal.background, c.pal.cell, 0.35f);
  if (marks & kMarkWrite) bg = mix(bg, c.pal.write, 0.3f);
  if (alarm) bg = mix(bg, c.pal.nonfinite, 0.6f);
  c.dl->AddRectFilled(p0, p1, bg, 5 * c.s);
  c.dl->AddRect(p0, p1, root ? c.pal.current : c.pal.grid, 5 * c.s, 0, root ? 2.0f * c.s : 1.0f);
  mark_outline(c.dl, c.pal, p0, p1, marks, c.s);
  if (c.in.hits)
    c.in.hits->add_node({c.bm, c.bl}, c.row, node, title, Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, true});
  c.drawn.boxes.push_back(Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, true});
  // The root stands alone on its line: its title may run past its box, and it says at least
  // that this is the global pair.
  const float room = std::min(root ? std::max({2.0f * w, w + 30 * c.s, 112 * c.s}) : w + 30 * c.s, title_room);
  std::string shown;
  const char* names[] = {title.c_str(), root ? "global (m, l)" : short_title.c_str(), "global"};
  const ImVec2 at(p0.x, p0.y - c.fs - 2 * c.s);
  Rect written;
  for (int i = 0; i < (root ? 3 : 2); ++i)
    if (const float tw = text_fit(c.dl, at, root ? c.pal.text : c.pal.text_dim, {names[i]}, room); tw > 0) {
      shown = names[i];
      written = Rect{at.x, at.y, tw, c.fs, true};
      break;
    }
  c.drawn.titles.push_back(shown);
  c.drawn.title_rects.push_back(written);
  // The two lines, centred in the box's height (text made smaller than the labels keeps the box).
  const ImU32 tc = alarm ? text_over(bg) : (started ? c.pal.text : c.pal.text_dim);
  const float y0 = p0.y + pad + (c.fs - text_px);
  auto draw_line = [&](const std::vector<std::string>& forms, int form, float y) {
    ImFont* f = ImGui::GetFont();
    for (std::size_t k = static_cast<std::size_t>(form); k < forms.size(); ++k) {
      if (f->CalcTextSizeA(text_px, 1e9f, 0, forms[k].c_str()).x <= w - 2 * pad) {
        c.dl->AddText(f, text_px, ImVec2(p0.x + pad, y), tc, forms[k].c_str());
        c.drawn.lines.push_back(forms[k]);
        return;
      }
      if (lines.started) break;  // a started node keeps the tree's form
    }
    c.drawn.lines.emplace_back();
  };
  c.drawn.started.push_back(lines.started);
  draw_line(lines.m_forms, m_form, y0);
  draw_line(lines.l_forms, l_form, y0 + text_px + 2 * c.s);
  if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1)) {
    std::string body = "m = " + (m.new_defined ? display_number(m.new_value) : "—") +
                       ",  l = " + (l.new_defined ? num(l.new_value) : "—");
    if (m.changed() || l.changed())
      body += "\nThis step changed it from (" + display_number(m.old_value) + ", " + num(l.old_value) + ")";
    if (!started) body += "\nNot started yet: m = −∞ and l = 0 until the first element is folded in.";
    const std::string why = nonfinite_reason(c.rec, c.st, c.bl, c.row, node);
    if (!why.empty()) body += "\n" + why;
    tooltip(title, body);
  }
}

}  // namespace

bool chunked_view_draws(const Recording& rec) {
  return rec.find_buffer("x") >= 0 && rec.find_buffer("m_tree") >= 0 && rec.find_buffer("l_tree") >= 0 &&
         rec.chunks > 0 && !rec.initial.values.empty();
}

static void draw_chunked_view_body(const ViewInput& in, ChunkedViewOptions& opt) {
  const Recording& rec = in.rec;
  const int bx = rec.find_buffer("x"), by = rec.find_buffer("y");
  const int bm = rec.find_buffer("m_tree"), bl = rec.find_buffer("l_tree");
  if (!chunked_view_draws(rec)) {
    ImGui::TextDisabled("This lesson has no workers to show (only the chunked lesson splits the row).");
    return;
  }
  const float s = in.ui_scale, fs = ImGui::GetFontSize();
  const Palette& pal = in.palette;
  if (opt.show_toolbar && rec.rows > 1) {
    bool follow = opt.row < 0;
    if (ImGui::Checkbox("follow the step's row", &follow)) opt.row = follow ? -1 : step_row(in.step, 0);
    if (!follow) {
      ImGui::SameLine();
      int r = opt.row + 1;
      ImGui::SetNextItemWidth(140 * s);
      if (ImGui::SliderInt("row", &r, 1, rec.rows)) opt.row = r - 1;
    }
  }
  const int row = std::clamp(opt.row >= 0 ? opt.row : step_row(in.step, 0), 0, rec.rows - 1);
  const int K = rec.chunks, n = rec.n;
  const auto tree = merge_tree(K);
  const int levels = merge_tree_levels(tree);
  opt.drawn = {};
  Ctx c{in, rec, in.cursor.state(), pal, ImGui::GetWindowDrawList(), s, fs, row, bm, bl, opt.drawn};

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = ImGui::CalcTextSize("workers").x + fs * 2.2f;
  const float x0 = origin.x + label_w;
  const float cw = std::min((avail.x - label_w - 8 * s) / static_cast<float>(n), 90.0f * s);
  const float gap = cw >= 20 ? 5 * s : (cw >= 6 ? 1 : 0);
  auto left = [&](int i) { return x0 + static_cast<float>(i) * cw + gap * 0.5f; };
  auto right = [&](int i) { return x0 + static_cast<float>(i + 1) * cw - gap * 0.5f; };
  float y = origin.y;
  if (rec.rows > 1) {
    const std::string t = strf("row %d of %d", row + 1, rec.rows);
    c.dl->AddText(ImVec2(origin.x, y), pal.text, t.c_str());
    y += fs + 4 * s;
  }
  auto row_label = [&](float yy, float h, const char* text, const char* help) {
    const float tw = ImGui::CalcTextSize(text).x;
    c.dl->AddText(ImVec2(x0 - tw - fs * 1.7f, yy + (h - fs) * 0.5f), pal.text, text);
    help_marker_at(ImVec2(x0 - fs * 1.5f, yy + (h - fs) * 0.5f), help);
  };

  // x and y as cells, the worker bands under them.
  const float cell_h = std::max(fs * 1.8f, 26.0f * s);
  const ValueRange rx = buffer_range(rec, bx);
  const int ncols = rec.buffers[bx].cols;
  for (int pass = 0; pass < 2; ++pass) {
    const int b = pass == 0 ? bx : by;
    if (b < 0) continue;
    // Each cell's number with the most digits that fit it (up to 4, as the vector view's), a
    // fraction written one way in the row.
    std::vector<std::optional<double>> values;
    for (int i = 0; i < n; ++i)
      values.push_back(c.st.is_defined(b, row, i, ncols) ? std::optional<double>(c.st.at(b, row, i, ncols)) : std::nullopt);
    const std::vector<std::string> texts =
        fitted_numbers(values, value_cell_text_size(cell_h), [&](int i) { return value_cell_room(left(i), right(i)); }, 4,
                       &opt.drawn.numbers, pass);
    for (int i = 0; i < n; ++i) {
      const bool def = c.st.is_defined(b, row, i, ncols);
      const double v = c.st.at(b, row, i, ncols);
      const CellKind kind = cell_kind(def, v);
      const float t = pass == 0 ? rx.t(v) : static_cast<float>(std::clamp(v, 0.0, 1.0));
      const ImVec2 p0(left(i), y), p1(right(i), y + cell_h);
      value_cell(c.dl, pal, p0, p1, cell_fill(pal, kind, t), texts[static_cast<std::size_t>(i)].c_str(),
                 cell_marks(in.step, b, row, i), s);
      if (in.hits) in.hits->add_strip(HitKind::cell, b, row, i, i + 1, Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, true});
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1)) {
        const std::string why = nonfinite_reason(rec, c.st, b, row, i);
        tooltip(
            (pass == 0 ? "x" : "y") + sub(i + 1) + " = " + (def ? num(v) : std::string("not computed yet")),
            strf("owned by worker %d", chunk_of(i, n, K) + 1) + (why.empty() ? "" : "\n" + why));
      }
    }
    row_label(
        y, cell_h, pass == 0 ? "x" : "y",
        pass == 0
            ? "The input row, split into K contiguous chunks, one per worker."
            : "The output: in the last pass every worker normalizes its own chunk with the global (m, l).");
    y += cell_h + 4 * s;
  }
  std::vector<float> worker_x(static_cast<std::size_t>(K));
  float min_chunk_w = 1e9f;
  for (int w = 0; w < K; ++w) {
    const int b0 = chunk_begin(w, n, K), b1 = chunk_begin(w + 1, n, K);
    if (b1 <= b0) continue;
    const float a = left(b0), b = right(b1 - 1);
    worker_x[w] = 0.5f * (a + b);
    min_chunk_w = std::min(min_chunk_w, b - a);
    c.dl->AddRectFilled(ImVec2(a, y), ImVec2(b, y + 5 * s), w % 2 ? pal.text_dim : pal.grid, 2 * s);
  }
  y += 5 * s + fs + 10 * s;

  // The tree: workers on level 0, each merge level below.
  const std::vector<float> nx = merge_tree_x(tree, worker_x);
  // How far each node is from the next of its level to the right: its title may run until there,
  // and no box is wider than the closest two (a larger font had the boxes and the titles of
  // four workers over each other).
  std::vector<float> to_next(tree.size(), 1e9f);
  for (std::size_t a = 0; a < tree.size(); ++a)
    for (std::size_t b = 0; b < tree.size(); ++b)
      if (tree[a].level == tree[b].level && nx[b] > nx[a]) to_next[a] = std::min(to_next[a], nx[b] - nx[a]);
  const float pitch = *std::min_element(to_next.begin(), to_next.end());
  const float box_w = std::min(
      std::clamp(std::min(min_chunk_w, (avail.x - label_w) / static_cast<float>(K)) - 8 * s, 56.0f * s, 170.0f * s),
      pitch - 6 * s);
  const float box_h = 2 * (fs + 2 * s) + 10 * s;
  const float level_h = box_h + fs + 26 * s;
  auto top = [&](int id) { return y + static_cast<float>(tree[id].level) * level_h; };
  // Edges first, so boxes cover their ends.
  for (int id = K; id < static_cast<int>(tree.size()); ++id) {
    const bool active = (cell_marks(in.step, bm, row, id) & kMarkWrite) != 0;
    for (int child : {tree[id].left, tree[id].right}) {
      if (child < 0) continue;
      const ImVec2 a(nx[child], top(child) + box_h), b(nx[id], top(id) - fs - 3 * s);
      c.dl->AddBezierCubic(a, ImVec2(a.x, (a.y + b.y) * 0.5f), ImVec2(b.x, (a.y + b.y) * 0.5f), b,
                           active ? pal.read : pal.grid, active ? 3.0f * s : 1.5f * s);
    }
  }
  const int root = static_cast<int>(tree.size()) - 1;
  // The titles: each level's written one way, in full where every one of them fits before the
  // next node of the level and the view's edge, else by number alone (the row's label names
  // the kind). The root has a line of its own.
  std::vector<std::string> titles(tree.size()), short_titles(tree.size());
  std::vector<float> rooms(tree.size());
  for (int id = 0; id < static_cast<int>(tree.size()); ++id) {
    if (id == root) {
      titles[id] = K == 1 ? "worker 1 = global (m, l)" : tree[id].level > 0 ? "merge → global (m, l)" : "global (m, l)";
    } else if (tree[id].level == 0) {
      titles[id] = strf("worker %d", id + 1);
      short_titles[id] = std::to_string(id + 1);
    } else if (tree[id].right < 0) {
      titles[id] = "carried up";
      short_titles[id] = "↑";
    } else {
      titles[id] = strf("merge %d", id - K + 1);
      short_titles[id] = std::to_string(id - K + 1);
    }
    const float edge = origin.x + avail.x - (nx[id] - box_w * 0.5f);
    rooms[id] = id == root ? edge : std::min(to_next[id] - 6 * s, edge);
  }
  for (int id = 0; id < root; ++id)
    if (ImGui::CalcTextSize(titles[id].c_str()).x > std::min(box_w + 30 * s, rooms[id]))
      for (int o = 0; o < root; ++o)
        if (tree[o].level == tree[id].level) titles[o] = short_titles[o];
  // The boxes' lines: one form for the tree's m lines and one for its l lines (tree_form), at
  // the labels' size or, where that leaves them without their names, smaller, down to its size
  // at font 1×.
  std::vector<NodeLines> lines;
  for (int id = 0; id < static_cast<int>(tree.size()); ++id) lines.push_back(node_lines(c, id));
  const float line_room = box_w - 10 * s;
  float text_px = fs;
  const float least = std::min(fs, fs * in.floor_s() / s);
  int m_form = tree_form(lines, false, line_room, text_px), l_form = tree_form(lines, true, line_room, text_px);
  while (std::max(m_form, l_form) >= kNamedForms && text_px > least + 0.01f) {
    text_px = std::max(least, text_px - 0.5f * s);
    m_form = tree_form(lines, false, line_room, text_px);
    l_form = tree_form(lines, true, line_room, text_px);
  }
  opt.drawn.line_px = text_px;
  for (int id = 0; id < static_cast<int>(tree.size()); ++id)
    node_box(c, ImVec2(nx[id], top(id)), box_w, titles[id], short_titles[id], rooms[id], id, id == root,
             lines[static_cast<std::size_t>(id)], m_form, l_form, text_px);
  // A move into a merge step (app/ui/model/transition.h): the children's pairs travel down
  // their edges into the node they merge into.
  if (in.tween && in.tween->forward())
    for (int id = K; id < static_cast<int>(tree.size()); ++id) {
      if (!(cell_marks(in.step, bm, row, id) & kMarkWrite)) continue;
      const float u = ease(in.tween->t);
      if (u >= 1.0f) break;
      for (int child : {tree[id].left, tree[id].right}) {
        if (child < 0) continue;
        const ImVec2 a(nx[child], top(child) + box_h), b(nx[id], top(id));
        const float my = (a.y + b.y) * 0.5f, v = 1.0f - u;
        // The edge's cubic: a, (a.x, my), (b.x, my), b.
        const ImVec2 p(v * v * v * a.x + 3 * v * v * u * a.x + 3 * v * u * u * b.x + u * u * u * b.x,
                       v * v * v * a.y + 3 * v * v * u * my + 3 * v * u * u * my + u * u * u * b.y);
        const ImVec2 half(box_w * 0.3f, box_h * 0.25f);
        c.dl->AddRectFilled(ImVec2(p.x - half.x, p.y - half.y), ImVec2(p.x + half.x, p.y + half.y),
                            with_alpha(pal.read, 0.75f * v + 0.25f), 4 * s);
        c.dl->AddRect(ImVec2(p.x - half.x, p.y - half.y), ImVec2(p.x + half.x, p.y + half.y), pal.read, 4 * s, 0,
                      2 * s);
        const std::string t = "m, l";
        text_centered(c.dl, p, text_over(pal.read), t.c_str());
      }
    }
  help_marker_at(ImVec2(origin.x, y + (box_h - fs) * 0.5f),
                 "Each worker runs the online update (m, l) over its own chunk, all at the same time.");
  c.dl->AddText(ImVec2(origin.x + fs * 1.6f, y + (box_h - fs) * 0.5f), pal.text, "workers");
  if (levels > 1) {
    const float ly = y + level_h + (box_h - fs) * 0.5f;
    help_marker_at(ImVec2(origin.x, ly),
                   "Two pairs merge with the same rescaling as the online update: m = max(m_{a}, m_{b}), "
                   "l = l_{a}·exp(m_{a} − m) + l_{b}·exp(m_{b} − m). The merge is associative, so any tree "
                   "gives the same global (m, l): that is what lets a GPU reduce a row in parallel. "
                   "An odd node out is carried up unchanged.");
    c.dl->AddText(ImVec2(origin.x + fs * 1.6f, ly), pal.text, "merges");
  }
  y += static_cast<float>(levels - 1) * level_h + box_h + 12 * s;
  ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
  mark_legend(pal, s, false);
  ImGui::Dummy(ImVec2(avail.x, 0));  // the view's width; no height past the legend
}

// One ID scope per options struct, so two copies of the view (compare mode) never share
// widgets, child windows or textures.
void draw_chunked_view(const ViewInput& in, ChunkedViewOptions& opt) {
  ImGui::PushID(&opt);
  draw_chunked_view_body(in, opt);
  ImGui::PopID();
}

}  // namespace flashstep::ui
