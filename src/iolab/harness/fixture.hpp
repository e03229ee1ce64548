#pragma once
// Everything around one strategy run that is not the strategy: the input (a generated file for
// reads and copies, generated records for writes), its reference checksum computed from the
// generator, a fresh destination for every run, and the verification afterwards.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/core/workload.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

struct Verdict {
    bool ok = false;
    bool checked = true;  // false: the strategy leaves no output to check
    std::uint64_t expected = 0;
    std::uint64_t actual = 0;
    std::uint64_t expected_bytes = 0;
    std::uint64_t actual_bytes = 0;
    std::string describe() const;  // "checksum 0x… expected 0x… (n bytes, expected m)"
};

class Fixture {
public:
    // Creates the input inside dir. `tag` keeps the names of several fixtures apart.
    Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag = "case");
    // Removes the input and the output: a run of many cases keeps one case's files at a time.
    ~Fixture();
    Fixture(const Fixture&) = delete;
    Fixture& operator=(const Fixture&) = delete;

    const Workload& workload() const { return w_; }
    const std::string& input_path() const { return src_; }
    const std::string& output_path() const { return dst_; }
    std::uint64_t reference() const { return reference_; }

    // A job for the strategy with the output removed, ready to run.
    Job job(const Strategy& s, Sink& sink);
    // Compares what the run produced with the reference (reads: the sink; else the output file).
    Verdict verify(const Job& job) const;
    void remove_output() const;

private:
    Workload w_;
    std::string src_;
    std::string dst_;
    std::vector<std::byte> records_;
    std::uint64_t reference_ = 0;
    std::function<FileDigest(const Job&)> decode_;
    bool checked_ = true;
};

// Writes `size` bytes of generated data to a new file at path; returns their checksum.
std::uint64_t write_input_file(const std::string& path, const DataSpec& spec, std::uint64_t size);

}  // namespace iolab
