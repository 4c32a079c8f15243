// tests/fuzz/fuzz_input.hpp: what the libFuzzer targets share: a reader that decodes the fuzz bytes
// into sizes, choices and floating-point values (ordinary, special and raw), and the contract
// checks' helpers.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

namespace claw_fuzz {

/// Aborts the fuzz run with a message (libFuzzer then saves the input as a crash).
#define CLAW_FUZZ_CHECK(condition, message)                                               \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "contract violation: %s (%s) at %s:%d\n", message, #condition, \
                   __FILE__, __LINE__);                                                   \
      __builtin_trap();                                                                   \
    }                                                                                     \
  } while (0)

/// Defines LLVMFuzzerTestOneInput: the first byte picks double or float, the rest goes to
/// run<Scalar>(FuzzInput&), the target's template.
#define CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)                                         \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    claw_fuzz::FuzzInput in(data, size);                                              \
    if (in.boolean())                                                                 \
      run<double>(in);                                                                \
    else                                                                              \
      run<float>(in);                                                                 \
    return 0;                                                                         \
  }

/// Reads the fuzz bytes front to back. Past the end every read returns 0 (or the lowest choice),
/// so every input is a complete, deterministic scenario.
class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  bool empty() const noexcept { return pos_ >= size_; }

  std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : std::uint8_t(0); }

  std::uint16_t u16() noexcept {
    const std::uint16_t lo = byte();
    return static_cast<std::uint16_t>(lo | (std::uint16_t(byte()) << 8));
  }

  std::uint64_t u64() noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(byte()) << (8 * i);
    return v;
  }

  bool boolean() noexcept { return (byte() & 1) != 0; }

  /// An integer in [lo, hi].
  int integer(int lo, int hi) noexcept {
    const unsigned span = static_cast<unsigned>(hi - lo) + 1u;
    return lo + static_cast<int>(u16() % span);
  }

  /// One of an enum's `count` values.
  template <typename Enum>
  Enum choice(int count) noexcept {
    return static_cast<Enum>(integer(0, count - 1));
  }

  /// Any value of Scalar: ordinary values of every magnitude, the special values (NaN, +-Inf, +-0,
  /// denormals, the largest and smallest normals, epsilon), and raw bit patterns.
  template <typename Scalar>
  Scalar value() noexcept {
    static_assert(std::is_floating_point<Scalar>::value, "FuzzInput::value: floating point");
    const std::uint8_t selector = byte();
    if (selector < 0xA0) return ordinary<Scalar>(selector);
    if (selector < 0xE0) return special<Scalar>(selector - 0xA0);
    return raw<Scalar>();
  }

  /// A finite value: value() with NaN/Inf replaced by an ordinary value.
  template <typename Scalar>
  Scalar finite() noexcept {
    const Scalar x = value<Scalar>();
    return std::isfinite(x) ? x : ordinary<Scalar>(static_cast<std::uint8_t>(byte() % 0xA0));
  }

  /// A value of moderate size: finite, |x| in [1e-3, 1e3] or 0 (for well-conditioned problems).
  template <typename Scalar>
  Scalar moderate() noexcept {
    const std::uint16_t m = u16();
    const int e = static_cast<int>(byte() % 7) - 3;
    const Scalar unit = Scalar(m) / Scalar(32767.5) - Scalar(1);  // [-1, 1]
    return unit * static_cast<Scalar>(std::pow(10.0, e));
  }

  /// A moderate value in [lo, hi].
  template <typename Scalar>
  Scalar uniform(Scalar lo, Scalar hi) noexcept {
    const Scalar t = Scalar(u16()) / Scalar(65535);
    return lo + (hi - lo) * t;
  }

 private:
  template <typename Scalar>
  Scalar ordinary(std::uint8_t selector) noexcept {
    // Mantissa in [-1, 1] with 16 bits, times 10^k with k from the selector: -12..12 mostly,
    // plus the extremes of the exponent range.
    const std::uint16_t m = u16();
    const Scalar unit = Scalar(m) / Scalar(32767.5) - Scalar(1);
    static constexpr int kExponents[] = {0,  0, 0,  0, 1,  -1, 2,  -2, 3,
                                         -3, 4, -4, 6, -6, 9,  -9, 12, -12};
    const int count = static_cast<int>(sizeof(kExponents) / sizeof(kExponents[0]));
    int e;
    if (selector % 16 != 15) {
      e = kExponents[selector % count];
    } else {
      const int max_exp = std::numeric_limits<Scalar>::max_exponent10;
      e = static_cast<int>(byte() % (2 * max_exp + 1)) - max_exp;
    }
    return unit * static_cast<Scalar>(std::pow(10.0L, e));
  }

  template <typename Scalar>
  static Scalar special(int index) noexcept {
    using L = std::numeric_limits<Scalar>;
    switch (index % 24) {
      case 0:
        return L::quiet_NaN();
      case 1:
        return L::infinity();
      case 2:
        return -L::infinity();
      case 3:
        return Scalar(0);
      case 4:
        return -Scalar(0);
      case 5:
        return L::denorm_min();
      case 6:
        return -L::denorm_min();
      case 7:
        return L::min();
      case 8:
        return -L::min();
      case 9:
        return L::max();
      case 10:
        return -L::max();
      case 11:
        return L::epsilon();
      case 12:
        return Scalar(1);
      case 13:
        return -Scalar(1);
      case 14:
        return L::max() / Scalar(4);
      case 15:
        return -L::max() / Scalar(4);
      case 16:
        return L::min() * Scalar(1024);  // still subnormal * 2^10: a small normal
      case 17:
        return L::denorm_min() * Scalar(12345);
      case 18:
        return Scalar(1e-9);
      case 19:
        return Scalar(1e9);
      case 20:
        return std::sqrt(L::max());
      case 21:
        return -std::sqrt(L::max());
      case 22:
        return Scalar(0.5);
      default:
        return L::signaling_NaN();
    }
  }

  template <typename Scalar>
  Scalar raw() noexcept {
    Scalar x;
    if constexpr (sizeof(Scalar) == 8) {
      const std::uint64_t bits = u64();
      std::memcpy(&x, &bits, sizeof(x));
    } else {
      const std::uint32_t bits = static_cast<std::uint32_t>(u64());
      std::memcpy(&x, &bits, sizeof(x));
    }
    return x;
  }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// Fills every coefficient of m with in.value<Scalar>().
template <typename Derived>
void fill_values(FuzzInput& in, Eigen::MatrixBase<Derived>& m) {
  using Scalar = typename Derived::Scalar;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) m.coeffRef(i, j) = in.value<Scalar>();
}

/// Fills every coefficient of m with in.finite<Scalar>().
template <typename Derived>
void fill_finite(FuzzInput& in, Eigen::MatrixBase<Derived>& m) {
  using Scalar = typename Derived::Scalar;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) m.coeffRef(i, j) = in.finite<Scalar>();
}

/// Fills every coefficient of m with in.moderate<Scalar>().
template <typename Derived>
void fill_moderate(FuzzInput& in, Eigen::MatrixBase<Derived>& m) {
  using Scalar = typename Derived::Scalar;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) m.coeffRef(i, j) = in.moderate<Scalar>();
}

/// Bitwise equality of two same-shape matrices (NaN == NaN, +0 != -0): "left as it was".
template <typename DA, typename DB>
bool same_bits(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  using Scalar = typename DA::Scalar;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const Scalar x = a.coeff(i, j), y = b.coeff(i, j);
      if (std::memcmp(&x, &y, sizeof(Scalar)) != 0) return false;
    }
  return true;
}

template <typename Scalar>
bool same_scalar_bits(Scalar x, Scalar y) {
  return std::memcmp(&x, &y, sizeof(Scalar)) == 0;
}

/// True when every coefficient is finite.
template <typename Derived>
bool finite(const Eigen::MatrixBase<Derived>& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      if (!std::isfinite(m.coeff(i, j))) return false;
  return true;
}

/// Sets the effort-limit fields that `limits.kind` does not read to "unset" (infinite), which
/// validate_effort_limits requires: bounds unless Bounds, motor constants unless DcMotor.
template <typename Limits>
void unset_unread_limit_fields(Limits& limits) {
  using Scalar = typename Limits::VectorType::Scalar;
  const Scalar inf = std::numeric_limits<Scalar>::infinity();
  if (limits.kind != decltype(limits.kind)::Bounds) {
    limits.lower.setConstant(-inf);
    limits.upper.setConstant(inf);
  }
  if (limits.kind != decltype(limits.kind)::DcMotor) {
    limits.stall_effort.setConstant(inf);
    limits.peak_effort.setConstant(inf);
    limits.no_load_speed.setConstant(inf);
  }
}

}  // namespace claw_fuzz
