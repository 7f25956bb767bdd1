// Nothing is cut at the window's edge at the smallest sizes a lesson is shown at: every tab
// title fits whole, and the Inputs panel and the overflow lab lay nothing out past their right
// edge (rows of choices wrap instead). Drawn headless, at 960×600 and 1280×800.
#include "tests/app/headless.h"

#include "core/lessons.h"

#include <doctest/doctest.h>

#include <string>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

// The child window whose name starts with `prefix` (ImGui names a child "parent/child_ID").
const ImGuiWindow* child_window(const char* prefix) {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->WasActive && std::string(w->Name).rfind(prefix, 0) == 0) return w;
  return nullptr;
}

}  // namespace

TEST_CASE("cut-offs: every tab title fits whole in the tab bar, at 960×600 and 1280×800") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (ImVec2 size : {ImVec2(960, 600), ImVec2(1280, 800)})
    for (const Lesson& l : lessons()) {
      CAPTURE(size.x);
      CAPTURE(l.id);
      io.DisplaySize = size;
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(l.id));
      for (int f = 0; f < 4; ++f) h.frame(app);
      ImGuiContext& g = *ImGui::GetCurrentContext();
      int bars = 0;
      for (int n = 0; n < g.TabBars.GetMapSize(); ++n) {
        const ImGuiTabBar* tb = g.TabBars.TryGetMapData(n);
        if (!tb || tb->PrevFrameVisible < g.FrameCount - 1) continue;
        ++bars;
        // Each tab as wide as its title needs (the bar scrolls rather than shrink one), and at
        // 1280×800 all of them side by side within the bar.
        for (const ImGuiTabItem& t : tb->Tabs) CHECK(t.Width >= t.ContentWidth - 0.5f);
        if (size.x >= 1280) CHECK(tb->WidthAllTabsIdeal <= tb->BarRect.GetWidth() + 0.5f);
      }
      CHECK(bars >= 1);
    }
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("cut-offs: the Inputs panel lays nothing out past its right edge") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (ImVec2 size : {ImVec2(960, 600), ImVec2(1280, 800)})
    for (const char* id : {"naive", "online", "attn-naive", "attn-tiled", "chunked"}) {
      CAPTURE(size.x);
      CAPTURE(id);
      io.DisplaySize = size;
      AppState app;
      app.background_allowed = false;
      REQUIRE(app.open_lesson(id));
      for (bool temperature : {false, true}) {
        if (temperature) {
          app.inputs.scale = ScaleChoice::temperature;
          app.inputs_edited();
        }
        for (int f = 0; f < 4; ++f) h.frame(app);
        const ImGuiWindow* w = ImGui::FindWindowByName("Inputs");
        REQUIRE(w);
        REQUIRE(w->WasActive);
        CHECK(w->DC.CursorMaxPos.x <= w->WorkRect.Max.x + 0.5f);
      }
    }
  io.DisplaySize = ImVec2(1280, 800);
}

TEST_CASE("cut-offs: the overflow lab lays nothing out past its right edge") {
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  for (ImVec2 size : {ImVec2(960, 600), ImVec2(1280, 800)}) {
    CAPTURE(size.x);
    io.DisplaySize = size;
    AppState app;
    app.background_allowed = false;
    REQUIRE(app.open_lesson("naive"));
    app.tab = Tab::overflow_lab;
    app.tab_changed = true;
    for (int f = 0; f < 4; ++f) h.frame(app);
    const ImGuiWindow* lab = child_window("View/overflow-lab");
    REQUIRE(lab);
    CHECK(lab->DC.CursorMaxPos.x <= lab->WorkRect.Max.x + 0.5f);
  }
  io.DisplaySize = ImVec2(1280, 800);
}
