// tests/fuzz/fuzz_stable_pd.cpp: libFuzzer target for StablePd (claw/laws/stable_pd.hpp), diagonal
// and full inverse mass: refused settings and calls touch nothing, finite in -> finite out, effort
// limits, and with a PSD inverse mass and no limits the full solve satisfies its linear system
// (backward-stable residual).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "claw/laws/stable_pd.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::EffortLimitKind;
using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxJoints = 8;

template <typename Scalar>
void run(FuzzInput& in) {
  using Law = claw::StablePd<Scalar, claw::Dynamic, kMaxJoints>;
  using Vec = typename Law::VectorType;
  using Mat = typename Law::MatrixType;
  using Settings = typename Law::Settings;
  const int n = in.integer(1, kMaxJoints);
  Law spd(n);

  auto configure = [&]() {
    Settings s = spd.settings();
    const bool raw = in.byte() % 8 == 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      s.kp(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      s.kd(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      s.constant_effort(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
      s.limits.lower(j) = raw ? in.value<Scalar>() : -std::fabs(in.value<Scalar>());
      s.limits.upper(j) = raw ? in.value<Scalar>() : std::fabs(in.value<Scalar>());
      s.limits.stall_effort(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      s.limits.peak_effort(j) = raw ? in.value<Scalar>() : std::fabs(in.value<Scalar>());
      s.limits.no_load_speed(j) = raw ? in.value<Scalar>() : std::fabs(in.value<Scalar>());
    }
    s.limits.kind = in.choice<EffortLimitKind>(3);
    // A kind refuses finite values in the fields it does not read; outside the raw mode those are
    // unset, so that valid settings stay common.
    if (!raw) claw_fuzz::unset_unread_limit_fields(s.limits);
    s.dt = in.boolean() ? in.value<Scalar>() : Scalar(1e-3);
    bool valid = std::isfinite(s.dt) && s.dt >= Scalar(CLAW_MIN_TIME_STEP) &&
                 claw::validate_effort_limits(s.limits, n) == Status::Ok;
    for (Eigen::Index j = 0; j < n; ++j)
      valid = valid && std::isfinite(s.kp(j)) && s.kp(j) >= 0 && std::isfinite(s.kd(j)) &&
              s.kd(j) >= 0 && std::isfinite(s.constant_effort(j));
    const Settings old = spd.settings();
    const Status status = spd.configure(s);
    CLAW_FUZZ_CHECK((status == Status::Ok) == valid, "configure: status differs from validity");
    if (status != Status::Ok)
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(spd.settings().kp, old.kp) &&
                          claw_fuzz::same_scalar_bits(spd.settings().dt, old.dt),
                      "configure: refused settings installed");
  };
  configure();

  Vec target(n), tv(n), ff(n), q(n), v(n), out(n), a(n);
  Mat full(n, n);
  out.setZero();
  const int steps = in.integer(1, 16);
  for (int k = 0; k < steps; ++k) {
    const int op = in.integer(0, 4);
    if (op == 0) {
      configure();
      continue;
    }
    const bool raw = in.byte() % 4 == 0;
    for (Vec* x : {&target, &tv, &ff, &q, &v})
      for (Eigen::Index j = 0; j < n; ++j) (*x)(j) = raw ? in.value<Scalar>() : in.finite<Scalar>();
    const bool finite = claw_fuzz::finite(target) && claw_fuzz::finite(tv) &&
                        claw_fuzz::finite(ff) && claw_fuzz::finite(q) && claw_fuzz::finite(v);
    const Vec out_before = out;
    Status status;
    bool psd = false;
    if (op == 1) {
      for (Eigen::Index j = 0; j < n; ++j)
        a(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      status = spd.update(target, tv, ff, q, v, a, out);
      if (finite && claw_fuzz::finite(a)) {
        const bool nonneg = a.minCoeff() >= 0;
        CLAW_FUZZ_CHECK(nonneg ? (status == Status::Ok || status == Status::NumericalOverflow)
                               : status == Status::InvalidParameter,
                        "update: status");
      }
    } else {
      // A = B B' (PSD) from a random B, or any matrix.
      psd = !raw && in.boolean();
      if (psd) {
        Mat b(n, n);
        claw_fuzz::fill_moderate(in, b);
        full = b * b.transpose();
      } else {
        claw_fuzz::fill_values(in, full);
      }
      status = spd.update_full(target, tv, ff, q, v, full, out);
      // I + h (h Kp + Kd) A is nonsingular for a PSD A; in floating point only while the identity
      // is not lost in the rounding of the gain term: the claim is checked where gain |A| eps <
      // 1e-3.
      bool system_finite = true;
      for (Eigen::Index i = 0; i < n; ++i) {
        const Scalar row_gain =
            spd.settings().dt * (spd.settings().dt * spd.settings().kp(i) + spd.settings().kd(i));
        for (Eigen::Index c = 0; c < n; ++c)
          system_finite = system_finite && std::fabs(row_gain * full(i, c)) *
                                                   std::numeric_limits<Scalar>::epsilon() <
                                               Scalar(1e-3);
      }
      if (finite && psd && system_finite)
        CLAW_FUZZ_CHECK(status == Status::Ok || status == Status::NumericalOverflow,
                        "update_full: a PSD inverse mass was refused");
    }
    if (status != Status::Ok && status != Status::NumericalOverflow) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(out, out_before), "a refused call wrote the output");
      continue;
    }
    CLAW_FUZZ_CHECK(finite, "non-finite input accepted");
    const Settings& s = spd.settings();
    for (Eigen::Index j = 0; j < n; ++j) {
      if (status == Status::NumericalOverflow && claw_fuzz::same_scalar_bits(out(j), out_before(j)))
        continue;
      CLAW_FUZZ_CHECK(std::isfinite(out(j)), "finite input gave a non-finite effort");
      if (s.limits.kind == EffortLimitKind::Bounds)
        CLAW_FUZZ_CHECK(out(j) >= s.limits.lower(j) && out(j) <= s.limits.upper(j),
                        "effort outside bounds");
    }
    // Without limits, the full solve's tau satisfies (I + h (h Kp + Kd) A) tau = rhs within the
    // backward error of Gaussian elimination with partial pivoting (growth <= 2^(n-1)).
    if (op != 1 && psd && status == Status::Ok && s.limits.kind == EffortLimitKind::None) {
      const Scalar h = s.dt;
      Eigen::Matrix<long double, claw::Dynamic, claw::Dynamic, 0, kMaxJoints, kMaxJoints> m(n, n);
      Eigen::Matrix<long double, claw::Dynamic, 1, 0, kMaxJoints, 1> rhs(n), t(n);
      for (Eigen::Index i = 0; i < n; ++i) {
        const Scalar row_gain = h * (h * s.kp(i) + s.kd(i));
        for (Eigen::Index c = 0; c < n; ++c)
          m(i, c) = (i == c ? 1.0L : 0.0L) + static_cast<long double>(row_gain * full(i, c));
        rhs(i) = static_cast<long double>(s.constant_effort(i) + ff(i) +
                                          s.kp(i) * (target(i) - q(i) - h * v(i)) +
                                          s.kd(i) * (tv(i) - v(i)));
        t(i) = out(i);
      }
      if (claw_fuzz::finite(m.template cast<double>()) &&
          claw_fuzz::finite(rhs.template cast<double>())) {
        const long double residual = (m * t - rhs).cwiseAbs().maxCoeff();
        const long double scale =
            m.cwiseAbs().rowwise().sum().maxCoeff() * t.cwiseAbs().maxCoeff() +
            rhs.cwiseAbs().maxCoeff();
        const long double eps = std::numeric_limits<Scalar>::epsilon();
        // Gradual underflow: each tau_j is off by up to denorm_min more, which the matrix
        // multiplies.
        const long double underflow =
            std::numeric_limits<Scalar>::min() +
            m.cwiseAbs().rowwise().sum().maxCoeff() * std::numeric_limits<Scalar>::denorm_min();
        CLAW_FUZZ_CHECK(residual <= 4.0L * n * (1 << (n - 1)) * (eps * scale + underflow),
                        "update_full: residual of the linear solve too large");
      }
    }
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
