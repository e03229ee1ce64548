#pragma once
// Statistics over the samples of a case: pure functions, so they can be checked against known
// values. The interval is the 99.9 % confidence interval of the mean by Student's t, as JMH
// reports it; outliers use the modified z-score (Iglewicz & Hoaglin), as hyperfine does.
#include <cstddef>
#include <vector>

namespace iolab {

struct Summary {
    std::size_t n = 0;
    double mean = 0;
    double stddev = 0;  // sample standard deviation (n - 1)
    double median = 0;
    double min = 0;
    double max = 0;
    double cv = 0;  // stddev / mean
    double ci_low = 0;
    double ci_high = 0;
};

// Two-sided Student's t quantile: the t with P(|T| <= t) = confidence, for `dof` degrees.
double t_quantile(double confidence, std::size_t dof);
double median(std::vector<double> xs);
// Summary of xs at the given confidence (0.999 by default). With one sample the interval
// collapses to the value; with none everything is 0.
Summary summarize(const std::vector<double>& xs, double confidence = 0.999);

// Modified z-score 0.6745 (x - median) / MAD for each x (0 when MAD is 0).
std::vector<double> modified_z_scores(const std::vector<double>& xs);
// Indices whose |modified z| exceeds the threshold (3.5, Iglewicz & Hoaglin's cut-off).
std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold = 3.5);

}  // namespace iolab
