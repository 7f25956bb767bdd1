// The central area: a tab bar with the lesson's own view (vector, chunked or matrix view, and
// the lab that belongs to the lesson), Compare, and the two labs; and the memory window.
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/views/hit_map.h"
#include "app/ui/views/panel_memory.h"
#include "app/ui/views/view_registry.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace flashstep::ui {

ViewInput view_input(const AppState& app) {
  const int k = app.played.cursor->position();
  ViewInput vi{*app.played.rec, *app.played.cursor, k, app.played.step(), palette_of(app.theme), app.ui_scale,
               app.font_1x_scale()};
  vi.tween = app.motion.tween_at(k, app.played.cursor->part());
  return vi;
}

void draw_recording_view(const ViewInput& vi, ViewStates& views, ViewPlace place) {
  if (vi.rec.step_count() == 0) {
    ImGui::TextDisabled("Nothing recorded yet.");
    return;
  }
  const ViewEntry* view = find_view(info(vi.rec.algorithm).view);
  if (!view) {
    ImGui::TextDisabled("No view draws %s.", std::string(algorithm_id(vi.rec.algorithm)).c_str());
    return;
  }
  view->draw(vi, views, place);
}

namespace {

// The tabs' titles for a bar `avail` px wide: the first set whose titles all fit side by side.
struct TabTitles {
  std::string lesson;
  std::vector<std::string> others;
};
TabTitles tab_titles(const std::string& heading, const std::string& numbered, float avail) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const std::vector<std::string> full = {"Steps", "Compare", "Overflow lab", "1/√d lab", "Measure it yourself"};
  const std::vector<std::string> brief = {"Steps", "Compare", "Overflow", "1/√d", "Measure"};
  auto width = [&](const std::string& lesson, const std::vector<std::string>& others) {
    float w = ImGui::CalcTextSize(lesson.c_str()).x;
    for (const std::string& t : others) w += ImGui::CalcTextSize(t.c_str()).x;
    return w + static_cast<float>(others.size() + 1) * (st.FramePadding.x * 2 + st.ItemInnerSpacing.x);
  };
  if (width(heading, full) <= avail) return {heading, full};
  if (width(numbered, full) <= avail) return {numbered, full};
  return {numbered, brief};
}

bool tab(const char* label, Tab which, AppState& app) {
  const ImGuiTabItemFlags flags = app.tab_changed && app.tab == which ? ImGuiTabItemFlags_SetSelected : 0;
  if (!ImGui::BeginTabItem(label, nullptr, flags)) return false;
  if (!app.tab_changed && app.tab != which) {
    app.tab = which;
    if (which == Tab::compare) app.compare.dirty = true;
    app.timeline.pause();
    app.compare.timeline.pause();
  }
  return true;
}

}  // namespace

void draw_lesson_view(AppState& app) {
  ViewInput vi = view_input(app);
  vi.hits = &app.hits;
  draw_recording_view(vi, app.views, ViewPlace::lesson);
  click_to_jump(app);
}

namespace {

// Presentation mode: the shown tab's content without the tab bar and toolbars, under the
// slide's title in the large font.
void draw_presented_view(AppState& app) {
  ImGui::PushFont(font(FontRole::large));
  // The title on one line: Compare's with the algorithms' ids where their titles are too long.
  const std::string full = presented_title(app), brief = presented_title(app, true);
  const bool fits = ImGui::CalcTextSize(full.c_str()).x <= ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted((fits ? full : brief).c_str());
  ImGui::PopFont();
  ImGui::BeginChild("presented-view");
  draw_tab_content(app, app.tab == Tab::steps ? Tab::lesson : app.tab, false);
  draw_pen_layer(app);
  ImGui::EndChild();
}

}  // namespace

bool presented_alone(const AppState& app) {
  switch (app.tab) {
    case Tab::lesson:
    case Tab::steps: return false;
    case Tab::compare: return true;
    case Tab::overflow_lab:
    case Tab::scale_lab:
    case Tab::measure_lab: return app.current_lesson().tab != tab_name(app.tab);
  }
  return false;
}

std::string presented_title(const AppState& app, bool brief) {
  const Lesson& lesson = app.current_lesson();
  // A lesson that opens on the tab (CPU vs GPU on Compare, the 1/√d lab) is titled by itself;
  // brief, without its parenthesis ("4. Chunked online softmax (merge of (m, l) pairs)" went
  // past the slide's left column at font 2×).
  if (!presented_alone(app) || (app.tab == Tab::compare && lesson.tab == tab_name(Tab::compare))) {
    std::string heading = lesson.heading();
    if (const std::size_t paren = heading.find(" ("); brief && paren != std::string::npos) heading.resize(paren);
    return heading;
  }
  switch (app.tab) {
    case Tab::compare: {
      const std::string a(brief ? algorithm_id(app.compare.a) : algorithm_title(app.compare.a));
      const std::string b(brief ? algorithm_id(app.compare.b) : algorithm_title(app.compare.b));
      if (app.compare.a == app.compare.b && app.compare.backend_a != app.compare.backend_b)
        return "Compare: " + a + " on the CPU and the GPU";
      return "Compare: " + a + " vs " + b;
    }
    case Tab::overflow_lab: return "Overflow lab";
    case Tab::scale_lab: return "The 1/√d lab";
    case Tab::measure_lab: return "Measure it yourself";
    default: return lesson.heading();
  }
}

// A lab on a slide, where nothing scrolls: drawn smaller where it needs more room than the slide
// has (a font made larger), down to 3/4 of its font-1× size (the larger title leaves it less
// room than at font 1×), from the room it was seen to need. `draw` takes the scale.
template <class Draw>
void draw_lab_on_slide(AppState& app, Tab t, Draw draw) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size = ImGui::GetWindowSize();
  AppState::PresentedRoom& room = app.presented_rooms[t].at(nullptr, size.x, size.y, app.ui_scale);
  const float scale = fitted_scale(false, room.need, avail.y, app.ui_scale, 0.75f * app.font_1x_scale());
  ImGui::SetWindowFontScale(scale / app.ui_scale);
  draw(scale);
  learn_need(room.need, avail.y, overflow_now(), scale, app.ui_scale);
  ImGui::SetWindowFontScale(1.0f);
}

void draw_tab_content(AppState& app, Tab t, bool toolbars) {
  switch (t) {
    case Tab::lesson: {
      ViewInput vi = view_input(app);
      vi.hits = &app.hits;
      if (toolbars) {
        draw_recording_view(vi, app.views, ViewPlace::lesson);
        break;
      }
      // A slide has nothing to scroll with: a view that needs more room than it has (a font
      // made larger) is drawn smaller, down to its size at font 1×, from what it was seen to need
      // at the steps shown so far. Where even that size does not fit (the larger title leaves
      // less room than at font 1×: the chunked view's tree), smaller still, down to 3/4 of it,
      // from what it was seen to need at that size: views that fill the height they are given
      // (the bars) would otherwise be drawn as small as a guess from the full size made them.
      const ImVec2 avail = ImGui::GetContentRegionAvail();
      const ImVec2 size = ImGui::GetWindowSize();  // its content's width changes with a scroll bar
      AppState::PresentedRoom& room = app.presented_rooms[t].at(app.played.rec, size.x, size.y, app.ui_scale);
      const float floor = app.font_1x_scale();
      const bool matrix = info(app.played.rec->algorithm).view == ViewKind::matrix;
      float scale = fitted_scale(matrix, room.need, avail.y, app.ui_scale, floor);
      if (room.tight > 0)
        scale = std::min(scale, fitted_scale(false, room.tight, avail.y, app.ui_scale, floor * 0.75f));
      ImGui::SetWindowFontScale(scale / app.ui_scale);
      vi.ui_scale = scale;
      vi.floor_scale = std::min(floor, scale);
      vi.shrinks = true;
      draw_recording_view(vi, app.views, ViewPlace::presented);
      learn_need(scale > floor + 1e-3f ? room.need : room.tight, avail.y, overflow_now(), scale, app.ui_scale);
      ImGui::SetWindowFontScale(1.0f);
      break;
    }
    case Tab::steps: draw_steps_table(app); break;
    case Tab::compare: draw_compare(app, toolbars); break;
    case Tab::overflow_lab:
      if (toolbars) draw_overflow_lab(app.overflow_lab, app.ui_scale);
      else draw_lab_on_slide(app, t, [&](float s) { draw_overflow_lab(app.overflow_lab, s); });
      break;
    // It fits itself: its plots take the room there is.
    case Tab::scale_lab: draw_scale_lab(app.scale_lab, app.ui_scale, toolbars ? 0.0f : app.font_1x_scale()); break;
    case Tab::measure_lab:
      if (toolbars) draw_measure_lab(app.measure_lab, app.ui_scale);
      else draw_lab_on_slide(app, t, [&](float s) { draw_measure_lab(app.measure_lab, s, true); });
      break;
  }
}

void draw_view_panel(AppState& app, const PanelRect& r) {
  if (!begin_panel("View", r, &app.panels.view, ImGuiWindowFlags_NoTitleBar)) {
    ImGui::End();
    return;
  }
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  app.hits.add_panel("View", Rect{wp.x, wp.y, ws.x, ws.y, true});
  if (app.presenting) {
    draw_presented_view(app);
    app.tab_changed = false;
    ImGui::End();
    return;
  }
  // The tab bar scrolls rather than shrinking its tabs, so a title is never cut. The lesson's
  // own tab carries its title (the panel has no title bar, to leave the matrices every pixel
  // of height) when every tab fits with it; else "Lesson 9" (the heading is in the Lessons panel
  // and the window's title), and where even that is too wide, the labs' short names.
  if (ImGui::BeginTabBar("tabs", ImGuiTabBarFlags_FittingPolicyScroll)) {
    const Lesson& lesson = app.current_lesson();
    const std::string numbered = "Lesson " + std::to_string(lesson.number);
    const TabTitles titles = tab_titles(lesson.heading(), numbered, ImGui::GetContentRegionAvail().x);
    const std::string lesson_tab = titles.lesson + "###lesson";
    if (tab(lesson_tab.c_str(), Tab::lesson, app)) {
      ImGui::BeginChild("lesson-view");
      draw_lesson_view(app);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab((titles.others[0] + "###steps").c_str(), Tab::steps, app)) {
      draw_steps_table(app);
      ImGui::EndTabItem();
    }
    if (tab((titles.others[1] + "###compare").c_str(), Tab::compare, app)) {
      ImGui::BeginChild("compare-view");
      draw_compare(app);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab((titles.others[2] + "###overflow").c_str(), Tab::overflow_lab, app)) {
      ImGui::BeginChild("overflow-lab");
      draw_overflow_lab(app.overflow_lab, app.ui_scale);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab((titles.others[3] + "###scale").c_str(), Tab::scale_lab, app)) {
      ImGui::BeginChild("scale-lab");
      draw_scale_lab(app.scale_lab, app.ui_scale);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab((titles.others[4] + "###measure").c_str(), Tab::measure_lab, app)) {
      ImGui::BeginChild("measure-lab");
      draw_measure_lab(app.measure_lab, app.ui_scale);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  app.tab_changed = false;
  ImGui::End();
}

namespace {

// Presenting (no mouse to scroll with), the memory panel gets smaller as a whole (text and
// shapes) down to 0.8 of its size; then the counters go into a line (one or two for the table's
// seven); then the comparison gives way (the running numbers the narration speaks of are kept
// before the model's totals); then the line keeps the HBM counters alone, the ones the lessons
// compare; then the counters give way; and then it gets smaller down to `lowest` (half its size
// at font 1×), so that what is shown is never cut.
// Sets the text's scale, the scale in `vi` and `shown`; returns the height it takes.
float fit_memory(ViewInput& vi, const MemoryPanelOptions& opt, float room, MemoryPanelOptions& shown, TextScale& text,
                 float lowest) {
  const float s = vi.ui_scale;
  // What each try shows: the counters (a table or a line) and the comparison.
  using Counters = MemoryPanelOptions::Counters;
  struct Try {
    bool counters;
    Counters as;
    bool comparison;
  };
  static constexpr Try kTries[] = {{true, Counters::table, true},  {true, Counters::line, true},
                                   {true, Counters::line, false}, {true, Counters::hbm_after_boxes, false},
                                   {false, Counters::table, true}, {false, Counters::table, false}};
  constexpr std::size_t kLast = std::size(kTries) - 1;
  float h = 0;
  for (std::size_t k = 0; k <= kLast; ++k) {
    const Try& t = kTries[k];
    if ((t.counters && !opt.show_counters) || (t.comparison && !opt.show_comparison)) continue;
    shown = opt;
    shown.show_counters = t.counters;
    shown.counters_as = t.as;
    shown.show_comparison = t.comparison;
    for (float f = 1.0f; f >= (k < kLast ? 0.8f : lowest) - 0.01f; f -= 0.05f) {
      text.set(f);
      vi.ui_scale = s * f;
      h = memory_panel_height(vi, shown);
      // A few pixels to spare: the measure adds up line heights that the drawing rounds.
      if (h + 4 * s <= room) return h;
    }
  }
  return h;
}

}  // namespace

float memory_window_height(AppState& app) {
  if (app.played.rec->step_count() == 0) return 0;
  ViewInput vi = view_input(app);
  MemoryPanelOptions shown;
  TextScale text;
  return fit_memory(vi, app.memory_panel, 1e9f, shown, text, 1.0f);
}

void draw_memory_window(AppState& app, const PanelRect& r) {
  if (!begin_panel("Memory: HBM and SRAM", r, &app.panels.memory)) {
    ImGui::End();
    return;
  }
  app.memory_panel.sram_budget = info(app.inputs.algorithm).takes_blocks ? app.inputs.M : 0;
  app.memory_panel.hide_whole_run = app.quiz.question() && app.quiz.question()->kind == QuestionKind::hbm_reads;
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  app.hits.add_panel("Memory", Rect{wp.x, wp.y, ws.x, ws.y, true});
  if (app.played.rec->step_count() > 0) {
    ViewInput vi = view_input(app);
    vi.hits = &app.hits;
    if (app.presenting) {
      MemoryPanelOptions shown = app.memory_panel;
      TextScale text;
      const float s = vi.ui_scale;
      fit_memory(vi, app.memory_panel, ImGui::GetContentRegionAvail().y, shown, text, lowest_text_scale(app.font_scale));
      draw_memory_panel(vi, shown);
      app.memory_panel.drawn = {shown.show_counters, shown.counters_as, shown.show_comparison, vi.ui_scale / s};
    } else {
      draw_memory_panel(vi, app.memory_panel);
      MemoryPanelOptions& o = app.memory_panel;
      o.drawn = {o.show_counters, o.counters_as, o.show_comparison, 1.0f};
    }
  }
  ImGui::End();
}

}  // namespace flashstep::ui
