#pragma once
// Everything around one strategy run but the strategy: its input and reference digests, a fresh
// destination for every run, and the verification afterwards.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "iolab/core/records.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/core/workload.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

// The inputs of a group of cases: one per distinct (data, size) or user file, created once.
class InputPool {
public:
    explicit InputPool(const ScratchDir& dir) : dir_(dir) {}
    ~InputPool();
    InputPool(const InputPool&) = delete;
    InputPool& operator=(const InputPool&) = delete;
    // job: the job's own input file (jobs read and copy each their own); records and a user's
    // file are shared by every job.
    std::shared_ptr<const Input> get(const Workload& w, unsigned job = 0);
    // One input for every job (--shared-file): a file of `parts` parts of w.bytes() each, the data
    // running on from part to part so that no two parts are alike (reads, copies); the records,
    // as get (writes). Under MPI it is rank 0's file: rank 0 makes it (make_shared), then every
    // rank writes its own parts into it and keeps the digests of the parts it reads (get_shared
    // with maker_folder naming rank 0's scratch folder).
    struct Shared {
        unsigned parts = 1;
        unsigned write_first = 0, write_count = 0;  // the parts written here (count 0: all)
        unsigned read_first = 0, read_count = 0;    // the parts whose digests are kept (0: all)
        std::string maker_folder;                   // "": made here
    };
    // Makes the file, empty and of its whole size (once per workload and parts).
    void make_shared(const Workload& w, unsigned parts);
    // The input, with this process's parts written (once per workload and parts); made first when
    // it is made here and is not yet.
    std::shared_ptr<const Input> get_shared(const Workload& w, const Shared& layout);
    // The input files (not records), for cache preparation.
    std::vector<std::string> files() const;

private:
    const ScratchDir& dir_;
    static bool shares_input(const Workload& w);
    std::map<std::string, std::shared_ptr<const Input>> inputs_;  // by input_name

    std::map<std::tuple<std::string, std::uint64_t, unsigned>, std::shared_ptr<const Input>> shared_;
    std::vector<std::string> made_;  // shared files made here
};

class Fixture {
public:
    // Creates the input inside dir. `tag` keeps the names of several fixtures apart.
    Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag = "case");
    // Uses a shared input (from an InputPool) instead of creating one.
    Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag, std::shared_ptr<const Input> input);
    // Job `part` of a shared file (InputPool::get_shared): it reads, or writes at the same place
    // of the output named by `tag`, the part's bytes, and only they are verified.
    Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag, std::shared_ptr<const Input> input,
            unsigned part);
    // Removes the output and an input it created.
    ~Fixture();
    Fixture(const Fixture&) = delete;
    Fixture& operator=(const Fixture&) = delete;

    const Workload& workload() const { return w_; }
    const std::string& input_path() const { return src_.empty() ? input_->path : src_; }
    // Read the input from this path instead: another rank's copy of the same input (MPI's
    // --rank-shift), which holds the same bytes.
    void read_from(std::string path) { src_ = std::move(path); }
    // Write the part into this output, which another process makes and removes (a file shared by
    // every rank under MPI: rank 0's).
    void write_into(std::string path) {
        dst_ = std::move(path);
        makes_output_ = false;
    }
    // Whether this fixture makes and removes its output (a shared one is made before the jobs run).
    bool makes_output() const { return makes_output_; }
    const std::string& output_path() const { return dst_; }
    std::uint64_t reference() const { return input_->digest.checksum; }
    // A tool that repeats its work (Strategy::repeats) does it this many times in each job.
    void set_passes(unsigned passes) { passes_ = passes; }
    unsigned passes() const { return passes_; }
    // A tool that does its passes by reading a longer input (Strategy::long_input) reads this one,
    // `passes` times as long as the case's, while it makes more than one pass.
    void use_long_input(std::shared_ptr<const Input> input) { long_ = std::move(input); }

    // A job for the strategy with the output removed, ready to run; a read's sink is reset to
    // `mode`.
    Job job(const Strategy& s, Sink& sink, VerifyMode mode = VerifyMode::full);
    // Compares what the run produced with the reference (reads: the sink, in the mode it ran;
    // else the whole output file).
    Verdict verify(const Job& job) const;
    void remove_output() const;

private:
    Workload w_;
    const KindModule& kind_ = kind_module(w_.family);
    std::shared_ptr<const Input> input_;
    std::shared_ptr<const Input> long_;  // use_long_input's, or none
    std::string dst_;
    std::string src_;  // read_from's path, or "": the input's own
    std::function<FileDigest(const Job&)> decode_;
    bool checked_ = true;
    std::optional<unsigned> part_;
    bool makes_output_ = true;
    std::uint64_t next_op_ = 0;  // the first operation of the next job
    unsigned passes_ = 1;
    void reference_patterns();
    std::uint32_t input_crc32() const;
    mutable std::optional<std::uint32_t> crc32_;  // the input's, computed when first needed
    TreeDigest tree_;                             // a files-family read's: what it read
};

// The name of a generated input in a scratch folder: from what it holds, so that every rank of an
// MPI job names the same input alike whatever else it made.
std::string input_name(const Workload& w, unsigned job);
std::string shared_input_name(const Workload& w, unsigned parts);

}  // namespace iolab
