#pragma once
// The iolab command line, as a function. main.cpp runs it normally; the fuzz targets run it
// with `validate` (parse and check everything, run nothing) or `small` (also run what is small
// enough to run in a fraction of a second, in `small_dir`, writing no result file anywhere).
#include <string>

enum class Mode { normal, validate, small };
int iolab_main(int argc, char** argv, Mode mode = Mode::normal, const std::string& small_dir = {});
