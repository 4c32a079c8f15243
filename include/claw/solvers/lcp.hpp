// claw/solvers/lcp.hpp: linear complementarity problems  0 <= z  perp  w = q + M z >= 0  solved by
// Lemke's complementary pivoting with the lexicographic rule (finite, certified ray termination).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"

namespace claw {

/// Settings of a LemkeSolver.
template <typename Scalar>
struct LemkeSettings {
  /// Hard cap on pivots per solve (Status::MaxIterations when reached). Lemke's method is finite
  /// with the lexicographic rule, but its worst case is exponential in m. >= 0.
  int max_pivots = 1000;
  /// A tableau entry counts as a positive pivot candidate when it exceeds pivot_tolerance times the
  /// largest entry of its column (relative). Finite, > 0. Default 1e-11 (double), 1e-5 (float).
  Scalar pivot_tolerance = sizeof(Scalar) <= 4 ? Scalar(1e-5) : Scalar(1e-11);

  /// InvalidParameter when max_pivots < 0 or pivot_tolerance is not finite and > 0.
  Status validate() const noexcept {
    if (max_pivots < 0) return Status::InvalidParameter;
    if (!std::isfinite(pivot_tolerance) || !(pivot_tolerance > Scalar(0)))
      return Status::InvalidParameter;
    return Status::Ok;
  }
};

/// What LemkeSolver::solve returns (a reference to the solver's own result).
///  - Ok: z >= 0, w = q + M z >= 0 and z_i w_i = 0 (up to rounding), `z_basic` marks which z_i are
///    basic in the final tableau (the rest are 0 by construction; a basic z_i may be 0 when the
///    solution is degenerate).
///  - Infeasible: the method ended on a secondary ray whose z part y (`ray`, largest entry 1) is a
///    Farkas certificate that check_lcp_certificate accepted with reach r_j = |q|_inf /
///    (sqrt(eps) max|M_ij|): no z with 0 <= z <= r satisfies q + M z >= 0. (For a
///    copositive-plus M, every positive semidefinite M is one, the exact ray has M'y = -M y <= 0
///    and q'y < 0: Cottle, Pang and Stone, The Linear Complementarity Problem, 4.4. A z beyond r
///    needs half the digits of M z to cancel to meet q.)
///    z and w are zero.
///  - IllConditioned: the method ended on a ray that is no such certificate (M not copositive-plus,
///    or the ray's rounding hides it): nothing is proved; z and w are zero, `ray` holds the ray.
///  - MaxIterations: the pivot cap was reached; z and w are zero.
///  - NonFiniteInput, SizeMismatch: refused before any work.
template <typename Scalar, int MaxM>
struct LemkeResult {
  // The vectors first and the small members last: no padding between them (FliqcFilter<float, 7,
  // 7, 8> holds a LemkeSolver in its 16 KiB budget).
  Vector<Scalar, Dynamic, MaxM> z;  ///< the solution z, m entries
  Vector<Scalar, Dynamic, MaxM> w;  ///< w = q + M z, m entries
  /// Infeasible, IllConditioned: the z part of the secondary ray (>= 0, largest entry 1); else 0.
  Vector<Scalar, Dynamic, MaxM> ray;
  /// Per entry: 1 when z_i is basic in the final tableau, else 0.
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxM, 1> z_basic;
  int pivots = 0;  ///< pivots of the last solve (see LemkeSettings::max_pivots)
  Status status = Status::InvalidProblem;  ///< see above; before the first solve: InvalidProblem
};

/// Checks a Farkas certificate y that LCP(q, M) (m x m) has no solution within a reach r, for
/// data known to within e_q (of q) and E (of M) entrywise. It holds when y is finite, y >= 0,
/// y != 0 and
///   q'y + e_q'y + sum_j max(0, (M'y)_j + (E'y)_j + rho_j) r_j  <  -rho_q,
/// rho_j = dot_rounding(m, (|M|'y)_j) and rho_q = dot_rounding(m, |q|'y) the rounding of the two
/// products. Then for every q~, M~ with |q~ - q| <= e_q, |M~ - M| <= E, and every z with
/// 0 <= z <= r: y'(q~ + M~ z) <= q'y + e_q'y + sum_j ((M'y)_j + (E'y)_j) z_j < 0, so some entry of
/// q~ + M~ z is negative. (Exact data and M'y <= 0 exactly would prove it for every z >= 0; a
/// computed y meets M'y <= 0 only to its rounding, hence the reach.) r_j = +inf is allowed where
/// the excess max(0, ...) is 0. O(m^2), no allocation.
template <typename DQ, typename DM, typename DY, typename DR, typename DEQ, typename DEM>
bool check_lcp_certificate(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DM>& m,
                           const Eigen::MatrixBase<DY>& y, const Eigen::MatrixBase<DR>& reach,
                           const Eigen::MatrixBase<DEQ>& q_error,
                           const Eigen::MatrixBase<DEM>& m_error) noexcept {
  using Scalar = typename DQ::Scalar;
  const Eigen::Index size = q.size();
  Scalar gap = Scalar(0), gap_terms = Scalar(0), y_max = Scalar(0);
  for (Eigen::Index i = 0; i < size; ++i) {
    const Scalar yi = y.coeff(i);
    if (!std::isfinite(yi) || yi < Scalar(0)) return false;
    y_max = detail::max_of(y_max, yi);
    gap += q.coeff(i) * yi;
    gap_terms += std::fabs(q.coeff(i)) * yi;
    gap += q_error.coeff(i) * yi;
  }
  if (!(y_max > Scalar(0))) return false;
  Scalar excess_sum = Scalar(0);
  for (Eigen::Index j = 0; j < size; ++j) {
    Scalar v = Scalar(0), v_terms = Scalar(0), v_error = Scalar(0);
    for (Eigen::Index i = 0; i < size; ++i) {
      v += m.coeff(i, j) * y.coeff(i);
      v_terms += std::fabs(m.coeff(i, j)) * y.coeff(i);
      v_error += m_error.coeff(i, j) * y.coeff(i);
    }
    // All terms exactly 0: v is exact (no underflow allowance, which would meet r_j = +inf).
    const Scalar rho = v_terms > Scalar(0) ? detail::dot_rounding(size, v_terms) : Scalar(0);
    const Scalar excess = v + v_error + rho;
    if (excess > Scalar(0)) excess_sum += excess * reach.coeff(j);
  }
  const Scalar rounding =
      detail::dot_rounding(2 * size, gap_terms) + detail::dot_rounding(size, excess_sum);
  return std::isfinite(gap) && std::isfinite(excess_sum) && gap + excess_sum < -rounding;
}

/// Lemke's method (covering vector e = 1, lexicographic minimum-ratio rule) for
///   find z  such that  z >= 0,  w = q + M z >= 0,  z' w = 0,
/// with M an m x m matrix. It works on the tableau B^-1 [I, -M, -e, q] (m x (2m + 2)); since the
/// initial basis is I, the first m columns are B^-1 at every step, which is what the lexicographic
/// rule compares. It processes every copositive-plus M (positive semidefinite, or with nonnegative
/// entries and a positive diagonal...): there a ray proves infeasibility. For other M it is a
/// heuristic (a ray then means "not found").
///
/// Sizes: MaxM > 0 gives inline storage (no heap at all); MaxM = Dynamic allocates in the
/// constructor / reserve() only. solve() is noexcept and allocation-free.
template <typename Scalar_, int MaxM_ = Dynamic>
class LemkeSolver {
 public:
  using Scalar = Scalar_;                     ///< the scalar type (float or double)
  using Index = Eigen::Index;                 ///< index and size type
  using Result = LemkeResult<Scalar, MaxM_>;  ///< what solve() returns
  using Settings = LemkeSettings<Scalar>;     ///< see LemkeSettings
  /// Tableau columns at most: 2 MaxM + 2 (Dynamic when MaxM is).
  static constexpr int kMaxCols = MaxM_ == Dynamic ? Dynamic : 2 * MaxM_ + 2;

  LemkeSolver() { reserve(MaxM_ == Dynamic ? 0 : MaxM_); }
  explicit LemkeSolver(Index max_m) { reserve(max_m); }  ///< storage for m <= max_m (reserve())

  /// Storage for problems of up to max_m pairs (the only call that may allocate, with MaxM =
  /// Dynamic).
  void reserve(Index max_m) {
    capacity_ = max_m;
    tableau_.resize(max_m, 2 * max_m + 2);
    basis_.resize(max_m);
    result_.z.resize(max_m);
    result_.w.resize(max_m);
    result_.z_basic.resize(max_m);
    result_.ray.resize(max_m);
  }

  /// Installs settings; InvalidParameter (old ones kept) when settings.validate() fails.
  Status set_settings(const Settings& settings) noexcept {
    const Status status = settings.validate();
    if (status == Status::Ok) settings_ = settings;
    return status;
  }
  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings
  const Result& result() const noexcept { return result_; }        ///< the last solve's result

  /// Solves LCP(q, M). q: m entries, M: m x m with m <= capacity.
  template <typename DQ, typename DM>
  [[nodiscard]] const Result& solve(const Eigen::MatrixBase<DQ>& q,
                                    const Eigen::MatrixBase<DM>& m) noexcept {
    const Index size = q.size();
    result_.pivots = 0;
    if (size > capacity_ || m.rows() != size || m.cols() != size) {
      result_.status = Status::SizeMismatch;
      return result_;
    }
    if (!all_finite(q) || !all_finite(m)) {
      result_.status = Status::NonFiniteInput;
      return result_;
    }
    m_ = size;
    result_.z.resize(size);
    result_.w.resize(size);
    result_.z_basic.resize(size);
    result_.ray.resize(size);
    result_.z.setZero();
    result_.z_basic.setZero();
    result_.ray.setZero();
    // Trivial solution z = 0.
    bool nonnegative = true;
    for (Index i = 0; i < size; ++i) nonnegative &= q.coeff(i) >= Scalar(0);
    if (nonnegative) {
      result_.w = q;
      result_.status = Status::Ok;
      return result_;
    }
    // Tableau [I, -M, -e, q]: columns 0..m-1 are w, m..2m-1 are z, 2m is z0, 2m+1 the right side.
    const Index z0 = 2 * size;
    const Index rhs = 2 * size + 1;
    for (Index i = 0; i < size; ++i) {
      for (Index j = 0; j < size; ++j) {
        tableau_.coeffRef(i, j) = i == j ? Scalar(1) : Scalar(0);
        tableau_.coeffRef(i, size + j) = -m.coeff(i, j);
      }
      tableau_.coeffRef(i, z0) = Scalar(-1);
      tableau_.coeffRef(i, rhs) = q.coeff(i);
      basis_.coeffRef(i) = static_cast<int>(i);
    }
    // z0 enters: the leaving row is the lexicographic minimum of (q_i, e_i') / -1 over all rows,
    // i.e. the lexicographic maximum of -(q_i, e_i'): the most negative q_i, ties broken by index
    // order of the identity rows (the larger index wins the reversed comparison).
    Index row = 0;
    for (Index i = 1; i < size; ++i) {
      if (q.coeff(i) <= q.coeff(row)) row = i;
    }
    if (settings_.max_pivots <= 0) return fail(Status::MaxIterations);
    pivot(row, z0);
    Index entering = basis_complement(row);
    basis_.coeffRef(row) = static_cast<int>(z0);
    for (;;) {
      if (result_.pivots >= settings_.max_pivots) return fail(Status::MaxIterations);
      const Index leave = ratio_test(entering);
      if (leave < 0) return ray_status(q, m, entering);  // secondary ray
      const int left = basis_.coeff(leave);
      pivot(leave, entering);
      basis_.coeffRef(leave) = static_cast<int>(entering);
      if (left == z0) break;
      entering = complement(left);
    }
    // Read the solution: basic variables take their right-hand side.
    result_.w.setZero();
    for (Index i = 0; i < size; ++i) {
      const int var = basis_.coeff(i);
      const Scalar value = detail::max_ignoring_nan(tableau_.coeff(i, rhs), Scalar(0));
      if (var < size) {
        result_.w.coeffRef(var) = value;
      } else if (var < 2 * size) {
        result_.z.coeffRef(var - size) = value;
        result_.z_basic.coeffRef(var - size) = 1;
      }
    }
    // w recomputed from z (nonbasic w are 0 by complementarity; basic w from the data).
    for (Index i = 0; i < size; ++i) {
      if (result_.z_basic.coeff(i) != 0) continue;
      Scalar wi = q.coeff(i);
      for (Index j = 0; j < size; ++j) wi += m.coeff(i, j) * result_.z.coeff(j);
      result_.w.coeffRef(i) = detail::max_ignoring_nan(wi, Scalar(0));
    }
    result_.status = Status::Ok;
    return result_;
  }

 private:
  /// On a secondary ray along column `col` (no entry above the pivot threshold): the entering
  /// variable grows by t, the basic variable of row i by -a_i t. Its z part, entries below 0 (from
  /// 0 < a_i <= threshold) set to 0 and scaled to a largest entry of 1, goes to `ray`; the status
  /// is Infeasible when check_lcp_certificate accepts it, else IllConditioned.
  template <typename DQ, typename DM>
  const Result& ray_status(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DM>& m,
                           Index col) noexcept {
    Vector<Scalar, Dynamic, MaxM_>& y = result_.ray;
    y.setZero(m_);
    if (col >= m_ && col < 2 * m_) y.coeffRef(col - m_) = Scalar(1);
    for (Index i = 0; i < m_; ++i) {
      const int var = basis_.coeff(i);
      if (var >= m_ && var < 2 * m_)
        y.coeffRef(var - m_) = detail::max_ignoring_nan(-tableau_.coeff(i, col), Scalar(0));
    }
    const Scalar y_max = y.template lpNorm<Eigen::Infinity>();
    const Scalar q_max = q.template lpNorm<Eigen::Infinity>();  // q, M finite: checked in solve
    const Scalar m_max = m.cwiseAbs().maxCoeff();
    bool proved = false;
    if (y_max > Scalar(0) && std::isfinite(y_max)) {
      y /= y_max;
      // +inf when M = 0
      const Scalar reach = q_max / (detail::lcp_certificate_reach_fraction<Scalar>() * m_max);
      using VectorM = Vector<Scalar, Dynamic, MaxM_>;
      using MatrixM = Eigen::Matrix<Scalar, Dynamic, Dynamic, 0, MaxM_, MaxM_>;
      proved = check_lcp_certificate(q, m, y, VectorM::Constant(m_, reach), VectorM::Zero(m_),
                                     MatrixM::Zero(m_, m_));
    }
    return fail(proved ? Status::Infeasible : Status::IllConditioned);  // keeps `ray`
  }

  const Result& fail(Status status) noexcept {
    result_.status = status;
    result_.z.setZero();
    result_.w.setZero();
    result_.z_basic.setZero();
    return result_;
  }

  Index complement(Index var) const noexcept { return var < m_ ? var + m_ : var - m_; }
  Index basis_complement(Index row) const noexcept { return complement(basis_.coeff(row)); }

  /// Lexicographic minimum-ratio test on column `col`: among rows with a positive entry, the
  /// smallest (rhs_i, B^-1_i) / a_i; the z0 row wins every tie in the first component (so the
  /// method ends as soon as it can). -1 when no entry is positive (ray).
  Index ratio_test(Index col) const noexcept {
    const Index rhs = 2 * m_ + 1;
    Scalar col_max = Scalar(0);
    for (Index i = 0; i < m_; ++i)
      col_max = detail::max_ignoring_nan(col_max, std::fabs(tableau_.coeff(i, col)));
    const Scalar threshold = settings_.pivot_tolerance * col_max;
    Index best = -1;
    for (Index i = 0; i < m_; ++i) {
      const Scalar a = tableau_.coeff(i, col);
      if (!(a > threshold)) continue;
      if (best < 0) {
        best = i;
        continue;
      }
      const int order = compare_ratios(i, best, col, rhs);
      if (order < 0) {
        best = i;
      } else if (order == 0 && basis_.coeff(i) == 2 * m_) {
        best = i;
      }
    }
    if (best < 0) return -1;
    // z0 leaves whenever it ties with the best in the first component.
    const Index z0_row = row_of_z0();
    if (z0_row >= 0 && z0_row != best) {
      const Scalar a = tableau_.coeff(z0_row, col);
      if (a > threshold) {
        const Scalar r0 = tableau_.coeff(z0_row, rhs) / a;
        const Scalar rb = tableau_.coeff(best, rhs) / tableau_.coeff(best, col);
        if (r0 <= rb + settings_.pivot_tolerance * std::fabs(rb)) return z0_row;
      }
    }
    return best;
  }

  Index row_of_z0() const noexcept {
    for (Index i = 0; i < m_; ++i)
      if (basis_.coeff(i) == 2 * m_) return i;
    return -1;
  }

  /// Compares (rhs_i, B^-1_i)/a_i with (rhs_k, B^-1_k)/a_k lexicographically: -1, 0 (equal), 1.
  int compare_ratios(Index i, Index k, Index col, Index rhs) const noexcept {
    const Scalar ai = tableau_.coeff(i, col);
    const Scalar ak = tableau_.coeff(k, col);
    const Scalar ri = tableau_.coeff(i, rhs) / ai;
    const Scalar rk = tableau_.coeff(k, rhs) / ak;
    if (ri < rk) return -1;
    if (rk < ri) return 1;
    for (Index j = 0; j < m_; ++j) {
      const Scalar vi = tableau_.coeff(i, j) / ai;
      const Scalar vk = tableau_.coeff(k, j) / ak;
      if (vi < vk) return -1;
      if (vk < vi) return 1;
    }
    return 0;
  }

  void pivot(Index row, Index col) noexcept {
    const Index cols = 2 * m_ + 2;
    const Scalar inv = Scalar(1) / tableau_.coeff(row, col);
    for (Index j = 0; j < cols; ++j) tableau_.coeffRef(row, j) *= inv;
    tableau_.coeffRef(row, col) = Scalar(1);
    for (Index i = 0; i < m_; ++i) {
      if (i == row) continue;
      const Scalar f = tableau_.coeff(i, col);
      if (f == Scalar(0)) continue;
      for (Index j = 0; j < cols; ++j) tableau_.coeffRef(i, j) -= f * tableau_.coeff(row, j);
      tableau_.coeffRef(i, col) = Scalar(0);
    }
    ++result_.pivots;
  }

  Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxM_, kMaxCols> tableau_;
  Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxM_, 1> basis_;
  Index capacity_ = 0;
  Index m_ = 0;
  Settings settings_;
  Result result_;
};

}  // namespace claw
