// The themes by name: dark (the default), light (printed slides, bright rooms) and projector
// (black background, white text, thicker lines: what survives a washed-out projector). Their
// colours and ImGui styles live with the drawing code (views/palette.cpp, style.cpp).
#pragma once

#include <optional>
#include <string_view>

namespace flashstep::ui {

enum class Theme { dark, light, projector };
inline constexpr Theme kThemes[] = {Theme::dark, Theme::light, Theme::projector};
inline constexpr const char* kThemeNames = "dark, light or projector";

// "dark", "light", "projector".
inline const char* theme_name(Theme t) {
  switch (t) {
    case Theme::light: return "light";
    case Theme::projector: return "projector";
    default: return "dark";
  }
}

// The inverse of theme_name(); nullopt for any other name.
inline std::optional<Theme> parse_theme(std::string_view name) {
  for (Theme t : kThemes)
    if (name == theme_name(t)) return t;
  return std::nullopt;
}

}  // namespace flashstep::ui
