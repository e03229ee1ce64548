#pragma once
// Public: include/iolab/io/aligned.hpp (library iolab::io).
#include "iolab/io/aligned.hpp"
