// The fit's small solver: regularized non-negative least squares for a few dozen unknowns (NCCL's latency
// constants, stage B of the fit):
//
//   min Σ_i w_i (A_i·x − b_i)²  +  λ Σ_j ((x_j − p_j) / s_j)²   subject to x ≥ 0
//
// p is the prior (NCCL's own values), s its scale (|p_j|, or 1 where p_j is 0). Before solving, each unknown is
// tested for identifiability: it is identified when the data alone pin it, i.e. no direction the data cannot
// see (the null space of the weighted Gram matrix AᵀWA) moves it. Unidentified unknowns are held exactly at
// their prior (the model file carries only identified constants, so the fitted model must not lean on the
// others), and the identified ones are solved for with the prior's small pull, by an active-set method
// (Lawson and Hanson's NNLS, on the normal equations; the identified columns have full rank, so they are
// positive definite).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace railtune::sweep {

struct LsProblem {
  size_t unknowns = 0;
  std::vector<double> rows;    // rows × unknowns, row-major
  std::vector<double> target;  // b, one per row
  std::vector<double> weight;  // w, one per row
  std::vector<double> prior;   // p, one per unknown
  double lambda = 1e-3;
  double nullTolerance = 1e-9;    // an eigenvalue below this × the largest spans a direction the data cannot see
  double identifiedShare = 1e-6;  // an unknown is unidentified when that blind space holds more of it than this

  explicit LsProblem(std::span<const double> priorValues)
      : unknowns(priorValues.size()), prior(priorValues.begin(), priorValues.end()) {}
  void addRow(std::span<const double> coefficients, double b, double w = 1);
  size_t rowCount() const { return target.size(); }
};

struct LsSolution {
  std::vector<double> x;
  std::vector<uint8_t> identified;  // per unknown
  std::vector<uint8_t> atZero;      // per unknown: held at the bound x ≥ 0
  double weightedResidual = 0;      // Σ w (A·x − b)²
  int iterations = 0;
};

// Per unknown, whether the rows pin it (above). A column of zeros never is.
std::vector<uint8_t> identifiedUnknowns(const LsProblem& problem);

// Throws std::invalid_argument when the sizes disagree or a weight or the prior is negative.
LsSolution solveNnls(const LsProblem& problem);

}  // namespace railtune::sweep
