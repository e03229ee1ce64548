#pragma once
// Public: include/iolab/io/buffered.hpp (library iolab::io).
#include "iolab/io/buffered.hpp"
