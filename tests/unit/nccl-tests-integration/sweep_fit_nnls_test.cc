// The fit's solver (nccl-tests-integration/fit/nnls.h, dense.h): non-negative least squares against cases solved
// by hand, the optimality conditions on a larger problem, unknowns the data cannot pin held at their prior.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "nccl-tests-integration/fit/dense.h"
#include "nccl-tests-integration/fit/nnls.h"

namespace railtune::sweep {
namespace {

TEST(SweepFitSolver, EigenAndCholeskyOnSmallCases) {
  const SymmetricEigen e = symmetricEigen({2, 1, 1, 2}, 2);
  EXPECT_NEAR(e.values[0], 3, 1e-12);
  EXPECT_NEAR(e.values[1], 1, 1e-12);
  EXPECT_NEAR(std::fabs(e.vectors[0 * 2 + 0]), std::sqrt(0.5), 1e-12);  // (1, 1)/√2
  EXPECT_NEAR(e.vectors[0 * 2 + 0], e.vectors[1 * 2 + 0], 1e-12);
  std::vector<double> b{5, 4};
  ASSERT_TRUE(choleskySolve({2, 1, 1, 2}, 2, b));  // 2x + y = 5, x + 2y = 4
  EXPECT_NEAR(b[0], 2, 1e-12);
  EXPECT_NEAR(b[1], 1, 1e-12);
  std::vector<double> c{1, 1};
  EXPECT_FALSE(choleskySolve({1, 2, 2, 1}, 2, c));  // indefinite
}

TEST(SweepFitSolver, EigenReassemblesARandomSymmetricMatrix) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t n = 12;
  std::vector<double> a(n * n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = u(rng);
  const SymmetricEigen e = symmetricEigen(a, n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (size_t k = 0; k < n; ++k) sum += e.vectors[i * n + k] * e.values[k] * e.vectors[j * n + k];
      EXPECT_NEAR(sum, a[i * n + j], 1e-10);
    }
  for (size_t k = 1; k < n; ++k) EXPECT_GE(e.values[k - 1], e.values[k]);
}

TEST(SweepFitSolver, TheBoundHoldsWhereTheUnconstrainedAnswerIsNegative) {
  // x1 = 3 and x1 + x2 = 2: unconstrained (3, -1). With x2 held at 0, (x1 - 3)² + (x1 - 2)² is least at
  // x1 = 2.5, and its slope in x2 there, 2(x1 + x2 - 2) = 1, pushes x2 into the bound: (2.5, 0).
  LsProblem p(std::vector<double>{1, 1});
  p.lambda = 0;
  p.addRow(std::vector<double>{1, 0}, 3);
  p.addRow(std::vector<double>{1, 1}, 2);
  const LsSolution s = solveNnls(p);
  EXPECT_NEAR(s.x[0], 2.5, 1e-12);
  EXPECT_EQ(s.x[1], 0);
  EXPECT_TRUE(s.atZero[1]);
  EXPECT_FALSE(s.atZero[0]);
  EXPECT_NEAR(s.weightedResidual, 0.5, 1e-12);
}

TEST(SweepFitSolver, AFullRankSystemIsSolvedExactlyAndWeightsCount) {
  LsProblem p(std::vector<double>{8.4, 1.9, 0.6});
  p.lambda = 0;
  const double truth[] = {5.1, 1.2, 0.9};
  const double rows[][3] = {{1, 6, 0}, {1, 14, 0}, {1, 30, 0}, {0, 0, 1}, {1, 0, 2}};
  for (const auto& r : rows) p.addRow(r, r[0] * truth[0] + r[1] * truth[1] + r[2] * truth[2], 1 / 25.0);
  const LsSolution s = solveNnls(p);
  for (int j = 0; j < 3; ++j) {
    EXPECT_TRUE(s.identified[j]) << j;
    EXPECT_NEAR(s.x[j], truth[j], 1e-9) << j;
  }
  // Two rows that disagree: the heavier one wins in proportion (w1 (x - 1)² + w2 (x - 2)²: x = (w1 + 2 w2) / (w1 +
  // w2)).
  LsProblem q(std::vector<double>{1});
  q.lambda = 0;
  q.addRow(std::vector<double>{1}, 1, 3);
  q.addRow(std::vector<double>{1}, 2, 1);
  EXPECT_NEAR(solveNnls(q).x[0], 1.25, 1e-12);
}

TEST(SweepFitSolver, AnUnknownTheDataCannotPinStaysAtItsPrior) {
  // One rank count: only base + 6·hw is seen (NCCL's Ring latency on one NVLink domain of 4), so neither the base
  // nor the per-hop latency is identified; the third unknown has rows of its own; the fourth appears in none.
  const std::vector<double> prior{8.4, 1.9, 3.0, 0.0};
  LsProblem p(prior);
  p.addRow(std::vector<double>{1, 6, 0, 0}, 20, 1 / 400.0);
  p.addRow(std::vector<double>{1, 6, 0, 0}, 21, 1 / 400.0);
  p.addRow(std::vector<double>{0, 0, 1, 0}, 7, 1 / 49.0);
  const LsSolution s = solveNnls(p);
  EXPECT_FALSE(s.identified[0]);
  EXPECT_FALSE(s.identified[1]);
  EXPECT_TRUE(s.identified[2]);
  EXPECT_FALSE(s.identified[3]);
  EXPECT_EQ(s.x[0], 8.4);
  EXPECT_EQ(s.x[1], 1.9);
  EXPECT_EQ(s.x[3], 0.0);
  // The data, pulled a little toward 3 by λ: in x/3, (3y - 7)²/49 + λ(y - 1)² is least at
  // y = (42/49 + 2λ) / (18/49 + 2λ).
  EXPECT_NEAR(s.x[2], 3 * (42.0 / 49 + 2e-3) / (18.0 / 49 + 2e-3), 1e-12);
  EXPECT_GT(s.x[2], 6.95);
  // A second rank count separates them (base + 14·hw): both identified.
  p.addRow(std::vector<double>{1, 14, 0, 0}, 30, 1 / 900.0);
  const std::vector<uint8_t> id = identifiedUnknowns(p);
  EXPECT_TRUE(id[0] && id[1] && id[2]);
  EXPECT_FALSE(id[3]);
}

TEST(SweepFitSolver, TheRegularizationPullsTowardThePrior) {
  LsProblem p(std::vector<double>{10});
  p.addRow(std::vector<double>{1}, 20, 1 / 400.0);
  p.lambda = 0;
  EXPECT_NEAR(solveNnls(p).x[0], 20, 1e-9);
  p.lambda = 1e-3;
  const double weak = solveNnls(p).x[0];
  p.lambda = 1;
  const double strong = solveNnls(p).x[0];
  EXPECT_LT(weak, 20);
  EXPECT_GT(weak, 19.5);
  EXPECT_LT(strong, weak);
  EXPECT_GT(strong, 10);
}

// Karush-Kuhn-Tucker on a random problem with many bounds active: the gradient vanishes on free unknowns and
// points into the bound on those at zero.
TEST(SweepFitSolver, ALargerProblemMeetsTheOptimalityConditions) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t n = 40, m = 90;
  std::vector<double> prior(n);
  for (double& v : prior) v = 1 + u(rng) * 0.5;
  LsProblem p(prior);
  p.lambda = 1e-3;
  for (size_t r = 0; r < m; ++r) {
    std::vector<double> row(n);
    for (double& v : row) v = u(rng);
    p.addRow(row, 3 * u(rng), 1 + u(rng) * 0.5);
  }
  const LsSolution s = solveNnls(p);
  size_t atZero = 0;
  for (size_t j = 0; j < n; ++j) {
    ASSERT_TRUE(s.identified[j]);
    ASSERT_GE(s.x[j], 0);
    double grad = 2 * p.lambda * (s.x[j] - prior[j]) / (prior[j] * prior[j]);
    for (size_t r = 0; r < m; ++r) {
      double res = -p.target[r];
      for (size_t k = 0; k < n; ++k) res += p.rows[r * n + k] * s.x[k];
      grad += 2 * p.weight[r] * p.rows[r * n + j] * res;
    }
    if (s.x[j] > 0) {
      EXPECT_NEAR(grad, 0, 1e-8) << j;
    } else {
      EXPECT_GT(grad, -1e-8) << j;
      ++atZero;
    }
  }
  EXPECT_GT(atZero, 0u);  // the case exercises the bound
}

TEST(SweepFitSolver, MismatchedOrNegativeInputIsRefused) {
  LsProblem p(std::vector<double>{1, 2});
  EXPECT_THROW(p.addRow(std::vector<double>{1}, 1), std::invalid_argument);
  p.addRow(std::vector<double>{1, 1}, 1, -1);
  EXPECT_THROW(solveNnls(p), std::invalid_argument);
  LsProblem q(std::vector<double>{-1});
  EXPECT_THROW(solveNnls(q), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::sweep
