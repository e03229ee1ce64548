#pragma once
// Public: include/iolab/io/copy_file.hpp (library iolab::io).
#include "iolab/io/copy_file.hpp"
