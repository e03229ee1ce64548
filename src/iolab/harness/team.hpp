#pragma once
// The processes of one run under MPI (iolab run --mpi, started by mpirun or srun), as the
// harness sees them. Every rank runs the same plan; these are the points where the ranks agree,
// so that they stay in step: a decision only rank 0 takes (how many iterations, when a case has
// enough), whether any rank was stopped, the outcome of each step (one rank's failure fails the
// step on all, naming the rank and its host), and rank 0's gathering of every rank's samples.
// One process alone is a team of one, for which every call returns at once.
#include <cstdint>
#include <string>
#include <vector>

namespace iolab {

// What one step came to on one rank.
struct Outcome {
    enum class Kind { ok, skipped, failed, interrupted };
    Kind kind = Kind::ok;
    std::string why;
    bool ok() const { return kind == Kind::ok; }
};

class Team {
public:
    virtual ~Team() = default;
    virtual bool mpi() const { return false; }
    virtual int rank() const { return 0; }
    virtual int size() const { return 1; }
    // Each rank's host, by rank.
    virtual std::vector<std::string> hosts() const { return {}; }
    // Reads and copies of rank R take the input made by rank (R + shift) mod size (IOR's -C),
    // so that no host reads what its own page cache holds from writing it. 0: its own.
    virtual unsigned shift() const { return 0; }
    // The rank whose input this rank reads.
    int source_rank() const {
        const auto n = static_cast<unsigned>(size());
        return static_cast<int>((static_cast<unsigned>(rank()) + shift() % n) % n);
    }
    // Each rank's scratch folder name (inside the shared --dir), by rank; set by share_scratch.
    virtual const std::vector<std::string>& scratch_names() const { return scratch_; }
    virtual void share_scratch(const std::string& mine) { scratch_ = {mine}; }
    // Returns once every rank has called it.
    virtual void barrier() {}
    // Rank 0's value, on every rank.
    virtual std::uint64_t leader(std::uint64_t v) { return v; }
    // Whether any rank passes true.
    virtual bool any(bool v) { return v; }
    // The gravest outcome of any rank (a stop, then a failure, then a skip), as the lowest rank
    // that had it tells it, its reason prefixed with "rank R on HOST: ", on every rank; ok when
    // every rank's step succeeded.
    virtual Outcome agree(const Outcome& mine) { return mine; }
    // At rank 0: every rank's text, by rank; elsewhere: empty.
    virtual std::vector<std::string> gather(const std::string& mine) { return {mine}; }

protected:
    std::vector<std::string> scratch_;
};

// The process's team: one process alone unless set_team was given another.
Team& team();
// Makes t the process's team (nullptr: one process again). Not owned; must outlive its use.
void set_team(Team* t);

// The team of an MPI run: MPI must be initialized (sys/mpi.hpp). Every collective waits at most
// timeout_s; past it the job is ended (sys/mpi.hpp).
class MpiTeam : public Team {
public:
    MpiTeam(double timeout_s, unsigned shift);
    bool mpi() const override { return true; }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::vector<std::string> hosts() const override { return hosts_; }
    unsigned shift() const override { return shift_; }
    void share_scratch(const std::string& mine) override;
    void barrier() override;
    std::uint64_t leader(std::uint64_t v) override;
    bool any(bool v) override;
    Outcome agree(const Outcome& mine) override;
    std::vector<std::string> gather(const std::string& mine) override;

private:
    double timeout_s_;
    unsigned shift_;
    int rank_ = 0, size_ = 1;
    std::vector<std::string> hosts_;
};

}  // namespace iolab
