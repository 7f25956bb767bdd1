// `flashstep shot` and `flashstep gif` run as a lecturer runs them: every lesson renders,
// pictures have the asked size and content, and failures are one clear line. Needs a display
// (./build.sh test provides Xvfb).
#include "core/lessons.h"

#include <doctest/doctest.h>
#include <gif_lib.h>
#include <stb_image.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

bool have_display() { return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY"); }

std::string tmp(const std::string& name) { return "/tmp/flashstep-shot-" + std::to_string(getpid()) + "-" + name; }

// Runs flashstep; returns the exit status and fills `err` with what it wrote to stderr.
int invoke(const std::string& args, std::string& err) {
  const std::string err_file = tmp("stderr");
  const int st = std::system((std::string(FLASHSTEP_EXE) + " " + args + " >/dev/null 2>" + err_file).c_str());
  err.clear();
  if (FILE* f = std::fopen(err_file.c_str(), "r")) {
    std::array<char, 1024> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) err.append(buf.data(), n);
    std::fclose(f);
  }
  std::remove(err_file.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct Png {
  int w = 0, h = 0;
  std::vector<unsigned char> rgba;
};

Png load(const std::string& path) {
  Png p;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &p.w, &p.h, &channels, 4);
  if (data) p.rgba.assign(data, data + static_cast<std::size_t>(p.w) * p.h * 4);
  stbi_image_free(data);
  return p;
}

std::size_t colours(const Png& p) {
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < p.rgba.size() && seen.size() < 1000; i += 4 * 7)
    seen.insert(p.rgba[i] | p.rgba[i + 1] << 8 | p.rgba[i + 2] << 16);
  return seen.size();
}

}  // namespace

TEST_CASE("shot renders every lesson, at its first and last step, and the two differ") {
  if (!have_display()) return;
  std::string err;
  for (const auto& lesson : flashstep::lessons()) {
    CAPTURE(lesson.id);
    const std::string first = tmp(lesson.id + "-first.png"), last = tmp(lesson.id + "-last.png");
    REQUIRE(invoke("shot --lesson " + lesson.id + " --step 0 --width 640 --height 400 --out " + first, err) == 0);
    REQUIRE(invoke("shot --lesson " + lesson.id + " --step last --width 640 --height 400 --out " + last, err) == 0);
    const Png a = load(first), b = load(last);
    CHECK(a.w == 640);
    CHECK(a.h == 400);
    CHECK(colours(a) > 20);  // not blank
    CHECK(a.rgba != b.rgba);
    std::remove(first.c_str());
    std::remove(last.c_str());
  }
}

TEST_CASE("shot --scale renders W·S × H·S pixels, --transparent leaves the background clear") {
  if (!have_display()) return;
  std::string err;
  const std::string path = tmp("scaled.png");
  REQUIRE(invoke("shot --lesson online --step 3 --width 400 --height 300 --scale 2 --panel view --transparent --out " + path, err) == 0);
  const Png p = load(path);
  CHECK(p.w == 800);
  CHECK(p.h == 600);
  std::size_t clear = 0;
  for (std::size_t i = 3; i < p.rgba.size(); i += 4) clear += p.rgba[i] < 255;
  CHECK(clear > p.rgba.size() / 4 / 10);  // a good part of the picture is background
  std::remove(path.c_str());
}

TEST_CASE("gif writes one frame per step of the range") {
  if (!have_display()) return;
  std::string err;
  const std::string path = tmp("range.gif");
  REQUIRE(invoke("gif --lesson safe --from 2 --to 6 --fps 5 --width 320 --height 240 --out " + path, err) == 0);
  int e = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &e);
  REQUIRE(g != nullptr);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->ImageCount == 5);
  CHECK(g->SWidth == 320);
  CHECK(g->SHeight == 240);
  DGifCloseFile(g, &e);
  std::remove(path.c_str());
}

TEST_CASE("bad shot and gif arguments: exit 2, one line, no file left behind") {
  if (!have_display()) return;
  struct Case {
    std::string args, mentions;
  };
  const std::string out = tmp("bad.png");
  const Case cases[] = {
      {"shot --lesson nope --out " + out, "nope"},
      {"shot --lesson online", "--out"},
      {"shot --lesson online --step 999 --out " + out, "--step 999"},
      {"shot --lesson online --step x --out " + out, "--step"},
      {"shot --lesson online --panel nope --out " + out, "--panel"},
      {"shot --lesson online --scale 0 --out " + out, "--scale"},
      {"shot --lesson online --out /nonexistent-dir/x.png", "/nonexistent-dir/x.png"},
      {"gif --lesson online --from 5 --to 2 --out " + out, "--from"},
      {"gif --lesson online --fps 0 --out " + out, "--fps"},
      {"gif --lesson online --out /nonexistent-dir/x.gif", "/nonexistent-dir/x.gif"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    std::string err;
    CHECK(invoke(c.args, err) == 2);
    CHECK(err.find(c.mentions) != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(access(out.c_str(), F_OK) != 0);
  }
}
