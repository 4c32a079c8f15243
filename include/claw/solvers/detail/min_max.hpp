// claw/solvers/detail/min_max.hpp: max_of / min_of, the comparisons the solvers use on numbers
// known not to be NaN (one instruction each, where std::fmax is a library call on most targets).
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

}  // namespace detail
}  // namespace claw
