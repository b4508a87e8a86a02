// Dense symmetric eigendecomposition and Cholesky solve (dense.h).
#include "nccl-tests-integration/fit/dense.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace railtune::sweep {
namespace {

double offDiagonalNorm(const std::vector<double>& a, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) sum += a[i * n + j] * a[i * n + j];
  return std::sqrt(sum);
}

// One Jacobi rotation zeroing a[p][q], applied to a (both sides) and accumulated into v.
void rotate(std::vector<double>& a, std::vector<double>& v, size_t n, size_t p, size_t q) {
  const double apq = a[p * n + q];
  if (apq == 0) return;
  const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
  const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
  const double c = 1 / std::sqrt(t * t + 1), s = t * c;
  for (size_t k = 0; k < n; ++k) {  // columns p and q
    const double akp = a[k * n + p], akq = a[k * n + q];
    a[k * n + p] = c * akp - s * akq;
    a[k * n + q] = s * akp + c * akq;
  }
  for (size_t k = 0; k < n; ++k) {  // rows p and q
    const double apk = a[p * n + k], aqk = a[q * n + k];
    a[p * n + k] = c * apk - s * aqk;
    a[q * n + k] = s * apk + c * aqk;
  }
  for (size_t k = 0; k < n; ++k) {
    const double vkp = v[k * n + p], vkq = v[k * n + q];
    v[k * n + p] = c * vkp - s * vkq;
    v[k * n + q] = s * vkp + c * vkq;
  }
}

}  // namespace

SymmetricEigen symmetricEigen(std::vector<double> a, size_t n) {
  std::vector<double> v(n * n, 0);
  for (size_t i = 0; i < n; ++i) v[i * n + i] = 1;
  double scale = 0;
  for (const double x : a) scale = std::max(scale, std::fabs(x));
  for (int sweep = 0; sweep < 100 && offDiagonalNorm(a, n) > 1e-15 * scale * static_cast<double>(n); ++sweep)
    for (size_t p = 0; p + 1 < n; ++p)
      for (size_t q = p + 1; q < n; ++q) rotate(a, v, n, p, q);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return a[x * n + x] > a[y * n + y]; });
  SymmetricEigen out;
  out.values.resize(n);
  out.vectors.resize(n * n);
  for (size_t k = 0; k < n; ++k) {
    out.values[k] = a[order[k] * n + order[k]];
    for (size_t i = 0; i < n; ++i) out.vectors[i * n + k] = v[i * n + order[k]];
  }
  return out;
}

bool choleskySolve(std::vector<double> a, size_t n, std::vector<double>& b) {
  for (size_t j = 0; j < n; ++j) {  // a = L·Lᵀ, L stored in the lower triangle
    double d = a[j * n + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return false;
    a[j * n + j] = std::sqrt(d);
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
  }
  for (size_t i = 0; i < n; ++i) {  // L·y = b
    for (size_t k = 0; k < i; ++k) b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (size_t i = n; i-- > 0;) {  // Lᵀ·x = y
    for (size_t k = i + 1; k < n; ++k) b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return true;
}

}  // namespace railtune::sweep
