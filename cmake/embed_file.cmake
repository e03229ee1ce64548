# Turns one file into a C++ source holding its bytes, so what the HTML report inlines travels
# inside the binary. Run at build time:
#   cmake -DIN=<file> -DOUT=<file.cpp> -DNAME=<identifier> -P embed_file.cmake
# A file holding "</script" could end the report's script element early: refused here.
# The same for "</style" in a style element, and "<!--", which would change how a script element
# ends; HTML's tag names are case-insensitive.
file(READ "${IN}" text)
string(TOLOWER "${text}" lower)
foreach(clash_text IN ITEMS "</script" "</style" "<!--")
  string(FIND "${lower}" "${clash_text}" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${IN} contains '${clash_text}' and cannot be inlined into the HTML report")
  endif()
endforeach()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# One line per 32 bytes keeps the generated file readable by editors (CMake's regular
# expressions have no {n}).
string(REPEAT "0x..," 32 line)
string(REGEX REPLACE "(${line})" "\\1\n" bytes "${bytes}")
set(out "// Generated from ${IN} by cmake/embed_file.cmake: do not edit.\n")
string(APPEND out "#include <string_view>\n\nnamespace iolab {\n\nnamespace {\n")
string(APPEND out "constexpr unsigned char kBytes[] = {\n${bytes}0};\n}  // namespace\n\n")
string(APPEND out "extern const std::string_view ${NAME}{reinterpret_cast<const char*>(kBytes), ${size}};\n\n}  // namespace iolab\n")
file(WRITE "${OUT}.tmp" "${out}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
