// claw/solvers/detail/min_max.hpp: max_of / min_of, the comparisons the solvers use on numbers
// known not to be NaN, and std::fmax / std::fmin's NaN rule inline (a library call on most
// targets).
#pragma once

namespace claw {
namespace detail {

template <typename Scalar>
inline Scalar max_of(Scalar a, Scalar b) noexcept {
  return b > a ? b : a;
}
template <typename Scalar>
inline Scalar min_of(Scalar a, Scalar b) noexcept {
  return b < a ? b : a;
}

/// std::fmax(a, b): the larger, a NaN argument ignored (NaN only when both are).
template <typename Scalar>
inline Scalar max_ignoring_nan(Scalar a, Scalar b) noexcept {
  return (a > b || b != b) ? a : b;
}
/// std::fmin(a, b): the smaller, a NaN argument ignored (NaN only when both are).
template <typename Scalar>
inline Scalar min_ignoring_nan(Scalar a, Scalar b) noexcept {
  return (a < b || b != b) ? a : b;
}

}  // namespace detail
}  // namespace claw
