#pragma once
// IOLAB_IO_API marks what libiolab-io.so exports: the declarations of these headers. The library
// is built with hidden visibility, so nothing of its insides (fault injection, the lab's stop and
// throttle hooks, helpers) becomes part of its ABI.
#define IOLAB_IO_API __attribute__((visibility("default")))
