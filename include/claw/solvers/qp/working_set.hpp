// claw/solvers/qp/working_set.hpp: QpWorkingSet, the dual active-set method's working set W (its
// members, their sides and multipliers) and every constraint's membership.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "claw/core/types.hpp"

namespace claw {
namespace detail {

/// Where constraint c stands in a solve.
enum class QpMembership : std::int8_t {
  Outside,   ///< not in W: a candidate for the most violated constraint
  Active,    ///< in W
  SetAside,  ///< dependent on W and violated within rounding at a degenerate vertex: skipped until
             ///< W changes
  HeldOut,   ///< skipped for the rest of the solve, checked at the answer: dependent on W's
             ///< equalities alone, or swapped in a second time in the solve
};

/// The working set W of the dual active-set method over the constraints c in [0, n + m) (c < n:
/// the bound on x_c, else row c - n of A). Member k (k < size() <= n) is constraint(k) taken on
/// side sign(k) (+1: its lower bound, -1: its upper bound), as the inequality
/// sign a_c'x >= sign * bound, with multiplier u_k = multipliers()(k) (>= 0 unless an equality).
/// The members' order is the order of R's columns in QpFactors: push() and erase() keep them
/// together with QpFactors::append() and remove().
template <typename Scalar, int N, int MaxN, int Total, int MaxTotal>
class QpWorkingSet {
 public:
  using Index = Eigen::Index;
  using VectorType = Vector<Scalar, N, MaxN>;

  /// Room for n members and n + m constraints; W empty, every constraint Outside.
  void resize(Index n, Index total) {
    constraint_.setZero(n);
    sign_.setZero(n);
    equality_.setZero(n);
    u_.setZero(n);
    membership_.setZero(total);
    history_.setZero(total);
    size_ = 0;
    set_aside_ = 0;
  }

  Index size() const noexcept { return size_; }
  Index constraint(Index k) const noexcept { return constraint_.coeff(k); }
  int sign(Index k) const noexcept { return sign_.coeff(k); }
  bool equality(Index k) const noexcept { return equality_.coeff(k) != 0; }
  void set_sign(Index k, int sign) noexcept { sign_.coeffRef(k) = static_cast<std::int8_t>(sign); }
  void set_equality(Index k, bool equality) noexcept {
    equality_.coeffRef(k) = static_cast<std::int8_t>(equality ? 1 : 0);
  }
  /// u: member k's multiplier in entry k.
  VectorType& multipliers() noexcept { return u_; }
  const VectorType& multipliers() const noexcept { return u_; }
  QpMembership membership(Index c) const noexcept {
    return static_cast<QpMembership>(membership_.coeff(c));
  }

  /// Empties W: every constraint Outside.
  void clear() noexcept {
    size_ = 0;
    membership_.setZero();
    set_aside_ = 0;
  }

  /// Appends constraint c on side `sign` with multiplier u. Constraints set aside return first:
  /// W changes.
  void push(Index c, int sign, bool equality, Scalar u) noexcept {
    restore_set_aside();
    const Index k = size_;
    constraint_.coeffRef(k) = c;
    set_sign(k, sign);
    set_equality(k, equality);
    u_.coeffRef(k) = u;
    set_membership(c, QpMembership::Active);
    size_ = k + 1;
  }

  /// Removes member k (the members after it move up one place). Constraints set aside return.
  void erase(Index k) noexcept {
    restore_set_aside();
    set_membership(constraint_.coeff(k), QpMembership::Outside);
    for (Index col = k; col + 1 < size_; ++col) {
      constraint_.coeffRef(col) = constraint_.coeff(col + 1);
      sign_.coeffRef(col) = sign_.coeff(col + 1);
      equality_.coeffRef(col) = equality_.coeff(col + 1);
      u_.coeffRef(col) = u_.coeff(col + 1);
    }
    size_ = size_ - 1;
  }

  /// Sets constraint c aside: until W changes (SetAside), or until the solve ends (HeldOut).
  void set_aside(Index c, bool held_out) noexcept {
    set_membership(c, held_out ? QpMembership::HeldOut : QpMembership::SetAside);
    if (!held_out) ++set_aside_;
  }

  /// SetAside constraints are Outside again (W changed, or x was computed afresh).
  void restore_set_aside() noexcept {
    if (set_aside_ == 0) return;
    for (Index c = 0; c < membership_.size(); ++c)
      if (membership(c) == QpMembership::SetAside) set_membership(c, QpMembership::Outside);
    set_aside_ = 0;
  }

  /// The solve ended: SetAside and HeldOut constraints are Outside again.
  void end_solve() noexcept {
    for (Index c = 0; c < membership_.size(); ++c)
      if (membership(c) == QpMembership::SetAside || membership(c) == QpMembership::HeldOut)
        set_membership(c, QpMembership::Outside);
    set_aside_ = 0;
  }

  /// Whether the fresh-solve refresh dropped constraint c in this solve (it drops each one once).
  bool dropped_by_refresh(Index c) const noexcept { return recorded(c, kDroppedByRefresh); }
  void mark_dropped_by_refresh(Index c) noexcept { record(c, kDroppedByRefresh); }
  /// Whether constraint c entered W in this solve as a dependent constraint missed within the
  /// threshold (by dropping a member: a swap at one vertex).
  bool swapped_in_before(Index c) const noexcept { return recorded(c, kSwappedIn); }
  void mark_swapped_in(Index c) noexcept { record(c, kSwappedIn); }
  /// A new solve: no constraint has been dropped by the refresh or swapped in yet.
  void forget_history() noexcept { history_.setZero(); }

 private:
  bool recorded(Index c, std::int8_t event) const noexcept {
    return (history_.coeff(c) & event) != 0;
  }
  void record(Index c, std::int8_t event) noexcept {
    history_.coeffRef(c) = static_cast<std::int8_t>(history_.coeff(c) | event);
  }
  void set_membership(Index c, QpMembership state) noexcept {
    membership_.coeffRef(c) = static_cast<std::int8_t>(state);
  }

  Eigen::Matrix<Index, N, 1, Eigen::ColMajor, MaxN, 1> constraint_;
  Eigen::Matrix<std::int8_t, N, 1, Eigen::ColMajor, MaxN, 1> sign_;
  Eigen::Matrix<std::int8_t, N, 1, Eigen::ColMajor, MaxN, 1> equality_;
  VectorType u_;
  Eigen::Matrix<std::int8_t, Total, 1, Eigen::ColMajor, MaxTotal, 1> membership_;
  // What happened to each constraint in this solve (bits kDroppedByRefresh, kSwappedIn).
  static constexpr std::int8_t kDroppedByRefresh = 1;
  static constexpr std::int8_t kSwappedIn = 2;
  Eigen::Matrix<std::int8_t, Total, 1, Eigen::ColMajor, MaxTotal, 1> history_;
  Index size_ = 0;
  Index set_aside_ = 0;  // constraints SetAside
};

}  // namespace detail
}  // namespace claw
