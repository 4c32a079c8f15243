// benchmarks/bench_pid.cpp: Pid::update for 7 joints (fixed size) and 4096 x 12 joints (batched,
// with the roofline probe), each with the settings' period and with a period per call; the
// batched Actuator (delay, PID, DC-motor clamp); StablePd with a full 7x7 inverse mass.
//
// Scenario: Newton DrivePID-like settings (kp 100, ki 20, kd 5, derivative on the velocity error,
// backward-Euler integral with an integral clamp of 0.1 pos s, effort limit +-50, h = 1 ms). The
// targets alternate between two per-joint sets every 50 calls, so the integral rises and falls and
// ~10 % of the efforts saturate; q and v are fixed per joint. The per-call-period rows pass
// h = 0.9 ms and 1.1 ms alternately (a jittery loop). Every update must return Ok.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <array>

#include "bench_common.hpp"
#include "claw/blocks/actuator.hpp"
#include "claw/laws/pid_presets.hpp"
#include "claw/laws/stable_pd.hpp"

namespace {

constexpr Eigen::Index kBatchedJoints = 4096 * 12;
constexpr int kSwitchEvery = 50;

template <int N>
struct PidScenario {
  using VectorType = claw::Vector<double, N>;
  claw::PidSettings<double, N> settings;
  std::array<VectorType, 2> target;
  VectorType q, v;
};

template <int N>
PidScenario<N> make_pid_scenario(Eigen::Index n) {
  PidScenario<N> s;
  claw::presets::NewtonDrivePid<double> p;
  p.kp = 100.0;
  p.ki = 20.0;
  p.kd = 5.0;
  p.integral_max = 0.1;
  p.effort_limit = 50.0;
  p.dt = 1e-3;
  s.settings = claw::presets::newton_drive_pid<double, N>(n, p);
  s.q.resize(n);
  s.v.resize(n);
  for (auto& t : s.target) t.resize(n);
  claw_bench::Uniform uniform(0xB1D5EEDULL + static_cast<std::uint64_t>(n));
  for (Eigen::Index j = 0; j < n; ++j) {
    s.q(j) = uniform(-1.0, 1.0);
    s.v(j) = uniform(-0.5, 0.5);
    s.target[0](j) = s.q(j) + uniform(-0.4, 0.4);
    s.target[1](j) = s.q(j) + uniform(-0.4, 0.4);
  }
  return s;
}

/// Bytes one batched update of this configuration must move: q*, q, v read (3n); kp, ki, kd, the
/// integral bound ki integral_max (its lower bound is the negative, not read), effort lower, upper
/// read (6n); the integral read and written (2n); out written (n). c is 0 in this configuration
/// and not read by the update (Pid skips an all-zero c), so it is not counted.
constexpr std::size_t pid_update_bytes(std::size_t n) { return 12 * n * sizeof(double); }

template <bool kPerCallPeriod, int N>
double run_pid(benchmark::State& state, claw::Pid<double, N>& pid, const PidScenario<N>& s,
               typename PidScenario<N>::VectorType& out) {
  benchmark::DoNotOptimize(pid);
  benchmark::DoNotOptimize(out.data());
  int step = 0;
  std::size_t which = 0;
  bool all_ok = true;
  const double seconds = claw_bench::timed_loop(state, [&] {
    if constexpr (kPerCallPeriod)
      all_ok &= pid.update(s.target[which], s.q, s.v, (step & 1) != 0 ? 0.9e-3 : 1.1e-3, out) ==
                claw::Status::Ok;
    else
      all_ok &= pid.update(s.target[which], s.q, s.v, out) == claw::Status::Ok;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    if (++step == kSwitchEvery) {
      step = 0;
      which ^= 1U;
    }
  });
  if (!all_ok) state.SkipWithError("Pid::update did not return Status::Ok");
  return seconds;
}

template <bool kPerCallPeriod>
void pid_n7(benchmark::State& state) {
  static const PidScenario<7> scenario = make_pid_scenario<7>(7);
  claw::Pid<double, 7> pid;
  if (pid.configure(scenario.settings) != claw::Status::Ok) {
    state.SkipWithError("configure failed");
    return;
  }
  claw::Vector<double, 7> out = claw::Vector<double, 7>::Zero();
  const double seconds = run_pid<kPerCallPeriod>(state, pid, scenario, out);
  state.counters["ns_per_joint"] = seconds * 1e9 / 7;
}

template <bool kPerCallPeriod>
void pid_batched(benchmark::State& state) {
  const Eigen::Index n = kBatchedJoints;
  static const PidScenario<claw::Dynamic> scenario = make_pid_scenario<claw::Dynamic>(n);
  const std::size_t bytes = pid_update_bytes(static_cast<std::size_t>(n));
  const double probe_seconds = claw_bench::triad_seconds_median(bytes);
  claw::Pid<double> pid(n);
  if (pid.configure(scenario.settings) != claw::Status::Ok) {
    state.SkipWithError("configure failed");
    return;
  }
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  const double seconds = run_pid<kPerCallPeriod>(state, pid, scenario, out);
  claw_bench::set_roofline_counters(state, seconds, probe_seconds, bytes,
                                    static_cast<std::size_t>(n));
}

void BM_Pid_N7_fixed_double(benchmark::State& state) { pid_n7<false>(state); }
void BM_Pid_N7_period_per_call_double(benchmark::State& state) { pid_n7<true>(state); }
void BM_Pid_batched_N49152_dynamic_double(benchmark::State& state) { pid_batched<false>(state); }
void BM_Pid_batched_N49152_period_per_call_double(benchmark::State& state) {
  pid_batched<true>(state);
}

/// Bytes one batched update of the actuator below must move: the PID's (pid_update_bytes), the
/// delayed command read from and written into its slot of the delay line (2n), and the DC-motor
/// envelope's stall, peak and no-load parameters read (3n).
constexpr std::size_t actuator_update_bytes(std::size_t n) {
  return pid_update_bytes(n) + 5 * n * sizeof(double);
}

// Newton's pipeline over the batch: q* delayed by 2 steps, the PID scenario above, then the
// DC-motor envelope (stall 45, peak 60, no-load speed 4) the drive does not see.
void BM_Actuator_batched_N49152_delay_pid_dc_motor_double(benchmark::State& state) {
  const Eigen::Index n = kBatchedJoints;
  static const PidScenario<claw::Dynamic> scenario = make_pid_scenario<claw::Dynamic>(n);
  const std::size_t bytes = actuator_update_bytes(static_cast<std::size_t>(n));
  const double probe_seconds = claw_bench::triad_seconds_median(bytes);
  claw::Actuator<double> actuator(n);
  if (actuator.drive().configure(scenario.settings) != claw::Status::Ok ||
      actuator.configure(2, claw::EffortLimits<double, claw::Dynamic>::dc_motor(
                                45.0, 60.0, 4.0, n)) != claw::Status::Ok) {
    state.SkipWithError("configure failed");
    return;
  }
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  benchmark::DoNotOptimize(out.data());
  int step = 0;
  std::size_t which = 0;
  bool all_ok = true;
  const double seconds = claw_bench::timed_loop(state, [&] {
    all_ok &=
        actuator.update(scenario.target[which], scenario.q, scenario.v, out) == claw::Status::Ok;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    if (++step == kSwitchEvery) {
      step = 0;
      which ^= 1U;
    }
  });
  if (!all_ok) state.SkipWithError("Actuator::update did not return Status::Ok");
  claw_bench::set_roofline_counters(state, seconds, probe_seconds, bytes,
                                    static_cast<std::size_t>(n));
}

void BM_StablePd_N7_full_inverse_mass_double(benchmark::State& state) {
  claw::StablePd<double, 7> stable;
  claw::StablePd<double, 7>::Settings settings = stable.settings();
  settings.kp.setConstant(1e4);
  settings.kd.setConstant(100.0);
  settings.dt = 1e-3;
  settings.limits.kind = claw::EffortLimitKind::Bounds;
  settings.limits.lower.setConstant(-80.0);
  settings.limits.upper.setConstant(80.0);
  if (stable.configure(settings) != claw::Status::Ok) {
    state.SkipWithError("configure failed");
    return;
  }
  // A symmetric positive definite inverse mass, like a 7-DOF arm's.
  Eigen::Matrix<double, 7, 7> root = Eigen::Matrix<double, 7, 7>::Identity();
  claw_bench::Uniform uniform(7);
  for (int i = 0; i < 7; ++i)
    for (int k = 0; k < 7; ++k) root(i, k) += 0.2 * uniform(-1.0, 1.0);
  const Eigen::Matrix<double, 7, 7> inverse_mass = root * root.transpose();
  claw::Vector<double, 7> target, target_v, ff, q, v, out;
  for (int j = 0; j < 7; ++j) {
    target(j) = uniform(-1, 1);
    target_v(j) = uniform(-1, 1);
    ff(j) = uniform(-5, 5);
    q(j) = uniform(-1, 1);
    v(j) = uniform(-1, 1);
  }
  out.setZero();
  bool all_ok = true;
  const double seconds = claw_bench::timed_loop(state, [&] {
    all_ok &= stable.update_full(target, target_v, ff, q, v, inverse_mass, out) == claw::Status::Ok;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
  if (!all_ok) state.SkipWithError("StablePd::update_full did not return Status::Ok");
  state.counters["ns_per_joint"] = seconds * 1e9 / 7;
}

BENCHMARK(BM_Pid_N7_fixed_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Pid_N7_period_per_call_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Pid_batched_N49152_dynamic_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Pid_batched_N49152_period_per_call_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Actuator_batched_N49152_delay_pid_dc_motor_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_StablePd_N7_full_inverse_mass_double)->Unit(benchmark::kNanosecond);

}  // namespace
