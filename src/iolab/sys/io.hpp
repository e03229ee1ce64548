#pragma once
// The syscall layer, which is public: include/iolab/io/syscalls.hpp (library iolab::io).
#include "iolab/io/syscalls.hpp"
