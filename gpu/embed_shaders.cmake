# Turns shaders/*.comp and shaders/*.glsl into one C++ file of raw string literals, so the
# executable carries its shaders and needs no shader directory at run time.
# Usage: cmake -DOUT=shaders.cpp -DSOURCES="a.comp;b.comp" -P embed_shaders.cmake
set(body "// Generated from shaders/ by gpu/embed_shaders.cmake; edit the .comp files instead.\n")
string(APPEND body "#include \"gpu/program.h\"\n\nnamespace flashstep::gpu {\n\n")
string(APPEND body "const std::vector<EmbeddedShader>& embedded_shaders() {\n")
string(APPEND body "  static const std::vector<EmbeddedShader> kShaders = {\n")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  file(READ "${src}" text)
  string(FIND "${text}" ")glsl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${src} contains the raw-string delimiter )glsl\"")
  endif()
  string(APPEND body "      {\"${name}\", R\"glsl(${text})glsl\"},\n")
endforeach()
string(APPEND body "  };\n  return kShaders;\n}\n\n}  // namespace flashstep::gpu\n")
# Only touch the file when it changes, so an unrelated reconfigure rebuilds nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${body}")
  file(WRITE "${OUT}" "${body}")
endif()
