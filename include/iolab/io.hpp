#pragma once
// iolab::io, the library: robust system calls, buffered reading and writing, copying, mapping and
// whole-file reads and atomic writes. docs/library.md has the whole API with examples.
#include "iolab/io/aligned.hpp"
#include "iolab/io/buffered.hpp"
#include "iolab/io/copy_file.hpp"
#include "iolab/io/error.hpp"
#include "iolab/io/mapped_file.hpp"
#include "iolab/io/syscalls.hpp"
#include "iolab/io/whole_file.hpp"
#include "iolab/io/profile.hpp"
