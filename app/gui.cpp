// The window: lesson list on the left, the recorded steps of the chosen lesson on the right,
// stepped with the arrow keys.
#include "app/gui.h"

#include "core/engine.h"
#include "core/lessons.h"
#include "core/text.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unistd.h>

namespace flashstep {
namespace {

// A font with the glyphs the lessons use (subscripts, −, √, ∑, ≈); ImGui's own as fallback.
void load_fonts(float size) {
  ImGuiIO& io = ImGui::GetIO();
  static const char* const kCandidates[] = {
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
      "/usr/share/fonts/TTF/DejaVuSans.ttf",
  };
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder b;
    b.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar kExtra[] = {0x0370, 0x03FF, 0x2000, 0x209F, 0x2190, 0x21FF,
                                     0x2200, 0x22FF, 0x2500, 0x25FF, 0};
    b.AddRanges(kExtra);
    b.BuildRanges(&ranges);
  }
  for (const char* path : kCandidates)
    if (access(path, R_OK) == 0 && io.Fonts->AddFontFromFileTTF(path, size, nullptr, ranges.Data))
      return;
  io.Fonts->AddFontDefault();
}

struct App {
  int lesson = 0;
  Recording rec;
  std::unique_ptr<Cursor> cursor;
  int playhead = 0;
  bool scroll_to_playhead = true;
  std::string error;

  void open(int index) {
    lesson = index;
    const Lesson& l = lessons()[index];
    error.clear();
    try {
      rec = record(l.scenario);
    } catch (const std::exception& e) {
      error = e.what();
      rec = Recording{};
    }
    cursor = std::make_unique<Cursor>(rec);
    playhead = 0;
    cursor->seek(playhead);
    scroll_to_playhead = true;
  }

  void move(int to) {
    if (rec.step_count() == 0) return;
    playhead = std::clamp(to, 0, rec.step_count() - 1);
    cursor->seek(playhead);
    scroll_to_playhead = true;
  }

  void handle_keys() {
    if (ImGui::GetIO().WantTextInput) return;
    auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
    if (pressed(ImGuiKey_RightArrow)) move(playhead + 1);
    if (pressed(ImGuiKey_LeftArrow)) move(playhead - 1);
    if (pressed(ImGuiKey_Home)) move(0);
    if (pressed(ImGuiKey_End)) move(rec.step_count() - 1);
    if (pressed(ImGuiKey_DownArrow)) open(std::min(lesson + 1, static_cast<int>(lessons().size()) - 1));
    if (pressed(ImGuiKey_UpArrow)) open(std::max(lesson - 1, 0));
  }

  std::string column_text(int buffer, int row) const {
    if (buffer < 0 || row < 0 || rec.step_count() == 0) return "";
    if (!cursor->defined(buffer, row, 0)) return "—";
    return num(cursor->value(buffer, row, 0));
  }

  void draw_sidebar() {
    ImGui::TextDisabled("Lessons  (Up/Down)");
    for (int i = 0; i < static_cast<int>(lessons().size()); ++i)
      if (ImGui::Selectable(lessons()[i].title.c_str(), i == lesson) && i != lesson) open(i);
  }

  void draw_steps() {
    const Lesson& l = lessons()[lesson];
    ImGui::TextUnformatted(l.title.c_str());
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", l.summary.c_str());
    ImGui::PopTextWrapPos();
    if (!error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error.c_str());
      return;
    }
    if (l.backend == "gpu")
      ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "GPU backend not available: showing the CPU run.");
    ImGui::Separator();
    const int count = rec.step_count();
    if (count == 0) return;
    const Step& cur = rec.steps[playhead];
    ImGui::Text("Step %d / %d    pass %d / %d: %s", playhead + 1, count, cur.pass, rec.pass_count(),
                rec.pass_names[cur.pass - 1].c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("   (Left/Right step, Home/End)");
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) move(playhead - 1);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) move(playhead + 1);
    ImGui::SameLine();
    int ph = playhead + 1;
    ImGui::SetNextItemWidth(-1);
    if (ImGui::SliderInt("##scrub", &ph, 1, count, "step %d")) move(ph - 1);
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(cur.text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Separator();

    const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l");
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable;
    if (ImGui::BeginTable("steps", 6, flags)) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, 50);
      ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthFixed, 40);
      ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, 170);
      ImGui::TableSetupColumn("explanation", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("m", ImGuiTableColumnFlags_WidthFixed, 80);
      ImGui::TableSetupColumn("l", ImGuiTableColumnFlags_WidthFixed, 80);
      ImGui::TableHeadersRow();
      // m and l are shown as they stand at the playhead, for the row each step is about.
      ImGuiListClipper clipper;
      clipper.Begin(count);
      if (scroll_to_playhead) clipper.ForceDisplayRangeByIndices(playhead, playhead + 1);
      while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
          const Step& s = rec.steps[i];
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::PushID(i);
          if (ImGui::Selectable(std::to_string(i + 1).c_str(), i == playhead,
                                ImGuiSelectableFlags_SpanAllColumns))
            move(i);
          ImGui::PopID();
          if (i == playhead && scroll_to_playhead) {
            ImGui::SetScrollHereY(0.5f);
            scroll_to_playhead = false;
          }
          ImGui::TableNextColumn();
          ImGui::Text("%d", s.pass);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(s.label.c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(s.text.c_str());
          const int row = std::max(s.row, s.tile_i >= 0 ? s.tile_i * rec.Br : 0);
          ImGui::TableNextColumn();
          if (i <= playhead) ImGui::TextUnformatted(column_text(bm, row).c_str());
          ImGui::TableNextColumn();
          if (i <= playhead) ImGui::TextUnformatted(column_text(bl, row).c_str());
        }
      }
      ImGui::EndTable();
    }
  }
};

void glfw_error(int code, const char* text) { std::fprintf(stderr, "flashstep: GLFW error %d: %s\n", code, text); }

}  // namespace

int run_gui(const GuiOptions& opt) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "flashstep: cannot open a window (no display?); `flashstep run` works without one\n");
    return 2;
  }
  // OpenGL 4.3 core for the compute shaders; 3.3 core is enough for the window alone.
  GLFWwindow* window = nullptr;
  const int versions[][2] = {{4, 3}, {3, 3}};
  for (const auto& v : versions) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window = glfwCreateWindow(1280, 800, "FlashStep", nullptr, nullptr);
    if (window) break;
  }
  if (!window) {
    std::fprintf(stderr, "flashstep: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  load_fonts(17.0f);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  App app;
  int start = 0;
  for (int i = 0; i < static_cast<int>(lessons().size()); ++i)
    if (lessons()[i].id == opt.lesson) start = i;
  app.open(start);

  int frames = 0;
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app.handle_keys();

    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("FlashStep", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    ImGui::BeginChild("sidebar", ImVec2(330, 0), true);
    app.draw_sidebar();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("main", ImVec2(0, 0), false);
    app.draw_steps();
    ImGui::EndChild();
    ImGui::End();

    ImGui::Render();
    int w, h;
    glfwGetFramebufferSize(window, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(0.08f, 0.08f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window);
    if (opt.quit_after_frames > 0 && ++frames >= opt.quit_after_frames) break;
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace flashstep
