// The little dense linear algebra the fit's solver needs (nnls.h), for matrices of at most a few dozen rows: a
// symmetric eigendecomposition (cyclic Jacobi: slow in n³ but exact to rounding and simple) and a Cholesky
// solve. Matrices are n×n, row-major.
#pragma once

#include <cstddef>
#include <vector>

namespace railtune::sweep {

struct SymmetricEigen {
  std::vector<double> values;   // n eigenvalues, descending
  std::vector<double> vectors;  // n×n, row-major: column k is the eigenvector of values[k]
};
SymmetricEigen symmetricEigen(std::vector<double> a, size_t n);

// Solves a·x = b in place of b for a symmetric positive definite a; false (b unspecified) when a is not.
bool choleskySolve(std::vector<double> a, size_t n, std::vector<double>& b);

}  // namespace railtune::sweep
