// claw/core/types.hpp: the Eigen vector and 3xN state types claw is built on, and the small helpers
// every law uses: clip(), all_finite(), the template-size conventions (fixed, bounded, dynamic).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace claw {

/// Size conventions for every claw template <typename Scalar, int N, int MaxN = N>:
///  - fixed:   N > 0 (e.g. 7), MaxN = N, storage inline, no heap;
///  - bounded: N = Eigen::Dynamic, MaxN > 0: inline storage of MaxN, runtime size <= MaxN, no heap;
///  - dynamic: N = MaxN = Eigen::Dynamic: allocates in the constructor only.
/// One parameter order for every sized type: Scalar, then N and MaxN (joints or variables), then
/// each further dimension as its size and capacity (M, MaxM: rows of A or distances). A dimension
/// that is always sized at run time has only its capacity: QpSolver<Scalar, N, MaxN, M, MaxM>,
/// FliqcFilter<Scalar, N, MaxN, MaxM>, LcqpSolver<Scalar, MaxN, MaxC, MaxP> (variables, rows of A,
/// complementarity pairs).
constexpr int Dynamic = Eigen::Dynamic;

/// Column vector of N joints (one entry per joint; a batch of robots is one long vector).
template <typename Scalar, int N, int MaxN = N>
using Vector = Eigen::Matrix<Scalar, N, 1, Eigen::ColMajor, MaxN, 1>;

/// Command state S = [p; v; a], 3 rows (position, velocity, acceleration) by N joints.
/// Row-major like gym_jiminy's 3xN arrays: each row is one contiguous vector, which keeps the
/// batched loops streaming and vectorisable. (A single joint, N = 1, is column-major: Eigen rule.)
template <typename Scalar, int N, int MaxN = N>
using StateMatrix =
    Eigen::Matrix<Scalar, 3, N, (N == 1 ? Eigen::ColMajor : Eigen::RowMajor), 3, MaxN>;

/// Row indices of a StateMatrix.
enum StateRow : int { kPosition = 0, kVelocity = 1, kAcceleration = 2 };

/// Lower and upper bounds of a 3xN command state (rows as in StateMatrix). Infinite entries mean
/// "unbounded". Valid when no entry is NaN and lower <= upper entrywise (see
/// validate_state_bounds).
template <typename Scalar, int N, int MaxN = N>
struct StateBounds {
  StateMatrix<Scalar, N, MaxN> lower;  ///< rows p [pos], v [pos/s], a [pos/s^2]; -inf: unbounded
  StateMatrix<Scalar, N, MaxN> upper;  ///< same rows, >= lower entrywise; +inf: unbounded
};

/// clip(x, lo, hi) = min(max(x, lo), hi). With lo > hi the answer is hi (the gym_jiminy order).
/// NaN x passes through unchanged; callers check finiteness before.
template <typename Scalar>
constexpr Scalar clip(Scalar x, Scalar lo, Scalar hi) noexcept {
  const Scalar above = (x < lo) ? lo : x;  // std::max(x, lo)
  return (hi < above) ? hi : above;        // std::min(above, hi)
}

/// True when x is neither NaN nor +-Inf. claw needs IEEE semantics: never build it with
/// -ffast-math.
template <typename Scalar>
inline bool is_finite(Scalar x) noexcept {
  return std::isfinite(x);
}

/// True when every argument holds exactly n coefficients: the size check every hot call makes, in
/// every build, before it touches anything (a mismatch is Status::SizeMismatch).
template <typename... Vectors>
constexpr bool all_have_size(Eigen::Index n, const Vectors&... vectors) noexcept {
  return ((vectors.size() == n) && ...);
}

/// True when indices begin .. begin + count - 1 lie within 0 .. size - 1 (count 0: any begin in
/// 0 .. size); the test of every call that takes a range of joints.
constexpr bool range_within(Eigen::Index begin, Eigen::Index count, Eigen::Index size) noexcept {
  return begin >= 0 && count >= 0 && begin <= size - count;
}

namespace detail {

/// True when D's coefficients are one contiguous array (plain vectors, Maps, segments).
template <typename D>
constexpr bool contiguous() noexcept {
  return (static_cast<unsigned>(Eigen::internal::traits<D>::Flags) & Eigen::DirectAccessBit) != 0 &&
         D::InnerStrideAtCompileTime == 1;
}

/// True when every one of Ds is contiguous (contiguous<D>()): the arrays a kernel reads as plain
/// pointers.
template <typename... Ds>
constexpr bool all_contiguous() noexcept {
  return (contiguous<Ds>() && ...);
}

/// An integer as wide as Scalar: the counter of a loop over arrays that counts events (a NaN
/// input, an overflowed result) and still vectorises, which a bool accumulator does not.
template <typename Scalar>
using LaneCount = typename std::conditional<sizeof(Scalar) == 8, std::int64_t, std::int32_t>::type;

/// A size along a dimension of compile-time size N: N itself when it is fixed (a constant, so
/// the loops over it unroll), else `runtime`.
template <int N>
constexpr Eigen::Index fixed_or(Eigen::Index runtime) noexcept {
  return N != Dynamic ? Eigen::Index(N) : runtime;
}

/// all_finite() of `size` contiguous coefficients: one function per Scalar, whatever the Eigen
/// type (when optimising for size, one copy of the loop instead of one per call site).
template <typename Scalar>
bool all_finite_array(const Scalar* data, Eigen::Index size) noexcept {
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  LaneCount<Scalar> non_finite = 0;
  for (Eigen::Index i = 0; i < size; ++i) non_finite += std::fabs(data[i]) <= kMax ? 0 : 1;
  return non_finite == 0;
}

}  // namespace detail

/// True when every coefficient of m is finite (no NaN, no Inf).
/// Branch-free (no early exit), so it costs the same for every input; on contiguous storage it
/// counts with an integer as wide as Scalar, which the compiler can vectorise.
template <typename Derived>
inline bool all_finite(const Eigen::DenseBase<Derived>& m) noexcept {
  using Scalar = typename Derived::Scalar;
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  // One array of m.size() coefficients: a contiguous vector, or a whole matrix (a plain object's
  // storage has no gaps; a block of one may).
  constexpr bool kContiguous = detail::contiguous<Derived>() &&
                               (Derived::IsVectorAtCompileTime != 0 ||
                                std::is_base_of<Eigen::PlainObjectBase<Derived>, Derived>::value);
  if constexpr (kContiguous && std::is_floating_point<Scalar>::value) {
    return detail::all_finite_array(m.derived().data(), m.size());
  } else {
    bool finite = true;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) finite &= std::fabs(m.coeff(i, j)) <= kMax;
    return finite;
  }
}

// A kernel over long (batched) arrays runs as a function of its own where this marks it: inlined
// behind a run-time dispatch, GCC 12 may estimate the copy's loop as rarely run and leave it
// scalar; out of line the loop is vectorised (benchmarks: the batched rows' roofline_ratio).
// Not when optimising for size (firmware), where a call per kernel costs more than it saves.
#ifndef CLAW_DETAIL_NOINLINE
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE_SIZE__)
#define CLAW_DETAIL_NOINLINE __attribute__((noinline))
#else
#define CLAW_DETAIL_NOINLINE
#endif
#endif

namespace detail {

/// True when x[0..n), y[0..n) and z[0..n) hold no NaN/Inf. x - x is +0 (all bits clear) for a
/// finite x and NaN otherwise; ORing the bits over the spans, with no early exit and no branch
/// per entry, vectorises.
template <typename Scalar>
inline bool spans_all_finite(const Scalar* x, const Scalar* y, const Scalar* z,
                             Eigen::Index n) noexcept {
  static_assert(
      std::numeric_limits<Scalar>::is_iec559 && (sizeof(Scalar) == 4 || sizeof(Scalar) == 8),
      "spans_all_finite: IEEE binary32 or binary64 only");
  using Bits = std::conditional_t<sizeof(Scalar) == 8, std::uint64_t, std::uint32_t>;
  Bits acc = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Scalar dx = x[i] - x[i], dy = y[i] - y[i], dz = z[i] - z[i];
    Bits bx, by, bz;
    std::memcpy(&bx, &dx, sizeof(Bits));
    std::memcpy(&by, &dy, sizeof(Bits));
    std::memcpy(&bz, &dz, sizeof(Bits));
    acc |= bx | by | bz;
  }
  return acc == 0;
}

/// A vector expression whose coefficients are a plain array: direct access and unit stride.
template <typename Derived>
constexpr bool has_direct_access() noexcept {
  return (int(Derived::Flags) & Eigen::DirectAccessBit) != 0 && Derived::IsVectorAtCompileTime;
}

template <typename Derived>
inline bool is_unit_stride(const Eigen::MatrixBase<Derived>& x) noexcept {
  if constexpr (has_direct_access<Derived>())
    return x.size() <= 1 || x.derived().innerStride() == 1;
  else
    return false;
}

/// all_finite(x) && all_finite(y) && all_finite(z) for three vectors of one size, through
/// spans_all_finite when all three are unit-stride IEEE float/double vectors.
template <typename DX, typename DY, typename DZ>
inline bool vectors_all_finite(const Eigen::MatrixBase<DX>& x, const Eigen::MatrixBase<DY>& y,
                               const Eigen::MatrixBase<DZ>& z) noexcept {
  using Scalar = typename DX::Scalar;
  if constexpr (has_direct_access<DX>() && has_direct_access<DY>() && has_direct_access<DZ>() &&
                std::numeric_limits<Scalar>::is_iec559 &&
                (sizeof(Scalar) == 4 || sizeof(Scalar) == 8)) {
    if (is_unit_stride(x) && is_unit_stride(y) && is_unit_stride(z))
      return spans_all_finite(x.derived().data(), y.derived().data(), z.derived().data(), x.size());
  }
  return all_finite(x) && all_finite(y) && all_finite(z);
}

}  // namespace detail

/// True when no coefficient of m is NaN (infinities allowed: they mean "unbounded").
/// Branch-free like all_finite (x != x only for NaN).
template <typename Derived>
inline bool none_nan(const Eigen::DenseBase<Derived>& m) noexcept {
  using Scalar = typename Derived::Scalar;
  if constexpr (detail::contiguous<Derived>() && Derived::IsVectorAtCompileTime != 0 &&
                std::is_floating_point<Scalar>::value) {
    const Scalar* data = m.derived().data();
    detail::LaneCount<Scalar> nan = 0;
    for (Eigen::Index i = 0; i < m.size(); ++i) nan += data[i] == data[i] ? 0 : 1;
    return nan == 0;
  } else {
    bool clean = true;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) clean &= !std::isnan(m.coeff(i, j));
    return clean;
  }
}

/// True when lower and upper hold no NaN and lower <= upper entry by entry (infinities allowed).
template <typename DerivedLower, typename DerivedUpper>
inline bool ordered_bounds(const Eigen::DenseBase<DerivedLower>& lower,
                           const Eigen::DenseBase<DerivedUpper>& upper) noexcept {
  for (Eigen::Index j = 0; j < lower.cols(); ++j)
    for (Eigen::Index i = 0; i < lower.rows(); ++i)
      if (!(lower.coeff(i, j) <= upper.coeff(i, j))) return false;
  return true;
}

/// Positive infinity of Scalar.
template <typename Scalar>
constexpr Scalar infinity() noexcept {
  return std::numeric_limits<Scalar>::infinity();
}

}  // namespace claw
