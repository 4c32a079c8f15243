// claw/solvers/detail/qp_linalg.hpp: the small dense kernels of the QP solver: Cholesky with a
// strict definiteness test, the inverse of a Cholesky factor, Givens rotations, row norms. Plain
// loops: no allocation.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "claw/solvers/detail/numerics.hpp"

namespace claw {
namespace detail {

/// ||v||_2 of a row or column (k entries) without overflow or harmful underflow, in one pass when
/// it can: the plain sum of squares s when k min / eps <= s <= max (no square overflowed, since
/// the sum is finite; b = max |v_i| >= sqrt(s / k) >= sqrt(min / eps), so a square that underflows
/// is below eps b^2), else with b = max |v_i| as the first pass the plain sum when
/// sqrt(min / eps) <= b <= sqrt(max) / k, else b times the norm of v / b. A NaN entry gives NaN,
/// else an infinite one +inf. O(k).
template <typename Derived>
typename Derived::Scalar euclidean_norm(const Eigen::MatrixBase<Derived>& v) noexcept {
  using Scalar = typename Derived::Scalar;
  const Eigen::Index k = v.size();
  if (k == 0) return Scalar(0);
  const Scalar sum = v.squaredNorm();  // Eigen's reduction: vectorised
  const Scalar low2 = std::numeric_limits<Scalar>::min() / machine_epsilon<Scalar>();
  if (sum <= std::numeric_limits<Scalar>::max() && sum >= static_cast<Scalar>(k) * low2)
    return std::sqrt(sum);     // NaN fails both tests
  if (sum != sum) return sum;  // a NaN entry: a sum of squares is NaN for no other input
  const Scalar big = v.cwiseAbs().maxCoeff();
  if (!(big > Scalar(0))) return Scalar(0);
  if (big > std::numeric_limits<Scalar>::max()) return big;  // an infinite entry
  const Scalar low = std::sqrt(low2);
  const Scalar high = std::sqrt(std::numeric_limits<Scalar>::max()) / static_cast<Scalar>(k);
  if (big >= low && big <= high) return std::sqrt(sum);
  return big * (v / big).norm();
}

/// In-place Cholesky factorisation a = L L' of the symmetric matrix whose lower triangle is stored
/// in the top-left n x n block of `a`; L overwrites that lower triangle (the strict upper triangle
/// is not read and is left as it was). Returns false, with `a` partly overwritten, when a pivot is
/// not finite or not above both n eps max_i a_ii and the smallest normal number: the matrix is then
/// not positive definite, or so close to singular (or so tiny) that it cannot be called strictly
/// convex in this precision.
template <typename MatrixType>
bool cholesky_lower_in_place(MatrixType& a, Eigen::Index n) noexcept {
  using Scalar = typename MatrixType::Scalar;
  Scalar max_diagonal = Scalar(0);
  for (Eigen::Index i = 0; i < n; ++i)
    max_diagonal = a.coeff(i, i) > max_diagonal ? a.coeff(i, i) : max_diagonal;
  const Scalar threshold = cholesky_pivot_floor(n, max_diagonal);
  for (Eigen::Index j = 0; j < n; ++j) {
    Scalar pivot = a.coeff(j, j);
    for (Eigen::Index k = 0; k < j; ++k) pivot -= a.coeff(j, k) * a.coeff(j, k);
    if (!(pivot > threshold) || !(pivot <= std::numeric_limits<Scalar>::max())) return false;
    const Scalar diagonal = std::sqrt(pivot);
    a.coeffRef(j, j) = diagonal;
    for (Eigen::Index i = j + 1; i < n; ++i) {
      Scalar sum = a.coeff(i, j);
      for (Eigen::Index k = 0; k < j; ++k) sum -= a.coeff(i, k) * a.coeff(j, k);
      a.coeffRef(i, j) = sum / diagonal;
    }
  }
  return true;
}

/// Given the lower-triangular Cholesky factor L (top-left n x n lower triangle of `l`), writes
/// J = L^-T P into the top-left n x n block of `j`, where P reverses the column order. Then
/// J J' = (L L')^-1, and row i of J is zero beyond column n - 1 - i: the trailing zeros make the
/// first simple bounds added to the active set cheaper (fewer rotations).
template <typename MatrixL, typename MatrixJ>
void inverse_factor_reversed(const MatrixL& l, MatrixJ& j, Eigen::Index n) noexcept {
  using Scalar = typename MatrixJ::Scalar;
  // Column c of L^-1 (lower triangular) by forward substitution; it is row c of L^-T, which goes
  // to row c of J with column k of L^-T stored as column n - 1 - k.
  for (Eigen::Index c = 0; c < n; ++c) {
    for (Eigen::Index k = 0; k < c; ++k) j.coeffRef(c, n - 1 - k) = Scalar(0);  // (L^-1)(k, c)
    j.coeffRef(c, n - 1 - c) = Scalar(1) / l.coeff(c, c);
    for (Eigen::Index i = c + 1; i < n; ++i) {
      Scalar sum = Scalar(0);
      for (Eigen::Index k = c; k < i; ++k) sum += l.coeff(i, k) * j.coeff(c, n - 1 - k);
      j.coeffRef(c, n - 1 - i) = -sum / l.coeff(i, i);  // (L^-1)(i, c) = (L^-T)(c, i)
    }
  }
}

/// Givens rotation G = [c s; -s c] with G [a; b] = [r; 0] and c^2 + s^2 = 1 to rounding. Returns
/// r = sqrt(a^2 + b^2) >= 0 and writes c, s (c = 1, s = 0 when a = b = 0). The squares are formed
/// directly only when max(|a|, |b|) keeps them normal floating-point numbers; otherwise a and b
/// are scaled first: entries that should be zero often come as 1e-160 or less, and squares that
/// underflow to subnormals would make G a non-orthogonal matrix that silently corrupts J.
template <typename Scalar>
inline Scalar make_givens(Scalar a, Scalar b, Scalar& c, Scalar& s) noexcept {
  const Scalar abs_a = std::fabs(a);
  const Scalar abs_b = std::fabs(b);
  const Scalar largest = abs_a > abs_b ? abs_a : abs_b;
  if (largest == Scalar(0)) {
    c = Scalar(1);
    s = Scalar(0);
    return Scalar(0);
  }
  const Scalar small = std::sqrt(std::numeric_limits<Scalar>::min());
  const Scalar big = std::sqrt(std::numeric_limits<Scalar>::max()) / Scalar(4);
  Scalar r;
  if (largest > small && largest < big) {
    r = std::sqrt(a * a + b * b);
  } else {
    const Scalar as = a / largest;
    const Scalar bs = b / largest;
    r = largest * std::sqrt(as * as + bs * bs);
  }
  c = a / r;
  s = b / r;
  return r;
}

/// Columns (p, q) of the first `rows` rows of m <- (c m_p + s m_q, -s m_p + c m_q), i.e. m <- m G'.
template <typename MatrixType, typename Scalar>
inline void rotate_columns(MatrixType& m, Eigen::Index rows, Eigen::Index p, Eigen::Index q,
                           Scalar c, Scalar s) noexcept {
  static_assert(!MatrixType::IsRowMajor, "rotate_columns: needs column-major storage");
  Scalar* mp = &m.coeffRef(0, p);
  Scalar* mq = &m.coeffRef(0, q);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Scalar a = mp[i];
    const Scalar b = mq[i];
    mp[i] = c * a + s * b;
    mq[i] = c * b - s * a;
  }
}

/// Rows (p, q) of columns [first, last) of m <- (c m_p + s m_q, -s m_p + c m_q), i.e. m <- G m.
template <typename MatrixType, typename Scalar>
inline void rotate_rows(MatrixType& m, Eigen::Index first, Eigen::Index last, Eigen::Index p,
                        Eigen::Index q, Scalar c, Scalar s) noexcept {
  for (Eigen::Index k = first; k < last; ++k) {
    const Scalar a = m.coeff(p, k);
    const Scalar b = m.coeff(q, k);
    m.coeffRef(p, k) = c * a + s * b;
    m.coeffRef(q, k) = c * b - s * a;
  }
}

}  // namespace detail
}  // namespace claw
