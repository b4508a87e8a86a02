// Regularized NNLS with an identifiability test (nnls.h).
#include "nccl-tests-integration/fit/nnls.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "nccl-tests-integration/fit/dense.h"

namespace railtune::sweep {
namespace {

// The prior's scale: the solver works in x / scale, where every unknown's prior is 1 (or 0).
double priorScale(double prior) {
  return prior > 0 ? prior : 1;
}

void checkProblem(const LsProblem& p) {
  const size_t rows = p.target.size();
  if (p.prior.size() != p.unknowns || p.weight.size() != rows || p.rows.size() != rows * p.unknowns)
    throw std::invalid_argument("least squares: " + std::to_string(rows) + " rows of " + std::to_string(p.unknowns) +
                                " unknowns do not match the coefficients given");
  for (const double w : p.weight)
    if (!(w >= 0) || !std::isfinite(w)) throw std::invalid_argument("least squares: a row's weight is negative");
  for (const double v : p.prior)
    if (!(v >= 0) || !std::isfinite(v)) throw std::invalid_argument("least squares: a prior value is negative");
  if (!(p.lambda >= 0)) throw std::invalid_argument("least squares: the regularization is negative");
}

// AᵀWA over the columns listed, each column scaled by its prior's scale.
std::vector<double> scaledGram(const LsProblem& p, const std::vector<size_t>& columns) {
  const size_t m = columns.size();
  std::vector<double> gram(m * m, 0);
  for (size_t r = 0; r < p.rowCount(); ++r) {
    const double* row = &p.rows[r * p.unknowns];
    for (size_t i = 0; i < m; ++i) {
      const double ai = row[columns[i]] * priorScale(p.prior[columns[i]]) * p.weight[r];
      if (ai == 0) continue;
      for (size_t j = 0; j < m; ++j) gram[i * m + j] += ai * row[columns[j]] * priorScale(p.prior[columns[j]]);
    }
  }
  return gram;
}

// The solution of g·z = h restricted to the passive set (zero elsewhere); false when singular.
bool passiveSolve(const std::vector<double>& g, const std::vector<double>& h, const std::vector<uint8_t>& passive,
                  std::vector<double>& z) {
  const size_t m = h.size();
  std::vector<size_t> idx;
  for (size_t i = 0; i < m; ++i)
    if (passive[i]) idx.push_back(i);
  std::vector<double> sub(idx.size() * idx.size()), rhs(idx.size());
  for (size_t a = 0; a < idx.size(); ++a) {
    rhs[a] = h[idx[a]];
    for (size_t b = 0; b < idx.size(); ++b) sub[a * idx.size() + b] = g[idx[a] * m + idx[b]];
  }
  if (!choleskySolve(std::move(sub), idx.size(), rhs)) return false;
  std::fill(z.begin(), z.end(), 0);
  for (size_t a = 0; a < idx.size(); ++a) z[idx[a]] = rhs[a];
  return true;
}

// Lawson and Hanson's active set on min ½yᵀGy − hᵀy, y ≥ 0 (G positive definite). Returns the iterations.
int activeSet(const std::vector<double>& g, const std::vector<double>& h, std::vector<double>& y) {
  const size_t m = h.size();
  double scale = 0;
  for (size_t i = 0; i < m; ++i) scale = std::max({scale, std::fabs(h[i]), g[i * m + i]});
  const double tol = 1e-12 * std::max(scale, 1.0);
  std::vector<uint8_t> passive(m, 0);
  std::vector<double> z(m);
  y.assign(m, 0);
  int iterations = 0;
  for (; iterations < static_cast<int>(3 * m + 10); ++iterations) {
    size_t enter = m;
    double best = tol;
    for (size_t j = 0; j < m; ++j) {
      double grad = h[j];
      for (size_t k = 0; k < m; ++k) grad -= g[j * m + k] * y[k];
      if (!passive[j] && grad > best) best = grad, enter = j;
    }
    if (enter == m) break;
    passive[enter] = 1;
    for (size_t inner = 0; inner <= m; ++inner) {
      if (!passiveSolve(g, h, passive, z)) return iterations;
      double step = 1;
      for (size_t j = 0; j < m; ++j)
        if (passive[j] && z[j] <= 0) step = std::min(step, y[j] / (y[j] - z[j]));
      for (size_t j = 0; j < m; ++j) y[j] += step * (z[j] - y[j]);
      if (step >= 1) break;
      for (size_t j = 0; j < m; ++j)
        if (passive[j] && y[j] <= tol) passive[j] = 0, y[j] = 0;
    }
  }
  return iterations;
}

}  // namespace

void LsProblem::addRow(std::span<const double> coefficients, double b, double w) {
  if (coefficients.size() != unknowns)
    throw std::invalid_argument("least squares: a row of " + std::to_string(coefficients.size()) +
                                " coefficients for " + std::to_string(unknowns) + " unknowns");
  rows.insert(rows.end(), coefficients.begin(), coefficients.end());
  target.push_back(b);
  weight.push_back(w);
}

std::vector<uint8_t> identifiedUnknowns(const LsProblem& problem) {
  checkProblem(problem);
  const size_t n = problem.unknowns;
  std::vector<size_t> all(n);
  for (size_t j = 0; j < n; ++j) all[j] = j;
  const SymmetricEigen eigen = symmetricEigen(scaledGram(problem, all), n);
  std::vector<uint8_t> identified(n, 0);
  if (n == 0 || !(eigen.values[0] > 0)) return identified;
  for (size_t j = 0; j < n; ++j) {
    double blind = 0;  // the share of unknown j in the directions the data cannot see
    for (size_t k = 0; k < n; ++k)
      if (eigen.values[k] <= problem.nullTolerance * eigen.values[0])
        blind += eigen.vectors[j * n + k] * eigen.vectors[j * n + k];
    identified[j] = blind <= problem.identifiedShare;
  }
  return identified;
}

LsSolution solveNnls(const LsProblem& problem) {
  LsSolution out;
  out.identified = identifiedUnknowns(problem);
  out.x = problem.prior;
  std::vector<size_t> free;
  for (size_t j = 0; j < problem.unknowns; ++j)
    if (out.identified[j]) free.push_back(j);
  // b less what the unknowns held at their prior explain.
  std::vector<double> rest(problem.target);
  for (size_t r = 0; r < problem.rowCount(); ++r)
    for (size_t j = 0; j < problem.unknowns; ++j)
      if (!out.identified[j]) rest[r] -= problem.rows[r * problem.unknowns + j] * problem.prior[j];
  const size_t m = free.size();
  std::vector<double> g = scaledGram(problem, free), h(m, 0), y;
  for (size_t i = 0; i < m; ++i) {
    const size_t j = free[i];
    g[i * m + i] += problem.lambda;
    h[i] = problem.lambda * problem.prior[j] / priorScale(problem.prior[j]);
    for (size_t r = 0; r < problem.rowCount(); ++r)
      h[i] += problem.weight[r] * problem.rows[r * problem.unknowns + j] * priorScale(problem.prior[j]) * rest[r];
  }
  out.iterations = activeSet(g, h, y);
  out.atZero.assign(problem.unknowns, 0);
  for (size_t i = 0; i < m; ++i) {
    out.x[free[i]] = y[i] * priorScale(problem.prior[free[i]]);
    out.atZero[free[i]] = y[i] == 0;
  }
  for (size_t r = 0; r < problem.rowCount(); ++r) {
    double fit = -problem.target[r];
    for (size_t j = 0; j < problem.unknowns; ++j) fit += problem.rows[r * problem.unknowns + j] * out.x[j];
    out.weightedResidual += problem.weight[r] * fit * fit;
  }
  return out;
}

}  // namespace railtune::sweep
