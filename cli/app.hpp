#pragma once
// The iolab command line, as a function (main.cpp calls it; the fuzz target calls it with
// dry_run, which parses and validates everything and runs nothing).
int iolab_main(int argc, char** argv, bool dry_run = false);
