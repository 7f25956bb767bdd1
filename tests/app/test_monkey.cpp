// The monkey test: the real window under X, driven by a seeded stream of random user actions
// (clicks, double clicks, drags, wheel, keys, typed text, resizes, lesson switches, File ▸ Open
// of files that must be refused) for FLASHSTEP_MONKEY_SECONDS. It fails on
//   - any sanitizer report on the window's stderr (the suite runs again built with ASan + UBSan),
//   - any exit other than a clean quit when the window is asked to close,
//   - any stall of the event loop over 2 s: after every action the window is pinged the way a
//     window manager does (_NET_WM_PING, which GLFW answers from its event loop).
// The seed is printed; FLASHSTEP_MONKEY_SEED=N replays a run.
#include "app/files.h"

#include <doctest/doctest.h>
// After doctest: Xlib's macros (None, Status, Bool) would rename doctest's own names.
#include <X11/Xlib.h>

#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string run_out(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return out;
}

// The window as a window manager sees it: pings and the close request.
struct XWindow {
  Display* dpy = nullptr;
  Window win = 0;
  Atom protocols = 0, ping = 0, close = 0;
  long stamp = 0;

  explicit XWindow(Window w) : win(w) {
    dpy = XOpenDisplay(nullptr);
    if (!dpy) return;
    // GLFW sends its answer to the root window with SubstructureNotify: listen there.
    XSelectInput(dpy, DefaultRootWindow(dpy), SubstructureNotifyMask);
    protocols = XInternAtom(dpy, "WM_PROTOCOLS", False);
    ping = XInternAtom(dpy, "_NET_WM_PING", False);
    close = XInternAtom(dpy, "WM_DELETE_WINDOW", False);
  }
  ~XWindow() {
    if (dpy) XCloseDisplay(dpy);
  }
  void send(Atom what, long a1) {
    XEvent e{};
    e.xclient.type = ClientMessage;
    e.xclient.window = win;
    e.xclient.message_type = protocols;
    e.xclient.format = 32;
    e.xclient.data.l[0] = static_cast<long>(what);
    e.xclient.data.l[1] = a1;
    e.xclient.data.l[2] = static_cast<long>(win);
    XSendEvent(dpy, win, False, NoEventMask, &e);
    XFlush(dpy);
  }
  // Seconds until the window answered a ping; a negative number when it did not within `limit`.
  double ping_seconds(double limit) {
    const long id = ++stamp;
    const double t0 = now();
    send(ping, id);
    while (now() - t0 < limit) {
      while (XPending(dpy)) {
        XEvent e;
        XNextEvent(dpy, &e);
        if (e.type == ClientMessage && static_cast<Atom>(e.xclient.data.l[0]) == ping && e.xclient.data.l[1] == id)
          return now() - t0;
      }
      pollfd p{ConnectionNumber(dpy), POLLIN, 0};
      poll(&p, 1, 20);
    }
    return -1;
  }
  bool size(int& w, int& h) {
    XWindowAttributes a;
    if (!XGetWindowAttributes(dpy, win, &a)) return false;
    w = a.width, h = a.height;
    return true;
  }
};

// The files a user might open by mistake or by malice; each must be refused with a message.
std::vector<std::string> bad_files(const fs::path& dir) {
  std::vector<std::string> out;
  auto put = [&](const char* name, const std::string& text) {
    const fs::path p = dir / name;
    REQUIRE(flashstep::write_file_atomic(p.string(), text).empty());
    out.push_back(p.string());
  };
  put("not-json.json", "{\"lesson\": \"online\", oops");
  put("huge.json", R"({"algorithm":"online","rows":268435456,"n":268435456})");
  put("newer.json", R"({"flashstep_scenario": 999, "lesson": "online", "scenario": {}})");
  put("unknown-lesson.json", R"({"flashstep_scenario": 1, "lesson": "no-such-lesson", "scenario": {}})");
  put("sram-max.json", R"({"algorithm":"attn-tiled","n":8,"d":8,"sram":2147483647})");
  put("hex.json", R"({"algorithm":"online","input":"0x1p3, 1e-400"})");
  put("good.json", R"({"algorithm":"attn-online","n":12,"d":4,"seed":5})");
  // About 30 MB: read and parsed off the UI thread, then refused (more values than the window takes).
  std::string big = R"({"algorithm":"online","input":[[)";
  for (int i = 0; i < 2500000; ++i) big += i ? ",1.2345678901" : "1.2345678901";
  put("large.json", big + "]]}");
  const fs::path fifo = dir / "pipe.json";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  out.push_back(fifo.string());
  out.push_back((dir / "missing.json").string());
  out.push_back(dir.string());  // a folder
  return out;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace

TEST_CASE("the window survives a seeded stream of random user actions: no sanitizer report, no stall over 2 s, a clean quit") {
  if (!std::getenv("DISPLAY")) return;
  REQUIRE_MESSAGE(std::system("command -v xdotool >/dev/null 2>&1") == 0,
                  "xdotool is needed to drive the window (scripts/setup.sh installs it)");
  const int seconds = env_int("FLASHSTEP_MONKEY_SECONDS", FLASHSTEP_MONKEY_SECONDS);
  const unsigned seed = static_cast<unsigned>(
      env_int("FLASHSTEP_MONKEY_SEED", static_cast<int>(std::random_device{}() & 0x7fffffff)));
  std::printf("monkey: seed %u, %d s (replay: FLASHSTEP_MONKEY_SEED=%u)\n", seed, seconds, seed);
  std::fflush(stdout);

  const fs::path dir = fs::temp_directory_path() / ("flashstep-monkey-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "config");
  const std::vector<std::string> files = bad_files(dir);
  const fs::path log = dir / "stderr.txt";

  // In a folder of its own (exports land there), with a config folder of its own.
  const std::string cmd = "cd '" + dir.string() + "' && XDG_CONFIG_HOME='" + (dir / "config").string() + "' exec " +
                          FLASHSTEP_EXE + " --width 1280 --height 800 2>'" + log.string() + "' >/dev/null";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const std::string id = run_out("timeout 60 xdotool search --sync --pid " + std::to_string(pid) + " 2>/dev/null | head -1");
  const Window win = static_cast<Window>(std::strtoul(id.c_str(), nullptr, 10));
  if (win == 0) kill(pid, SIGKILL);
  REQUIRE_MESSAGE(win != 0, "the window did not appear within 60 s");
  XWindow x(win);
  REQUIRE(x.dpy);
  const std::string w = std::to_string(win);

  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> keys = {
      "Right", "Left", "Right", "Left", "shift+Right", "shift+Left", "Down", "Up", "Home", "End",
      "space", "period", "comma", "Next", "Prior", "plus", "minus", "p", "m", "Escape", "F1", "F5",
      "Tab", "Return", "BackSpace", "ctrl+z", "ctrl+shift+z", "ctrl+y", "ctrl+equal", "ctrl+minus",
      "ctrl+0", "ctrl+e", "ctrl+s", "ctrl+shift+s", "ctrl+o", "Delete", "a", "9"};
  const std::vector<std::string> texts = {"1e999", "nan, 3, -inf", "2048", "3,,4", "abc", "0x1p3",
                                          "1e-400, 1", "100000", "-5", "7", "512", "0.25"};
  std::deque<std::string> recent;  // the last actions, shown when something fails
  int actions = 0;
  double worst_ping = 0;
  bool stalled = false;
  std::string stall_after;
  const double t0 = now();
  while (now() - t0 < seconds) {
    int ww = 1280, wh = 800;
    x.size(ww, wh);
    const int px = uni(0, std::max(ww - 1, 1)), py = uni(0, std::max(wh - 1, 1));
    const std::string at = "mousemove --window " + w + " " + std::to_string(px) + " " + std::to_string(py);
    std::string a;
    const int kind = uni(0, 99);
    if (kind < 25) {
      a = at + " click 1";
    } else if (kind < 30) {
      a = at + " click --repeat 2 1";
    } else if (kind < 38) {
      a = at + " mousedown 1 mousemove --window " + w + " " + std::to_string(uni(0, ww)) + " " +
          std::to_string(uni(0, wh)) + " mouseup 1";
    } else if (kind < 45) {
      a = at + " click " + std::string(uni(0, 1) ? "4" : "5");
    } else if (kind < 75) {
      a = "key --window " + w + " --delay 0 " + keys[static_cast<std::size_t>(uni(0, static_cast<int>(keys.size()) - 1))];
    } else if (kind < 85) {
      a = at + " click 1 type --window " + w + " --delay 0 '" +
          texts[static_cast<std::size_t>(uni(0, static_cast<int>(texts.size()) - 1))] + "' key --window " + w +
          " Return";
    } else if (kind < 90) {
      a = "windowsize " + w + " " + std::to_string(uni(700, 1700)) + " " + std::to_string(uni(450, 1050));
    } else if (kind < 95) {
      a = "key --window " + w + " " + std::string(uni(0, 1) ? "Down" : "Up");
    } else {
      // File ▸ Open of a file that must be refused (or the one good file), typed into the dialog.
      const std::string& f = files[static_cast<std::size_t>(uni(0, static_cast<int>(files.size()) - 1))];
      a = "key --window " + w + " Escape key --window " + w + " ctrl+o sleep 0.3 type --window " + w +
          " --delay 0 '" + f + "' key --window " + w + " Return";
    }
    recent.push_back(a);
    if (recent.size() > 25) recent.pop_front();
    std::system(("xdotool " + a + " >/dev/null 2>&1").c_str());
    ++actions;
    const double p = x.ping_seconds(2.0);
    if (p < 0) {
      stalled = true;
      stall_after = a;
      break;
    }
    worst_ping = std::max(worst_ping, p);
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      std::string last;
      for (const std::string& r : recent) last += "  xdotool " + r + "\n";
      FAIL("the window exited during the run (status " << st << ") after " << actions << " actions; the last:\n"
                                                        << last);
    }
  }
  std::printf("monkey: %d actions in %.0f s, the slowest answer to a ping %.3f s\n", actions, now() - t0, worst_ping);

  // A clean quit: the close button's request, as a window manager sends it.
  x.send(x.close, 0);
  int status = -1;
  bool exited = false;
  for (int i = 0; i < 600 && !exited; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) exited = true;
    else usleep(100 * 1000);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  std::string err, read_error;
  flashstep::read_file(log.string(), err, read_error);
  std::string last;
  for (const std::string& r : recent) last += "  xdotool " + r + "\n";
  INFO("seed " << seed << "; the last actions:\n" << last << "stderr:\n" << err.substr(0, 6000));
  CHECK_MESSAGE(!stalled, "the window did not answer a ping within 2 s after: xdotool " << stall_after);
  CHECK_MESSAGE(exited, "the window did not close within 60 s of the close request");
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  for (const char* report : {"AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:"})
    CHECK_MESSAGE(err.find(report) == std::string::npos, "a sanitizer report: " << report);
  CHECK(actions >= seconds);  // it did drive the window (about 5 to 10 actions a second here)
  std::error_code ec;
  fs::remove_all(dir, ec);
}
