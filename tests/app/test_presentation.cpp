// Presentation mode and the projector theme: no tooltip covers the projected view, the memory
// panel is there (M hides it), and every text colour of the projector theme reaches a contrast
// of 7:1 against the backgrounds it is drawn on (WCAG 2's contrast ratio, its AAA level).
#include "tests/app/headless.h"
#include "tests/sample.h"

#include "app/ui/labs/lab_scale.h"
#include "app/ui/panels/panels.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/lessons.h"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

bool tooltip_drawn() {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if ((w->Flags & ImGuiWindowFlags_Tooltip) && w->Active) return true;
  return false;
}

// `lesson`'s Compare tab on the pair a, b, recorded on this thread at the next frame.
void open_compare(AppState& app, const char* lesson, Algorithm a, Algorithm b, bool presenting) {
  app.background_allowed = false;
  REQUIRE(app.open_lesson(lesson));
  app.tab = Tab::compare;
  app.tab_changed = true;
  app.compare.a = a;
  app.compare.b = b;
  app.compare.dirty = true;
  app.presenting = presenting;
}

// Compare's two view windows on a slide (children of the presented region), as drawn last frame.
std::vector<const ImGuiWindow*> presented_compare_views() {
  std::vector<const ImGuiWindow*> out;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    const std::string wn = w->Name;
    const std::size_t at = wn.find("/presented-view_");
    if (!w->Active || at == std::string::npos) continue;
    const std::size_t v = wn.find("/view_", at + 1);
    if (v != std::string::npos && wn.find('/', v + 1) == std::string::npos) out.push_back(w);
  }
  return out;
}

// The Compare tab opened by open_compare, at its first, middle and last step, each after the
// frames its layout takes to settle (a window's scroll range is that of the frame before; the
// text and the views take the room the views were seen to need in the frame before that).
template <class Check>
void at_compare_steps(Headless& h, AppState& app, Check check) {
  h.frame(app);
  const int n = app.compare.timeline.count();
  REQUIRE(n > 2);
  for (const int k : {0, n / 2, n - 1}) {
    CAPTURE(k);
    app.seek_active(k);
    for (int f = 0; f < 4; ++f) h.frame(app);
    check();
  }
}

// Relative luminance of an sRGB colour (WCAG 2.x), and the contrast ratio of two colours.
double channel(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double luminance(const ImVec4& c) {
  return 0.2126 * channel(c.x) + 0.7152 * channel(c.y) + 0.0722 * channel(c.z);
}
double contrast(const ImVec4& a, const ImVec4& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
// A colour with alpha drawn over an opaque background.
ImVec4 over(const ImVec4& c, const ImVec4& bg) {
  return ImVec4(c.x * c.w + bg.x * (1 - c.w), c.y * c.w + bg.y * (1 - c.w), c.z * c.w + bg.z * (1 - c.w), 1);
}

}  // namespace

TEST_CASE("presentation: the pointer resting on a cell opens no tooltip (it does outside presentation)") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  ImGuiIO& io = ImGui::GetIO();
  bool shown_somewhere = false;
  // Points over the view in both modes; outside presentation at least one of them is a cell.
  for (float fx : {0.25f, 0.35f, 0.45f, 0.55f}) {
    for (float fy : {0.3f, 0.4f, 0.5f}) {
      app.presenting = false;
      for (int i = 0; i < 3; ++i) {
        io.MousePos = ImVec2(io.DisplaySize.x * fx, io.DisplaySize.y * fy);
        h.frame(app);
      }
      shown_somewhere |= tooltip_drawn();
      app.presenting = true;
      for (int i = 0; i < 3; ++i) {
        io.MousePos = ImVec2(io.DisplaySize.x * fx, io.DisplaySize.y * fy);
        h.frame(app);
        CHECK_FALSE(tooltip_drawn());
      }
    }
  }
  CHECK(shown_somewhere);
}

TEST_CASE("presentation: the memory panel is shown under the view, and M hides and shows it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  app.presenting = true;
  h.frame(app);
  CHECK(Headless::drawn("Memory: HBM and SRAM"));
  h.press(app, GLFW_KEY_M);
  CHECK_FALSE(Headless::drawn("Memory: HBM and SRAM"));
  h.press(app, GLFW_KEY_M);
  CHECK(Headless::drawn("Memory: HBM and SRAM"));
}

TEST_CASE("projector theme: every text colour reaches 7:1 against the backgrounds it is drawn on") {
  ImGuiContext* ctx = ImGui::CreateContext();
  apply_style(1.0f, Theme::projector);
  const ImGuiStyle& st = ImGui::GetStyle();
  const ImVec4 clear = clear_colour(Theme::projector);
  const std::pair<const char*, ImGuiCol> backgrounds[] = {
      {"FrameBg", ImGuiCol_FrameBg},   {"TitleBg", ImGuiCol_TitleBg},     {"TitleBgActive", ImGuiCol_TitleBgActive},
      {"Button", ImGuiCol_Button},     {"ButtonHovered", ImGuiCol_ButtonHovered},
      {"Header", ImGuiCol_Header},     {"HeaderHovered", ImGuiCol_HeaderHovered},
      {"Tab", ImGuiCol_Tab},           {"TabActive", ImGuiCol_TabActive}, {"PopupBg", ImGuiCol_PopupBg},
      {"MenuBarBg", ImGuiCol_MenuBarBg},
  };
  auto check_text = [&](const std::string& text_name, const ImVec4& text) {
    CAPTURE(text_name);
    CHECK(contrast(text, clear) >= 7.0);
    for (const auto& [bg_name, col] : backgrounds) {
      const std::string name = bg_name;
      CAPTURE(name);
      const ImVec4 bg = over(st.Colors[col], clear);
      CHECK(contrast(text, bg) >= 7.0);
    }
  };
  check_text("Text", st.Colors[ImGuiCol_Text]);
  // Secondary text is drawn on the panels' background, fields and title bars only.
  const ImVec4 dim = st.Colors[ImGuiCol_TextDisabled];
  CHECK(contrast(dim, clear) >= 7.0);
  CHECK(contrast(dim, over(st.Colors[ImGuiCol_FrameBg], clear)) >= 7.0);
  CHECK(contrast(dim, over(st.Colors[ImGuiCol_TitleBg], clear)) >= 7.0);

  // The views' own text colours on the view's background.
  const Palette& p = palette_of(Theme::projector);
  const ImVec4 view_bg = ImGui::ColorConvertU32ToFloat4(p.background);
  CHECK(contrast(ImGui::ColorConvertU32ToFloat4(p.text), view_bg) >= 7.0);
  CHECK(contrast(ImGui::ColorConvertU32ToFloat4(p.text_dim), view_bg) >= 7.0);
  ImGui::DestroyContext(ctx);
}

TEST_CASE("every theme: tooltips, menus and popups are opaque, so the view under them does not show through") {
  ImGuiContext* ctx = ImGui::CreateContext();
  for (Theme theme : {Theme::dark, Theme::light, Theme::projector}) {
    CAPTURE(static_cast<int>(theme));
    apply_style(1.0f, theme);
    CHECK(ImGui::GetStyle().Colors[ImGuiCol_PopupBg].w == 1.0f);
  }
  ImGui::DestroyContext(ctx);
}

TEST_CASE("matrix view: cell numbers are drawn at 11 px or more, or not at all with a hint, in the window and presenting") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (const Lesson& l : lessons()) {
    if (info(l.scenario.algorithm).view != ViewKind::matrix) continue;
    for (bool presenting : {false, true}) {
      for (ImVec2 size : {ImVec2(1280, 800), ImVec2(1920, 1080), ImVec2(3840, 2160)}) {
        CAPTURE(l.id);
        CAPTURE(presenting);
        CAPTURE(size.x);
        io.DisplaySize = size;
        AppState app;
        app.background_allowed = false;
        REQUIRE(app.open_lesson(l.id));
        app.tab = Tab::lesson;
        app.presenting = presenting;
        bool drawn_any = false;
        for (int k : {0, app.timeline.count() / 2, app.timeline.count() - 1}) {
          app.seek(k);
          for (int f = 0; f < 3; ++f) h.frame(app);
          const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
          CHECK((d.number_px == 0.0f || d.number_px >= kMinCellTextPx * app.ui_scale));
          drawn_any |= d.number_px > 0;
        }
        // On a 4K screen a small lesson's matrices have room for their numbers.
        if (size.x > 3000 && app.played.rec->n <= 16) CHECK(drawn_any);
      }
    }
  }
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("matrix view: a double-clicked tile fills the view with readable numbers, and a second double-click fits all") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  app.seek(5);
  for (int f = 0; f < 3; ++f) h.frame(app);
  REQUIRE(app.views.get<MatrixViewOptions>().zoom == 0.0f);
  // Double-click across the view until a matrix cell is hit.
  bool zoomed = false;
  for (float fy = 0.15f; fy < 0.6f && !zoomed; fy += 0.05f)
    for (float fx = 0.25f; fx < 0.7f && !zoomed; fx += 0.05f) {
      const ImVec2 p(io.DisplaySize.x * fx, io.DisplaySize.y * fy);
      h.click(app, p);
      h.click(app, p);  // within the double-click time: ImGui's clock advances 1/60 s a frame
      zoomed = app.views.get<MatrixViewOptions>().zoom > 0.0f;
    }
  REQUIRE(zoomed);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const MatrixViewOptions::ZoomTarget& z = app.views.get<MatrixViewOptions>().zoom_target;
  CHECK(z.buffer == -1);  // brought into view, then done
  CHECK(app.views.get<MatrixViewOptions>().drawn.number_px >= kMinCellTextPx);
  // The region (a tile of Br × Bc = 4 × 4, or a block) takes most of the view: cells are large.
  CHECK(app.views.get<MatrixViewOptions>().zoom >= 30.0f);
  // Double-click any cell again (the zoomed tile fills the middle of the view).
  bool fitted = false;
  for (float fy = 0.15f; fy < 0.6f && !fitted; fy += 0.05f)
    for (float fx = 0.25f; fx < 0.7f && !fitted; fx += 0.05f) {
      const ImVec2 p(io.DisplaySize.x * fx, io.DisplaySize.y * fy);
      h.click(app, p);
      h.click(app, p);
      fitted = app.views.get<MatrixViewOptions>().zoom == 0.0f;
    }
  CHECK(fitted);
}

TEST_CASE("wrapping text into no room at all cuts it into characters and never fails") {
  Headless h;
  ImGui::NewFrame();
  for (float w : {0.0f, -5.0f, 1.0f}) {
    CAPTURE(w);
    const std::vector<std::string> lines = wrap_words("HBM traffic for N = 8", w);
    std::string joined;
    for (const std::string& l : lines) joined += l;
    CHECK(joined == "HBMtrafficforN=8");
  }
  ImGui::EndFrame();
}

TEST_CASE("wrapping keeps a bracket whole where the line before stays at least half full, in plain and rich text") {
  Headless h;
  ImGui::NewFrame();
  const float size = ImGui::GetFontSize();
  const auto plain_w = [](const char* t) { return ImGui::CalcTextSize(t).x; };
  using Lines = std::vector<std::string>;
  // Plain words would break after "−"; the bracket goes whole to the next line.
  const char* text = "the new running maximum is exp(s − m) here";
  float w = plain_w("the new running maximum is exp(s −") + 1;
  CHECK(wrap_words(text, w) == Lines{"the new running maximum is", "exp(s − m) here"});
  CHECK(wrap_rich(text, w, size) == Lines{"the new running maximum is", "exp(s − m) here"});
  // Where the bracket would leave a short line behind, it breaks inside as before.
  const char* short_first = "m = max(1000, 2000, 3000, 4000, 5000)";
  w = plain_w("m = max(1000, 2000,") + 1;
  CHECK(wrap_words(short_first, w) == Lines{"m = max(1000, 2000,", "3000, 4000, 5000)"});
  CHECK(wrap_rich(short_first, w, size) == Lines{"m = max(1000, 2000,", "3000, 4000, 5000)"});
  // A bracket wider than the line breaks inside; nothing is lost.
  w = plain_w("max(1000, 2000,") + 1;
  const Lines cut = wrap_words("max(1000, 2000, 3000, 4000)", w);
  CHECK(cut == Lines{"max(1000, 2000,", "3000, 4000)"});
  // Rich text counts its lines as it breaks them, brackets included, at every width.
  const char* rich = "P̃_{ij} = exp(S_{ij} − m̃_{ij}), l̃_{ij} = rowsum(P̃_{ij}) and m_i^{new} = max(m_i, m̃_{ij})";
  MeasuredTexts texts = measured_texts(size);
  measure_rich(texts, rich);
  for (float width = 20; width < 600; width += 3) {
    CAPTURE(width);
    CHECK(texts.lines(0, width) == static_cast<int>(wrap_rich(rich, width, size).size()));
  }
  ImGui::EndFrame();
}

TEST_CASE("presentation: R runs the Measure tab's measurement, where the mouse cannot, and R again cancels it") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("measure"));
  REQUIRE(tab_name(app.tab) == std::string("measure-lab"));
  app.measure_lab.max_attention_log2 = 9;  // N = 512 only: quick
  app.measure_lab.gpu = false;
  app.presenting = true;
  h.frame(app);
  CHECK_FALSE(app.measure_lab.running);
  h.press(app, GLFW_KEY_R);
  CHECK(app.measure_lab.running);
  h.press(app, GLFW_KEY_R);
  CHECK(app.measure_lab.cancel);
  stop_measure(app.measure_lab);
  CHECK_FALSE(app.measure_lab.running);
  // In another tab R is nothing.
  REQUIRE(app.open_lesson("online"));
  h.press(app, GLFW_KEY_R);
  CHECK_FALSE(app.measure_lab.running);
}

TEST_CASE("each lab lays out its controls and plots inside its panel in the window, in pictures and presenting") {
  // A help marker draws nothing in a picture (presentation mode, shots): a SameLine before it left
  // the Measure tab's next item on the line before, so its attention plots went past the panel's
  // right edge and its controls beside the blocks' line. Nothing a lab lays out may reach past its
  // right edge.
  struct Lab {
    const char* lesson;
    Tab tab;
    const char* name;  // as tabs and panels are named
  };
  struct Mode {
    const char* name;
    bool picture, presenting, panel;
    ImVec2 display;
  };
  for (const Lab& l : {Lab{"measure", Tab::measure_lab, "measure-lab"}, Lab{"scale", Tab::scale_lab, "scale-lab"},
                       Lab{"naive", Tab::overflow_lab, "overflow-lab"}})
    for (const Mode& m : {Mode{"window", false, false, false, {1280, 800}}, Mode{"shot", true, false, false, {1280, 800}},
                          Mode{"shot --panel", true, false, true, {1280, 800}},
                          Mode{"presenting", false, true, false, {1920, 1080}}}) {
      const std::string lab_name = l.name, mode = m.name;
      CAPTURE(lab_name);
      CAPTURE(mode);
      Headless h;
      ImGui::GetIO().DisplaySize = m.display;
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.lesson));
      app.tab = l.tab;
      app.presenting = m.presenting;
      FrameOptions opt;
      opt.picture = m.picture;
      if (m.panel) opt.panel = l.name;
      h.frame(app, opt);
      h.frame(app, opt);
      REQUIRE(app.tab == l.tab);
      // The window the lab draws in: the view panel's child for it, the presented view, or the
      // exported panel alone.
      const ImGuiWindow* window = nullptr;
      for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        const std::string name = w->Name;
        if (w->Active && (name.find("/" + lab_name + "_") != std::string::npos ||
                          name.find("/presented-view_") != std::string::npos || name == "##panel-alone"))
          window = w;
      }
      REQUIRE(window != nullptr);
      const std::string window_name = window->Name;
      CAPTURE(window_name);
      CHECK(window->DC.CursorMaxPos.x <= window->WorkRect.Max.x + 1.0f);
    }
}

TEST_CASE("1/sqrt(d) lab: each plot's number sits above its bars and on a slide the plots take the room with nothing to scroll") {
  // ImGui's histogram wrote its overlay ("variance 66.3 ≈ d") over the middle bars, and on a
  // slide the plots kept their window height above half a slide of nothing.
  Headless h;
  for (const bool presenting : {false, true})
    for (const float font : {1.0f, 2.0f}) {
      CAPTURE(presenting);
      CAPTURE(font);
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_at(app, "scale", Tab::scale_lab, presenting, font);
      for (int f = 0; f < 4; ++f) h.frame(app);
      const ScaleLab::Drawn& d = app.scale_lab.drawn;
      REQUIRE(d.bars.size() == 4);
      REQUIRE(d.statistic.size() == 4);
      for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        const auto& bars = d.bars[i];
        const auto& text = d.statistic[i];
        CHECK(text[1] + text[3] <= bars[1] + 0.5f);  // the number's line ends where the bars may begin
        CHECK(text[0] >= bars[0] - 4.0f * app.ui_scale);
        CHECK(text[0] + text[2] <= bars[0] + bars[2] + 4.0f * app.ui_scale);
      }
      // The plots take what the rest leaves: the lab fills its region (to a line of it) unless
      // they are at their largest; it goes past it only where they are at their smallest (the
      // window scrolls), never on a slide.
      const float line = ImGui::GetTextLineHeightWithSpacing();
      if (d.plot_h < d.most - 0.5f) CHECK(d.used >= d.room - line);
      if (d.plot_h > d.least + 0.5f || presenting) CHECK(d.used <= d.room + 1.0f);
      if (presenting)
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
          const std::string name = w->Name;
          if (w->Active && name.find("/presented-view_") != std::string::npos) CHECK(w->ScrollMax.y == 0.0f);
        }
    }
  restore_window();
}

TEST_CASE("every lab on a slide at font 1x 1.5x and 2x has nothing to scroll") {
  // A slide has no scroll bar: at font 2× the Overflow lab's tables and the Measure tab's
  // softmax plot went below its edge.
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  for (const Tab tab : {Tab::overflow_lab, Tab::scale_lab, Tab::measure_lab})
    for (const char* lesson : {"online", "scale", "measure"})
      for (const float font : {1.0f, 1.5f, 2.0f}) {
        const std::string name(tab_name(tab));
        CAPTURE(name);
        CAPTURE(lesson);
        CAPTURE(font);
        AppState app;
        open_at(app, lesson, tab, true, font);
        for (int f = 0; f < 4; ++f) h.frame(app);
        bool seen = false;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
          const std::string window = w->Name;
          if (!w->Active || window.find("/presented-view_") == std::string::npos) continue;
          seen = true;
          CHECK(w->ScrollMax.y == 0.0f);
          CHECK(w->ScrollMax.x == 0.0f);
        }
        CHECK(seen);
      }
  restore_window();
}

TEST_CASE("the Compare tab's softmax views hold their bars and registers at every step, with nothing to scroll, in the window and presenting") {
  // Presenting there is no mouse to scroll with: what a view's region does not hold is not seen.
  // In the Compare tab's narrow columns the registers take two lines (online softmax's rescale
  // factor on the second); the bars used to leave room for one, and l went below the region.
  struct Pair {
    Algorithm a, b;
  };
  for (const bool presenting : {false, true})
    for (const Pair& pair : {Pair{Algorithm::safe, Algorithm::online}, Pair{Algorithm::naive, Algorithm::online},
                             Pair{Algorithm::online, Algorithm::logsumexp}}) {
      CAPTURE(presenting);
      const std::string a(algorithm_id(pair.a)), b(algorithm_id(pair.b));
      CAPTURE(a);
      CAPTURE(b);
      Headless h;
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      open_compare(app, "online", pair.a, pair.b, presenting);
      h.frame(app);
      REQUIRE(app.compare.timeline.count() > 4);
      for (int k = 0; k < app.compare.timeline.count(); ++k) {
        CAPTURE(k);
        app.seek_active(k);
        h.frame(app);
        h.frame(app);  // a window's scroll range is that of the frame before
        int views = 0;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
          const std::string name = w->Name;
          if (!w->Active || name.find("/view_") == std::string::npos) continue;
          ++views;
          CAPTURE(name);
          CHECK(w->ScrollMax.y == 0.0f);
        }
        CHECK(views == 2);
      }
    }
}

namespace {

bool same(const Rect& a, const Rect& b) {
  return std::fabs(a.x - b.x) < 0.5f && std::fabs(a.y - b.y) < 0.5f && std::fabs(a.w - b.w) < 0.5f &&
         std::fabs(a.h - b.h) < 0.5f;
}

}  // namespace

TEST_CASE("matrix view: at every step of every attention lesson, the step's numbers are drawn at 11 px or more, at 1280×800 and presenting at 1920×1080, and presenting the band's cells too") {
  // Either every matrix has its numbers, or the close-up under them shows the step's rows.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  // The sample (tests/sample.h): every lesson with a matrix view in one of the three modes,
  // the mode turning from lesson to lesson.
  std::size_t li = 0;
  for (const Lesson& l : lessons()) {
    if (info(l.scenario.algorithm).view != ViewKind::matrix) continue;
    const std::size_t lesson = li++;
    for (int mode = 0; mode < 3; ++mode) {
      if (!sample::keeps(lesson, static_cast<std::size_t>(mode), 3)) continue;
      // The window; presenting (× 1.5); presenting after Ctrl+= twice (font 1.5×, so × 2.25).
      const float scale = mode == 0 ? 1.0f : mode == 1 ? 1.5f : 2.25f;
      CAPTURE(l.id);
      CAPTURE(scale);
      io.DisplaySize = mode == 0 ? ImVec2(1280, 800) : ImVec2(1920, 1080);
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.id));
      // A lesson that opens on a lab (Measure it yourself, N = 64 with 16 × 16 tiles) is
      // looked at in its lesson tab, as the window's first tab shows it.
      app.tab = Tab::lesson;
      app.tab_changed = true;
      app.presenting = mode > 0;
      app.set_font_scale(mode == 2 ? 1.5f : 1.0f);
      use_scale(app, scale, mode == 0 ? Theme::dark : Theme::projector);
      h.at_steps(app, 12, 3, [&] {
        const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
        const bool all_numbers = !d.numbers_hidden && d.number_px >= kMinCellTextPx * scale;
        // Where a font made larger leaves too little room, the close-up's numbers give way
        // down to their size at font 1× (11 px times the screen's and presenting's scale).
        CHECK((all_numbers || d.close_up_px >= kMinCellTextPx * scale / app.font_scale));
        // Presenting at font 1×, the band of matrices above the close-up is read from the back
        // of the room too: its cells at least as tall as the window's smallest text (11 px),
        // wherever N rows of such cells fit in the view at all (not N = 64: zoom is for that).
        const Recording& rec = *app.played.rec;
        if (mode == 1 && static_cast<float>(rec.n) * kMinCellTextPx <= d.area.h) {
          for (const auto& matrix : d.matrices) {
            const auto& buffer = rec.buffers[static_cast<std::size_t>(matrix.first)];
            if (buffer.place == Place::above) continue;
            CAPTURE(buffer.name);
            CHECK(matrix.second.h / static_cast<float>(rec.n) >= kMinCellTextPx);
          }
        }
      });
    }
  }
  restore_window();
}

TEST_CASE("presentation: the matrices stay where they are from step to step, at font 1.5× and 2× too") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  // The sample (tests/sample.h): every lesson at one font size, the size turning from lesson to
  // lesson, every step of it.
  const std::array<const char*, 4> ids = {"attn-naive", "attn-online", "attn-tiled", "attn-tiled-v2"};
  for (std::size_t li = 0; li < ids.size(); ++li) {
    const char* id = ids[li];
    for (std::size_t si = 0; si < 3; ++si) {
      if (!sample::keeps(li, si, 3)) continue;
      const float scale = std::array<float, 3>{1.5f, 2.25f, 3.0f}[si];
      CAPTURE(id);
      CAPTURE(scale);
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(id));
      app.presenting = true;
      app.set_font_scale(scale / 1.5f);
      use_scale(app, scale, Theme::projector);
      std::vector<std::pair<int, Rect>> first;
      Rect first_close;
      for (int k = 0; k < app.timeline.count(); ++k) {
        CAPTURE(k);
        app.seek(k);
        for (int f = 0; f < 2; ++f) h.frame(app);
        const MatrixViewOptions::Drawn& d = app.views.get<MatrixViewOptions>().drawn;
        if (k == 0) {
          first = d.matrices;
          first_close = d.close_up;
          continue;
        }
        REQUIRE(d.matrices.size() == first.size());
        for (std::size_t m = 0; m < first.size(); ++m) {
          CAPTURE(m);
          CHECK(d.matrices[m].first == first[m].first);
          CHECK(same(d.matrices[m].second, first[m].second));
        }
        CHECK(same(d.close_up, first_close));
      }
    }
  }
  AppState app;
  use_scale(app, 1.0f, Theme::dark);
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("matrix view: a double-click on a tile of S zooms in on that tile, in view") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  app.seek(5);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const Recording& rec = *app.played.rec;
  const int bS = rec.find_buffer("S");
  auto rect_of = [&](int buffer) {
    for (const auto& [b, r] : app.views.get<MatrixViewOptions>().drawn.matrices)
      if (b == buffer) return r;
    return Rect{};
  };
  for (int i : {2, 1}) {
    for (int j : {2, 0}) {
      CAPTURE(i);
      CAPTURE(j);
      REQUIRE(app.views.get<MatrixViewOptions>().zoom == 0.0f);
      const Rect s = rect_of(bS);
      REQUIRE(s.shown);
      const float cell = s.w / static_cast<float>(rec.n);
      // The middle of tile (i, j) of S.
      const ImVec2 p(s.x + (static_cast<float>(j * rec.Bc) + 0.5f * static_cast<float>(rec.Bc)) * cell,
                     s.y + (static_cast<float>(i * rec.Br) + 0.5f * static_cast<float>(rec.Br)) * cell);
      h.click(app, p);
      h.click(app, p);
      REQUIRE(app.views.get<MatrixViewOptions>().zoom > 0.0f);
      for (int f = 0; f < 4; ++f) h.frame(app);
      // The tile's cells are on screen, inside the matrices' visible area.
      const Rect z = rect_of(bS);
      const float zc = z.w / static_cast<float>(rec.n);
      const float x0 = z.x + static_cast<float>(j * rec.Bc) * zc, x1 = x0 + static_cast<float>(rec.Bc) * zc;
      const float y0 = z.y + static_cast<float>(i * rec.Br) * zc, y1 = y0 + static_cast<float>(rec.Br) * zc;
      const Rect& a = app.views.get<MatrixViewOptions>().drawn.area;
      CHECK(x0 >= a.x - 1);
      CHECK(x1 <= a.x + a.w + 1);
      CHECK(y0 >= a.y - 1);
      CHECK(y1 <= a.y + a.h + 1);
      CHECK(app.views.get<MatrixViewOptions>().drawn.number_px >= kMinCellTextPx);
      // Again: back to fit.
      const ImVec2 q((x0 + x1) * 0.5f, (y0 + y1) * 0.5f);
      h.click(app, q);
      h.click(app, q);
      for (int f = 0; f < 3; ++f) h.frame(app);
    }
  }
}

namespace {

// How far a panel's contents run past its bottom edge (0: all of it shows), from the last frame.
float overflow(const char* name) {
  const ImGuiWindow* w = ImGui::FindWindowByName(name);
  if (!w || !w->Active) return 0.0f;
  return std::max(w->ScrollMax.y, 0.0f);
}

}  // namespace

TEST_CASE("presentation at 1920×1080 in the projector theme: the explanation, the pseudocode and the memory panel show all they hold at font 1× and 1.5×") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  // The sample (tests/sample.h): every lesson at one of the two font sizes, in turn.
  const std::array<const char*, 5> ids = {"attn-naive", "attn-online", "attn-tiled", "attn-tiled-v2", "measure"};
  for (std::size_t li = 0; li < ids.size(); ++li) {
    const std::string id = ids[li];
    // Presenting multiplies the font by 1.5; Ctrl+= twice makes the font 1.5×.
    for (std::size_t si = 0; si < 2; ++si) {
      if (!sample::keeps(li, si, 2)) continue;
      const float scale = si == 0 ? 1.5f : 2.25f;
      CAPTURE(id);
      CAPTURE(scale);
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(id));
      app.tab = Tab::lesson;
      app.tab_changed = true;
      app.presenting = true;
      use_scale(app, scale, Theme::projector);
      h.at_steps(app, 8, 4, [&] {
        CHECK(overflow("Explanation") == 0.0f);
        CHECK(overflow("Pseudocode") == 0.0f);
        CHECK(overflow("Memory: HBM and SRAM") == 0.0f);
      });
    }
  }
  AppState app;
  use_scale(app, 1.0f, Theme::dark);
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("presentation at 1920×1080, font 1×: every lesson's memory panel shows its counters (a table or a line) at 0.8 of its size or more, at its first, middle and last step") {
  // A slide has no scroll bar: the panel used to drop its counters wherever the table of seven
  // lines did not fit, on every lesson but the smallest.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  std::size_t shown = 0;
  for (const Lesson& lesson : lessons()) {
    CAPTURE(lesson.id);
    AppState app;
    app.motion.enabled = false;
    open_at(app, lesson.id.c_str(), Tab::lesson, true);
    h.frame(app);
    const int n = app.timeline.count();
    bool drawn = false;
    for (const int k : {0, n / 2, n - 1}) {
      CAPTURE(k);
      app.seek(k);
      for (int f = 0; f < 4; ++f) h.frame(app);
      if (!Headless::drawn("Memory: HBM and SRAM")) continue;
      drawn = true;
      const MemoryPanelOptions::Drawn& d = app.memory_panel.drawn;
      CHECK(d.counters);
      CHECK(d.scale >= 0.8f - 1e-4f);
      CHECK(overflow("Memory: HBM and SRAM") == 0.0f);
    }
    shown += drawn;
  }
  // Every lesson's own tab presents the memory panel under its view.
  CHECK(shown == lessons().size());
  restore_window();
}

TEST_CASE("presentation: every lesson's view holds what it draws with nothing to scroll, at font 1×, 1.5× and 2×, at its first, middle and last step") {
  // A slide has no scroll bar to reach for. At font 2× online softmax's view went past the
  // slide's bottom (its registers half cut, its legend and rescale factor gone), its bars flat.
  // The sample (tests/sample.h): every lesson at one of the three font sizes, in turn.
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  for (std::size_t li = 0; li < lessons().size(); ++li) {
    const Lesson& lesson = lessons()[li];
    for (std::size_t si = 0; si < 3; ++si) {
      if (!sample::keeps(li, si, 3)) continue;
      const float font = std::array<float, 3>{1.0f, 1.5f, 2.0f}[si];
      CAPTURE(lesson.id);
      CAPTURE(font);
      AppState app;
      app.background_allowed = false;
      app.motion.enabled = false;
      REQUIRE(app.open_lesson(lesson.id));
      app.tab = Tab::lesson;
      app.tab_changed = true;
      app.presenting = true;
      app.set_font_scale(font);
      use_scale(app, kPresentationScale * font, Theme::projector);
      h.frame(app);
      const int n = app.timeline.count();
      for (const int k : {0, n / 2, n - 1}) {
        CAPTURE(k);
        app.seek(k);
        for (int f = 0; f < 4; ++f) h.frame(app);
        int regions = 0;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
          const std::string wn = w->Name;
          const std::size_t at = wn.find("/presented-view_");
          if (!w->Active || at == std::string::npos) continue;
          CAPTURE(wn);
          regions += wn.find('/', at + 1) == std::string::npos;
          CHECK(w->ScrollMax.y == 0.0f);
        }
        CHECK(regions == 1);
      }
    }
  }
  AppState app;
  use_scale(app, 1.0f, Theme::dark);
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("presentation: on the Measure tab the bottom line tells the measurement, not the lesson's step counter") {
  Headless h;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("measure"));
  REQUIRE(app.tab == Tab::measure_lab);
  app.measure_lab.max_attention_log2 = 9;  // N = 512 only: quick
  app.measure_lab.gpu = false;
  app.presenting = true;
  h.frame(app);
  CHECK(presentation_status(app) == "Nothing measured yet");
  h.press(app, GLFW_KEY_R);
  REQUIRE(app.measure_lab.running.load());
  const std::string running = presentation_status(app);
  CHECK(running.find("step") == std::string::npos);
  while (app.measure_lab.running.load()) h.frame(app);  // ends on its own: one size
  stop_measure(app.measure_lab);
  std::size_t points = 0;
  {
    std::lock_guard<std::mutex> lock(app.measure_lab.mutex);
    points = app.measure_lab.points.size();
  }
  REQUIRE(points > 1);
  CHECK(presentation_status(app) == std::to_string(points) + " points measured");
  // The lesson's own tab keeps its step counter.
  REQUIRE(app.open_lesson("online"));
  CHECK(presentation_status(app).find("step 1/") != std::string::npos);
}

TEST_CASE("presentation: Compare, and a lab the lesson does not open on, are slides of their own under their own title, and a lab lesson keeps its worked example beside its lab") {
  // The lesson's explanation, pseudocode and memory panel follow the lesson's playhead: beside
  // Compare (its own playhead, its own sentences) or beside a lab the lesson is not about, they
  // told another story than the slide. Every lesson on every tab that can be presented alone.
  const Tab tabs[] = {Tab::compare, Tab::overflow_lab, Tab::scale_lab, Tab::measure_lab};
  for (const Lesson& l : lessons())
    for (const Tab t : tabs) {
      const std::string tab(tab_name(t));
      CAPTURE(l.id);
      CAPTURE(tab);
      Headless h;
      ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.id));
      app.tab = t;
      app.tab_changed = true;
      app.presenting = true;
      h.frame(app);
      h.frame(app);
      REQUIRE(app.tab == t);
      const bool alone = t == Tab::compare || l.tab != tab;
      CHECK(Headless::drawn("Explanation") == !alone);
      CHECK(Headless::drawn("Pseudocode") == !alone);
      if (alone) CHECK_FALSE(Headless::drawn("Memory: HBM and SRAM"));
      const ImGuiWindow* view = ImGui::FindWindowByName("View");
      REQUIRE(view != nullptr);
      if (alone) CHECK(view->Size.x == doctest::Approx(1920.0));
      else CHECK(view->Size.x < 1920.0f * 0.75f);
      const std::string title = presented_title(app);
      CAPTURE(title);
      if (t == Tab::compare && l.tab != tab) {
        // The two algorithms the views show, by their titles.
        REQUIRE(app.compare.left.rec);
        REQUIRE(app.compare.right.rec);
        CHECK(title.find(std::string(algorithm_title(app.compare.left.rec->algorithm))) != std::string::npos);
        CHECK(title.find(std::string(algorithm_title(app.compare.right.rec->algorithm))) != std::string::npos);
      } else if (!alone || t == Tab::compare) {
        CHECK(title == l.heading());
      } else {
        CHECK(title != l.heading());
        CHECK(title.find(std::to_string(l.number) + ".") == std::string::npos);
        // The step counter under a lab of its own is the lesson's, which → goes back to: it says so.
        if (t != Tab::measure_lab)
          CHECK(presentation_status(app).rfind("Lesson " + std::to_string(l.number) + ": ", 0) == 0);
      }
    }
}

TEST_CASE("the Compare tab holds both sides, their views and their sentences, with nothing to scroll, for every preset at its first, middle and last step, in the window and presenting") {
  // Room under the views is left for the longest sentence either side shows at any step; with a
  // fixed allowance the attention pairs' three-line sentences went below the region.
  // Presenting at the scale of a slide (kPresentationScale) and with the font made larger (1.5×, 2×).
  for (const float scale : {1.0f, kPresentationScale, kPresentationScale * 1.5f, kPresentationScale * 2.0f})
    for (const ComparePreset& p : compare_presets()) {
      const bool presenting = scale > 1.0f;
      const std::string name(p.name);
      CAPTURE(scale);
      CAPTURE(name);
      Headless h;
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      if (presenting) {
        app.set_font_scale(scale / kPresentationScale);
        use_scale(app, scale, Theme::projector);
      }
      open_compare(app, takes_qkv(p.a) ? "attn-tiled-v2" : "online", p.a, p.b, presenting);
      at_compare_steps(h, app, [&] {
        // The tab's region, and in it the two views (child windows named below it).
        const std::string region_name = presenting ? "/presented-view_" : "/compare-view_";
        int regions = 0;
        std::vector<float> view_widths;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
          const std::string wn = w->Name;
          const std::size_t at = wn.find(region_name);
          if (!w->Active || at == std::string::npos) continue;
          CAPTURE(wn);
          const bool region = wn.find('/', at + 1) == std::string::npos;
          regions += region;
          const std::size_t v = wn.find("/view_", at + 1);
          if (v != std::string::npos && wn.find('/', v + 1) == std::string::npos) view_widths.push_back(w->Size.x);
          // The views too: where they need more than the text leaves them (a font made larger),
          // the text gets smaller.
          CHECK(w->ScrollMax.y == 0.0f);
          // Nothing past the right edge (the total traffic's ratio went past it at font 2×).
          if (region) CHECK(w->ContentSize.x <= w->Size.x - 2.0f * w->WindowPadding.x + 0.5f);
        }
        CHECK(regions == 1);
        // The two views are as wide as each other to the pixel: a matrix's number format is the
        // longest its cells hold, so the same value must not read "−.01" on one side and "0".
        REQUIRE(view_widths.size() == 2);
        CHECK(view_widths[0] == view_widths[1]);
      });
    }
}

TEST_CASE("Compare at a font made larger: both views at one scale, no smaller than they need, their bars no flatter than 46 px a unit of scale until the views are at their font-1× size") {
  // Presenting at font 2×, safe vs online, opened on its last step: the views fit at 0.56 of the
  // full scale. The room they asked for was worked out from the frame before's scroll range and
  // this frame's scale, twice what they needed, and they were drawn at their font-1× size (0.5)
  // with room left under them. Given the room, they drew their bars 24 px a unit high, flat
  // lines under registers twice their size. The right side took the room the left had just
  // asked for in the same frame, and the two were drawn at different scales.
  const float scale = kPresentationScale * 2.0f;
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  AppState app;
  app.set_font_scale(2.0f);
  use_scale(app, scale, Theme::projector);
  app.motion.enabled = false;  // steps drawn at rest, as a picture draws them
  open_compare(app, "online", Algorithm::safe, Algorithm::online, true);
  for (int f = 0; f < 3; ++f) h.frame(app);
  const int n = app.compare.timeline.count();
  REQUIRE(n > 2);
  // Opened on the last step: what the views need there, learnt afresh.
  app.seek_active(n - 1);
  app.compare.sentence_room = {};
  bool first = true;
  for (const int k : {n - 1, 0, n / 2, n - 1}) {
    CAPTURE(k);
    app.seek_active(k);
    for (int f = 0; f < 4; ++f) h.frame(app);
    std::vector<float> drawn;  // each view's scale over the full one
    for (const ImGuiWindow* w : presented_compare_views()) {
      CAPTURE(std::string(w->Name));
      drawn.push_back(w->FontWindowScale);
      CHECK(w->ScrollMax.y == 0.0f);
    }
    REQUIRE(drawn.size() == 2);
    CHECK(drawn[0] == drawn[1]);
    CHECK(drawn[0] >= 0.5f);
    // Opened on the last step, the views are not drawn at their smallest: they fit larger.
    if (first) CHECK(drawn[0] > 0.5f + 0.01f);
    first = false;
    if (drawn[0] > 0.5f)
      for (int side = 0; side < 2; ++side) {
        CAPTURE(side);
        CHECK(app.compare.views[side].get<VectorViewOptions>().drawn.bar_px >= 46.0f * drawn[0] * scale - 0.01f);
      }
  }
}

TEST_CASE("Compare at a font made larger: matrix views are drawn at their font-1× size, the step's tile whole in the close-up") {
  // FlashAttention-1 against -2 presenting at font 2× drew the matrices with cells of 2 px and
  // the close-up one row of the tile at a time ("row 1 of 4"), its numbers at twice the size.
  const float scale = kPresentationScale * 2.0f;
  Headless h;
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  int pairs = 0;
  for (const ComparePreset& p : compare_presets()) {
    if (info(p.a).view != ViewKind::matrix && info(p.b).view != ViewKind::matrix) continue;
    ++pairs;
    const std::string name(p.name);
    CAPTURE(name);
    AppState app;
    app.set_font_scale(2.0f);
    use_scale(app, scale, Theme::projector);
    app.motion.enabled = false;
    open_compare(app, "attn-tiled-v2", p.a, p.b, true);
    at_compare_steps(h, app, [&] {
      const std::vector<const ImGuiWindow*> views = presented_compare_views();
      CHECK(views.size() == 2);
      for (const ImGuiWindow* w : views) CHECK(w->FontWindowScale == doctest::Approx(0.5f));
      // The forward pairs' tiles whole; the backward pair's thirteen matrices leave their close-up
      // one row of four (three at font 1×).
      if (info(p.a).runs_after || info(p.b).runs_after) return;
      for (int side = 0; side < 2; ++side) {
        CAPTURE(side);
        const MatrixViewOptions::Drawn& d = app.compare.views[side].get<MatrixViewOptions>().drawn;
        CHECK(d.close_up_px > 0);
        CHECK(d.close_up_pages == 1);
      }
    });
  }
  CHECK(pairs >= 3);
  AppState app;
  use_scale(app, 1.0f, Theme::dark);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("Compare: one recording on both sides writes every close-up number alike on both") {
  // A number as wide as "−0.00" fitted its cell on one side and lost a digit on the other
  // (−1.43 and −1.4): the room was taken from the cell's corners, whose difference carries the
  // rounding of where the cell is.
  Headless h;
  int compared = 0;
  for (const bool presenting : {false, true})
    for (const Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2, Algorithm::attn_flash_backward}) {
      CAPTURE(presenting);
      const std::string id(algorithm_id(a));
      CAPTURE(id);
      ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
      AppState app;
      use_scale(app, presenting ? kPresentationScale : 1.0f, presenting ? Theme::projector : Theme::dark);
      app.motion.enabled = false;
      open_compare(app, "cpu-vs-gpu", a, a, presenting);
      app.compare.backend_a = app.compare.backend_b = Backend::cpu;
      at_compare_steps(h, app, [&] {
        const MatrixViewOptions::Drawn& l = app.compare.views[0].get<MatrixViewOptions>().drawn;
        const MatrixViewOptions::Drawn& r = app.compare.views[1].get<MatrixViewOptions>().drawn;
        CHECK(l.close_up_numbers == r.close_up_numbers);
        compared += !l.close_up_numbers.empty();
      });
    }
  CHECK(compared >= 9);
  AppState app;
  use_scale(app, 1.0f, Theme::dark);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
}

namespace {

// A per-row column (m, l) is as wide as its numbers only where its rows are tall enough for them
// (heatmap.cpp draws them at 0.8 of a row, at least kMinCellTextPx): else a wide column with
// nothing in it, which reads as a matrix of several columns.
int check_stat_columns(const MatrixViewOptions::Drawn& d, const Recording& rec, float s) {
  const float narrow = ImGui::CalcTextSize("m").x + 8 * s;
  int wide = 0;
  for (const auto& [b, r] : d.matrices) {
    const BufferInfo& bi = rec.buffers[static_cast<std::size_t>(b)];
    if (bi.cols != 1 || (bi.name != "m" && bi.name != "l") || r.w <= narrow * 1.5f) continue;
    ++wide;
    CAPTURE(bi.name);
    CHECK(r.h / static_cast<float>(bi.rows) >= kMinCellTextPx * s / 0.8f - 0.01f);
  }
  return wide;
}

}  // namespace

TEST_CASE("matrix view: m and l are drawn as wide as their numbers only where their rows hold them, in lessons and in Compare") {
  int wide = 0;
  for (const float scale : {1.0f, kPresentationScale}) {
    const bool presenting = scale > 1.0f;
    CAPTURE(presenting);
    Headless h;
    ImGui::GetIO().DisplaySize = presenting ? ImVec2(1920, 1080) : ImVec2(1280, 800);
    for (const Lesson& l : lessons()) {
      if (info(l.scenario.algorithm).view != ViewKind::matrix || l.tab != "lesson") continue;
      CAPTURE(l.id);
      AppState app;
      if (presenting) use_scale(app, scale, Theme::projector);
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.id));
      app.presenting = presenting;
      for (const int k : {0, app.timeline.count() / 2, app.timeline.count() - 1}) {
        CAPTURE(k);
        app.seek(k);
        for (int f = 0; f < 3; ++f) h.frame(app);
        wide += check_stat_columns(app.views.get<MatrixViewOptions>().drawn, *app.played.rec, app.ui_scale);
      }
    }
    // FlashAttention-1's m and l beside FlashAttention-2 in Compare's narrower columns.
    AppState app;
    if (presenting) use_scale(app, scale, Theme::projector);
    open_compare(app, "attn-tiled-v2", Algorithm::attn_tiled, Algorithm::attn_tiled_v2, presenting);
    for (int f = 0; f < 4; ++f) h.frame(app);
    for (int side = 0; side < 2; ++side)
      wide += check_stat_columns(app.compare.views[side].get<MatrixViewOptions>().drawn,
                                 side == 0 ? *app.compare.left.rec : *app.compare.right.rec, app.ui_scale);
  }
  // Some are wide, so the check above checked something.
  CHECK(wide > 0);
  Headless h;
  restore_window();
}
