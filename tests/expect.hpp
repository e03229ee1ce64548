#pragma once
// Checks that several test files make: a command refused as bad input, a result file refused, a
// case skipped with its reason, a table row's cells, and a small tmpfs to run out of space on.
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/result.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "iolab/sys/error.hpp"
#include "support.hpp"

namespace iolab::test {

// The command exits 2 (bad input) with an error that says `why`.
inline testing::AssertionResult cli_refused(const std::string& args, const std::string& why) {
    const CliResult r = run_cli(args);
    if (r.status != 2) return testing::AssertionFailure() << "'" << args << "' exited " << r.status << ": " << r.err;
    if (r.err.find(why) == std::string::npos)
        return testing::AssertionFailure() << "'" << args << "' did not say '" << why << "': " << r.err;
    return testing::AssertionSuccess();
}

// A result file's text is refused as bad input, saying `why`.
inline testing::AssertionResult result_refused(const std::string& text, const std::string& why) {
    try {
        read_report_json(text, "r.json");
    } catch (const InputError& e) {
        if (std::string(e.what()).find(why) != std::string::npos) return testing::AssertionSuccess();
        return testing::AssertionFailure() << "refused without saying '" << why << "': " << e.what();
    }
    return testing::AssertionFailure() << "accepted, though it should be refused: " << why;
}

// The case was skipped, its reason saying `why`.
inline testing::AssertionResult skipped_saying(const CaseResult& r, const std::string& why) {
    if (r.status != Status::skipped)
        return testing::AssertionFailure() << r.spec.label() << " was not skipped: " << r.reason;
    if (r.reason.find(why) == std::string::npos)
        return testing::AssertionFailure() << r.spec.label() << " skipped without saying '" << why << "': " << r.reason;
    return testing::AssertionSuccess();
}

// The row's cells at these columns hold these texts.
inline testing::AssertionResult cells_are(const Row& row,
                                          const std::vector<std::pair<std::size_t, std::string>>& want) {
    for (const auto& [column, text] : want) {
        if (column >= row.cells.size())
            return testing::AssertionFailure() << "no cell " << column << " (the row has " << row.cells.size() << ")";
        if (row.cells[column] != text)
            return testing::AssertionFailure()
                   << "cell " << column << " is '" << row.cells[column] << "', not '" << text << "'";
    }
    return testing::AssertionSuccess();
}

// A tmpfs of `options` ("size=4m") mounted on a new folder `name` of dir, unmounted when it goes.
// `path` is empty where it cannot be (not root, or no tmpfs here), and `why` says so.
struct SmallTmpfs {
    std::string path, why;
    SmallTmpfs(const ScratchDir& dir, const std::string& name, const char* options) {
        if (::geteuid() != 0) {
            why = "mounting a tmpfs needs root";
            return;
        }
        const std::string at = dir.file(name);
        if (::mkdir(at.c_str(), 0700) != 0) {
            ADD_FAILURE() << "cannot make " << at;
            why = "no folder to mount on";
            return;
        }
        if (::mount("tmpfs", at.c_str(), "tmpfs", 0, options) != 0) {
            why = "cannot mount a tmpfs here";
            return;
        }
        path = at;
    }
    SmallTmpfs(const SmallTmpfs&) = delete;
    SmallTmpfs& operator=(const SmallTmpfs&) = delete;
    ~SmallTmpfs() {
        if (!path.empty()) ::umount2(path.c_str(), MNT_DETACH);
    }
};

}  // namespace iolab::test
