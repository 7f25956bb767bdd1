#include "app/ui/model/pen.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace flashstep::ui {

void Pen::press(PenPoint p) {
  if (!on) return;
  strokes.push_back({p});
  drawing = true;
}

void Pen::drag(PenPoint p) {
  if (!on || !drawing || strokes.empty()) return;
  PenStroke& s = strokes.back();
  if (!s.empty() && std::hypot(p.x - s.back().x, p.y - s.back().y) < kMinMove) return;
  s.push_back(p);
}

void Pen::observe(int step, int part, bool presenting) {
  if (presenting_ && !presenting) {
    clear();
    on = false;
    pointer = false;
  }
  presenting_ = presenting;
  if (step != step_ || part != part_) {
    if (step_ != -2) clear();
    step_ = step;
    part_ = part;
  }
}

std::string Pen::parse_stroke(const std::string& text, PenStroke& out) {
  out.clear();
  const std::string problem = parse_points(text, out);
  if (!problem.empty()) out.clear();
  return problem;
}

std::string Pen::parse_points(const std::string& text, PenStroke& out) {
  std::istringstream in(text);
  std::string pair;
  while (in >> pair) {
    const std::size_t comma = pair.find(',');
    const std::string bad = "--pen '" + text + "': ";
    if (comma == std::string::npos)
      return bad + "'" + pair + "' is not a point; give points as x,y separated by spaces";
    const std::string xs = pair.substr(0, comma), ys = pair.substr(comma + 1);
    char *ex = nullptr, *ey = nullptr;
    const double x = std::strtod(xs.c_str(), &ex), y = std::strtod(ys.c_str(), &ey);
    if (xs.empty() || ys.empty() || *ex != '\0' || *ey != '\0')
      return bad + "'" + pair + "' is not a point; give points as x,y separated by spaces";
    if (!(x >= 0 && x <= 1 && y >= 0 && y <= 1))
      return bad + "'" + pair + "' is outside the view; x and y are fractions of its width and height, 0..1";
    out.push_back({static_cast<float>(x), static_cast<float>(y)});
  }
  if (out.size() < 2) {
    out.clear();
    return "--pen '" + text + "': a stroke needs at least two points x,y";
  }
  return "";
}

}  // namespace flashstep::ui
