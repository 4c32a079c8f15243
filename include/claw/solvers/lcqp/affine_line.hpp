// claw/solvers/lcqp/affine_line.hpp: detail::LcqpAffineLine, the LCQP's variables as an affine
// function x = x0 + T lambda of the pair values, when one side selects variables (monotone path).
#pragma once

#include <Eigen/Core>

#include "claw/core/types.hpp"
#include "claw/solvers/detail/gauss_jordan.hpp"

namespace claw {
namespace detail {

/// x = x0 + T lambda for an LCQP whose one side selects variables (row i of that side has one
/// nonzero entry a_i > 0, in column j_i, and distinct rows use distinct columns: lambda_i = a_i
/// x_j_i - lb_sel_i) and whose equality rows of A determine the other n - m variables y:
///  - the selected columns: x_j_i = (lambda_i + lb_sel_i) / a_i;
///  - the free ones: y = Y_b - Y_lambda x_sel from the equality rows [E_y | E_lambda | b]. When
///    x = [y; lambda] (the selected columns last, in order) and E_y = I exactly, Y = [E_lambda | b]
///    is read from A in place; otherwise the rows are gathered and eliminated with partial
///    pivoting in a caller's scratch matrix.
/// Owns x0, T and the column roles (sized by reserve(n, m)); no heap beyond reserve().
template <typename Scalar, int MaxN, int MaxP>
class LcqpAffineLine {
 public:
  using Index = Eigen::Index;
  using VectorN = Vector<Scalar, Dynamic, MaxN>;
  using VectorP = Vector<Scalar, Dynamic, MaxP>;
  using MatrixNP = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN, MaxP>;

  void reserve(Index n, Index m) {
    sel_col_.resize(m);
    sel_scale_.resize(m);
    free_col_.resize(n);
    col_role_.resize(n);
    t_.resize(n, m);
    x0_.resize(n);
  }

  const VectorN& x0() const noexcept { return x0_; }            ///< x at lambda = 0
  const MatrixNP& t() const noexcept { return t_; }             ///< dx / dlambda (n x m)
  const VectorP& scale() const noexcept { return sel_scale_; }  ///< a_i of each pair

  /// True when every row of `s` (m x n) has exactly one nonzero entry, positive, in distinct
  /// columns; records the columns, the entries a_i and each column's role (its pair, or -1).
  template <typename MatrixType>
  bool selects_variables(const MatrixType& s, Index n, Index m) noexcept {
    col_role_.setConstant(n, -1);
    for (Index i = 0; i < m; ++i) {
      Index col = -1;
      for (Index j = 0; j < n; ++j) {
        if (s.coeff(i, j) == Scalar(0)) continue;
        if (col >= 0) return false;
        col = j;
      }
      if (col < 0 || !(s.coeff(i, col) > Scalar(0)) || col_role_.coeff(col) >= 0) return false;
      col_role_.coeffRef(col) = static_cast<int>(i);
      sel_col_.coeffRef(i) = static_cast<int>(col);
      sel_scale_.coeffRef(i) = s.coeff(i, col);
    }
    return true;
  }

  /// Builds x0 and T after selects_variables() returned true for p's selecting side, whose lower
  /// bounds are lb_sel. `lu` (at least (n - m) x (n + 1)) is scratch for the elimination. False
  /// unless the equalities (lbA = ubA) are exactly n - m rows, nonsingular on the free variables.
  template <typename Problem, typename SelectedBounds, typename Scratch>
  bool build(const Problem& p, const SelectedBounds& lb_sel, Scratch& lu) noexcept {
    const Index n = x0_.size(), m = sel_scale_.size(), nc = p.A.rows();
    const Index ny = n - m;
    bool identity = true;
    for (Index i = 0; i < m; ++i) identity = identity && sel_col_.coeff(i) == ny + i;
    // One pass over the rows: the equalities in order (in free_col_ until the free columns
    // replace them), and whether E_y = I.
    Index eq = 0;
    for (Index i = 0; i < nc; ++i) {
      if (p.lbA.coeff(i) != p.ubA.coeff(i)) continue;
      if (eq >= ny) return false;
      identity = identity && unit_row(p, i, eq, ny);
      free_col_.coeffRef(eq++) = static_cast<int>(i);
    }
    if (eq != ny) return false;
    x0_.setZero(n);
    t_.setZero(n, m);
    for (Index i = 0; i < m; ++i) {
      const Index j = sel_col_.coeff(i);
      const Scalar a = sel_scale_.coeff(i);
      x0_.coeffRef(j) = lb_sel.coeff(i) / a;
      t_.coeffRef(j, i) = Scalar(1) / a;
    }
    if (identity) {
      // [E_lambda | b] read in place: equality c (row free_col_(c) of A) belongs to free column c.
      fill_free_rows(
          ny, m, [](Index c) { return c; },
          [&](Index c, Index i) { return p.A.coeff(free_col_.coeff(c), ny + i); },
          [&](Index c) { return p.lbA.coeff(free_col_.coeff(c)); });
      return true;
    }
    Index k = 0;
    for (Index j = 0; j < n; ++j)
      if (col_role_.coeff(j) < 0) free_col_.coeffRef(k++) = static_cast<int>(j);
    gather_equalities(p, ny, m, lu);
    if (ny > 0 && !gauss_jordan(lu, ny, ny + m + 1)) return false;
    fill_free_rows(
        ny, m, [&](Index c) { return static_cast<Index>(free_col_.coeff(c)); },
        [&](Index c, Index i) { return lu.coeff(c, ny + i); },
        [&](Index c) { return lu.coeff(c, ny + m); });
    return true;
  }

 private:
  /// Whether row i of A is the unit row e_r on the first ny columns (1 in column r, no other
  /// nonzero; counted without a branch per entry).
  template <typename Problem>
  static bool unit_row(const Problem& p, Index i, Index r, Index ny) noexcept {
    LaneCount<Scalar> nonzero = 0;
    for (Index c = 0; c < ny; ++c) nonzero += p.A.coeff(i, c) != Scalar(0) ? 1 : 0;
    return nonzero == 1 && p.A.coeff(i, r) == Scalar(1);
  }

  /// The free rows of x0 and T from Y = [Y_lambda | Y_b] (y_c = Y_b,c - Y_lambda,c x_sel, the terms
  /// subtracted in the order of the pairs; T_c = -Y_lambda,c / a), once the selected rows are set:
  /// column(c) is free column c's index in x, y(c, i) and b(c) read Y.
  template <typename Column, typename YLambda, typename YB>
  void fill_free_rows(Index ny, Index m, Column column, YLambda y, YB b) noexcept {
    for (Index c = 0; c < ny; ++c) x0_.coeffRef(column(c)) = b(c);
    for (Index i = 0; i < m; ++i) {
      const Index sel = sel_col_.coeff(i);
      const Scalar x_sel = x0_.coeff(sel), inv_a = t_.coeff(sel, i);
      for (Index c = 0; c < ny; ++c) {
        const Scalar yl = y(c, i);
        x0_.coeffRef(column(c)) -= yl * x_sel;
        t_.coeffRef(column(c), i) = -yl * inv_a;
      }
    }
  }

  /// Copies the equality rows as [E_y | E_lambda | b] into lu, the columns gathered by free_col_
  /// and sel_col_.
  template <typename Problem, typename Scratch>
  void gather_equalities(const Problem& p, Index ny, Index m, Scratch& lu) const noexcept {
    for (Index i = 0, r = 0; i < p.A.rows(); ++i) {
      if (p.lbA.coeff(i) != p.ubA.coeff(i)) continue;
      for (Index c = 0; c < ny; ++c) lu.coeffRef(r, c) = p.A.coeff(i, free_col_.coeff(c));
      for (Index c = 0; c < m; ++c) lu.coeffRef(r, ny + c) = p.A.coeff(i, sel_col_.coeff(c));
      lu.coeffRef(r, ny + m) = p.lbA.coeff(i);
      ++r;
    }
  }

  using IntP = Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxP, 1>;
  using IntN = Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxN, 1>;

  VectorN x0_;
  VectorP sel_scale_;
  IntP sel_col_;
  IntN free_col_, col_role_;  // free_col_ first holds the equality rows (build)
  MatrixNP t_;
};

}  // namespace detail
}  // namespace claw
