// benchmarks/bench_pd.cpp: PdController::update timings, 7 joints (fixed size) and 4096 x 12 joints
// (batched, dynamic size), and a memory-bandwidth probe that puts the batched time on a roofline.
//
// Scenario (both sizes): bounds position +-2, velocity +-5, acceleration +-100, kp 100, kd 0.01 s,
// effort limit 50, control_dt 1 ms, jiminy-compatible mode (the default). The target acceleration
// is what a PD adapter feeds the block: piecewise constant over an agent step (kHoldSteps control
// periods), here a square wave +-A_j with a per-joint amplitude A_j in [20, 90] and a per-joint
// phase (a multiple of a quarter period). The command velocity is then a triangle wave of zero
// mean (amplitude kHoldSteps A_j dt <= 3.6 < 5) and the command position oscillates by a few
// hundredths of a radian around a start point in [-1, 1]: the state is periodic (steady state), no
// bound is ever hit (state back to its start after each period to ~1e-14), no value is denormal,
// and the decisions of the ZOH integrator go both ways, spread over the joints: the horizon
// (|v| >= 2 amax dt) is longer than one step ~89 % of the time, the second clip (|v| > amax dt)
// is active ~94 %, the sign of v is 50/50. The update decides all of them on the fast path of its
// ZOH kernel (counter exact_path_fraction, 0 here). In the batched case ~17 % of the efforts are
// clipped to +-50 (measured position error up to 0.6 rad). Every update returns Status::Ok and the
// benchmarks check it.
//
// Pinned scenario (batched only): the same with every joint's position bounds +-2 mrad around its
// start, so that the command position sits at a bound and most joint-steps take the kernel's exact
// path (exact_path_fraction ~0.86; the others are steps where the horizon's drift relaxes the
// bound or v is small): near the worst case of the fast kernel, which then pays for its attempt
// on top of the reference.
//
// Timing: the counters derived from time (ns_per_joint, GB_per_s, roofline_ratio) use the wall
// time of the timed loop, measured around it with std::chrono::steady_clock, per iteration: the
// same quantity as the harness's Time column (real time), and the clock the probe is timed with.
//
// Roofline: `bytes` is what one batched update must move at least (see update_bytes()); the probe
// streams the same byte count with the STREAM triad a[i] = b[i] + s c[i]. roofline_ratio =
// (batched time per update) / (probe time for the same bytes): 1 means "as fast as memory allows".
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench_common.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/core/config.hpp"

namespace {

constexpr double kControlDt = 1e-3;           // [s]
constexpr double kPositionLimit = 2.0;        // [rad]
constexpr double kVelocityLimit = 5.0;        // [rad/s]
constexpr double kAccelerationLimit = 100.0;  // [rad/s^2]
constexpr double kKp = 100.0;                 // [N m/rad]
constexpr double kKd = 0.01;                  // [s]
constexpr double kEffortLimit = 50.0;         // [N m]
constexpr int kHoldSteps = 40;                // agent step 40 ms = 40 control periods
constexpr int kPhases = 4;                    // square wave: +A, +A, -A, -A (kHoldSteps each)

constexpr Eigen::Index kRobots = 4096;
constexpr Eigen::Index kJointsPerRobot = 12;
constexpr Eigen::Index kBatchedJoints = kRobots * kJointsPerRobot;  // 49152

using claw_bench::timed_loop;
using claw_bench::triad_seconds_median;
using claw_bench::TriadArrays;
using claw_bench::Uniform;

/// Everything one benchmark feeds a PdController<double, N> of n joints.
template <int N>
struct Scenario {
  using Controller = claw::PdController<double, N>;
  using VectorType = typename Controller::VectorType;
  typename Controller::Settings settings;
  typename Controller::StateType initial_state;
  VectorType q, v;
  std::array<VectorType, kPhases> target_acceleration;  // used kHoldSteps periods each, in turn
};

template <int N>
Scenario<N> make_scenario(Eigen::Index n) {
  Scenario<N> s;
  s.settings.bounds.lower.resize(3, n);
  s.settings.bounds.upper.resize(3, n);
  s.settings.bounds.lower.row(claw::kPosition).setConstant(-kPositionLimit);
  s.settings.bounds.upper.row(claw::kPosition).setConstant(kPositionLimit);
  s.settings.bounds.lower.row(claw::kVelocity).setConstant(-kVelocityLimit);
  s.settings.bounds.upper.row(claw::kVelocity).setConstant(kVelocityLimit);
  s.settings.bounds.lower.row(claw::kAcceleration).setConstant(-kAccelerationLimit);
  s.settings.bounds.upper.row(claw::kAcceleration).setConstant(kAccelerationLimit);
  s.settings.kp.setConstant(n, kKp);
  s.settings.kd.setConstant(n, kKd);
  s.settings.effort_limit.setConstant(n, kEffortLimit);
  s.settings.control_dt = kControlDt;
  s.settings.mode = claw::ZohMode::JiminyCompatible;

  s.initial_state.resize(3, n);
  s.q.resize(n);
  s.v.resize(n);
  for (auto& a : s.target_acceleration) a.resize(n);
  Uniform uniform(0x5EEDC1A7ULL + static_cast<std::uint64_t>(n));
  const double ramp_steps = kHoldSteps * kControlDt;  // velocity change per segment = A ramp_steps
  for (Eigen::Index j = 0; j < n; ++j) {
    const double amplitude = uniform(20.0, 90.0);
    const int phase = static_cast<int>(uniform(0.0, 4.0)) % kPhases;
    // Pattern position (segment + phase) % 4: 0, 1 -> +A; 2, 3 -> -A. The velocity at the start of
    // pattern position 0, 1, 2, 3 is -A T, 0, +A T, 0 (T = kHoldSteps dt): a zero-mean triangle.
    for (int segment = 0; segment < kPhases; ++segment)
      s.target_acceleration[static_cast<std::size_t>(segment)](j) =
          ((segment + phase) % kPhases < 2) ? amplitude : -amplitude;
    const double start_velocity[kPhases] = {-amplitude * ramp_steps, 0.0, amplitude * ramp_steps,
                                            0.0};
    const double p = uniform(-1.0, 1.0);
    const double w = start_velocity[phase];
    s.initial_state(claw::kPosition, j) = p;
    s.initial_state(claw::kVelocity, j) = w;
    s.initial_state(claw::kAcceleration, j) = 0.0;
    s.q(j) = p + uniform(-0.6, 0.6);
    s.v(j) = w + uniform(-1.0, 1.0);
  }
  return s;
}

/// The scenario with every joint's position bounds tightened to +-kPinnedHalfWidth around its start
/// position: the command position reaches a bound within a few periods and stays there, so that
/// most joint-steps take the ZOH kernel's exact path (see exact_path_fraction): the cost of that
/// path, against the main scenario's fast one.
constexpr double kPinnedHalfWidth = 2e-3;  // [rad]

template <int N>
Scenario<N> make_pinned_scenario(Eigen::Index n) {
  Scenario<N> s = make_scenario<N>(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    s.settings.bounds.lower(claw::kPosition, j) =
        s.initial_state(claw::kPosition, j) - kPinnedHalfWidth;
    s.settings.bounds.upper(claw::kPosition, j) =
        s.initial_state(claw::kPosition, j) + kPinnedHalfWidth;
  }
  return s;
}

/// Fraction of the joint-steps of one period of the scenario (kPhases x kHoldSteps updates from the
/// initial state) that PdController::update's fast jiminy ZOH kernel cannot decide, so that they
/// take the exact path (detail::zoh_joint_jiminy_try_fast returns false); the steps are replayed
/// with the reference kernel. Tells which path a benchmark measures.
template <int N>
double exact_path_fraction(const Scenario<N>& s) {
  typename Scenario<N>::Controller::StateType state = s.initial_state;
  const auto& lower = s.settings.bounds.lower;
  const auto& upper = s.settings.bounds.upper;
  std::int64_t exact = 0, total = 0;
  for (int k = 0; k < kPhases * kHoldSteps; ++k) {
    const auto& target = s.target_acceleration[static_cast<std::size_t>(k / kHoldSteps)];
    for (Eigen::Index j = 0; j < state.cols(); ++j) {
      const auto bounds = claw::detail::joint_bounds(lower, upper, j);
      const double inverse = claw::detail::jiminy_fast_inverse(bounds.a_max, kControlDt);
      double p = 0.0, v = 0.0, a = 0.0;
      if (!claw::detail::zoh_joint_jiminy_try_fast(state(claw::kPosition, j),
                                                   state(claw::kVelocity, j), target(j), bounds,
                                                   kControlDt, inverse, p, v, a))
        ++exact;
      ++total;
      state(claw::kAcceleration, j) = target(j);
      claw::detail::zoh_joint_jiminy(state(claw::kPosition, j), state(claw::kVelocity, j),
                                     state(claw::kAcceleration, j), bounds, kControlDt);
    }
  }
  return static_cast<double>(exact) / static_cast<double>(total);
}

/// Bytes one PdController::update of n joints must move at least (each array once):
///   command state S (3 x n)         read and written back: 2 * 3n
///   bounds lower, upper (3 x n)      read:                  2 * 3n
///   q, v, target acceleration (n)    read:                  3n
///   kp, kd, effort limit (n)         read:                  3n
///   out (n)                          written:               n
/// = 19 n scalars = 152 n bytes for double (7,471,104 B for 49152 joints). Same convention as
/// STREAM: a written array counts once (no write-allocate read), a read-modify-written one twice.
/// (Counting write-allocate reads too, the update moves 160 n bytes and the triad 32 per 24
/// counted: the triad pays 1.27x more hidden traffic, so the ratio flatters the update by up to
/// that much.)
constexpr std::size_t update_bytes(std::size_t n, std::size_t scalar_bytes) {
  return (2 * 3 * n + 2 * 3 * n + 3 * n + 3 * n + n) * scalar_bytes;
}

template <int N>
bool state_is_sane(const claw::PdController<double, N>& controller) {
  const auto& s = controller.command_state();
  return claw::all_finite(s) && s.row(claw::kPosition).cwiseAbs().maxCoeff() <= kPositionLimit &&
         s.row(claw::kVelocity).cwiseAbs().maxCoeff() <= kVelocityLimit;
}

// ---------------------------------------------------------------------------------------------
// Memory-bandwidth probe: STREAM triad.
// ---------------------------------------------------------------------------------------------

// triad(), TriadArrays, timed_loop() and triad_seconds_median() come from bench_common.hpp.

/// The probe as a benchmark of its own, so its time and bandwidth appear in the table.
void BM_MemoryProbe_triad(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  TriadArrays arrays(bytes);
  arrays.pass();
  const double seconds_per_pass = timed_loop(state, [&] { arrays.pass(); });
  state.counters["bytes"] = static_cast<double>(arrays.probe_bytes());
  state.counters["GB_per_s"] = static_cast<double>(arrays.probe_bytes()) / seconds_per_pass * 1e-9;
}

// ---------------------------------------------------------------------------------------------
// PdController::update
// ---------------------------------------------------------------------------------------------

/// Runs the timed loop; returns its wall time per iteration [s] (0 when the run was skipped).
/// The update's inputs and outputs escape (DoNotOptimize) and ClobberMemory() after each call makes
/// the compiler assume any memory changed, so nothing is hoisted out of the loop or elided.
template <int N>
double run_updates(benchmark::State& state, claw::PdController<double, N>& controller,
                   const Scenario<N>& scenario, typename Scenario<N>::VectorType& out) {
  benchmark::DoNotOptimize(controller);
  benchmark::DoNotOptimize(out.data());
  int step = 0;
  std::size_t phase = 0;
  bool all_ok = true;
  const double seconds_per_update = timed_loop(state, [&] {
    const claw::Status status =
        controller.update(scenario.q, scenario.v, scenario.target_acceleration[phase], out);
    all_ok &= (status == claw::Status::Ok);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    if (++step == kHoldSteps) {
      step = 0;
      phase = (phase + 1) % kPhases;
    }
  });
  if (!all_ok) {
    state.SkipWithError("PdController::update did not return Status::Ok");
    return 0.0;
  }
  if (!state_is_sane(controller)) {
    state.SkipWithError("command state left its bounds");
    return 0.0;
  }
  return seconds_per_update;
}

template <int N>
bool install(benchmark::State& state, claw::PdController<double, N>& controller,
             const Scenario<N>& scenario) {
  if (controller.configure(scenario.settings) != claw::Status::Ok ||
      controller.set_command_state(scenario.initial_state) != claw::Status::Ok) {
    state.SkipWithError("PdController::configure / set_command_state failed");
    return false;
  }
  return true;
}

void BM_PdController_N7_fixed_double(benchmark::State& state) {
  constexpr int kN = 7;
  static const Scenario<kN> scenario = make_scenario<kN>(kN);
  claw::PdController<double, kN> controller;
  if (!install(state, controller, scenario)) return;
  Scenario<kN>::VectorType out = Scenario<kN>::VectorType::Zero();
  static const double exact_fraction = exact_path_fraction(scenario);
  const double seconds_per_update = run_updates(state, controller, scenario, out);
  state.counters["ns_per_joint"] = seconds_per_update * 1e9 / kN;
  state.counters["bytes"] = static_cast<double>(update_bytes(kN, sizeof(double)));
  state.counters["exact_path_fraction"] = exact_fraction;
}

/// A batched benchmark (kBatchedJoints joints, dynamic size) of `scenario`.
void run_batched(benchmark::State& state, const Scenario<claw::Dynamic>& scenario,
                 double exact_fraction) {
  const Eigen::Index n = kBatchedJoints;
  const std::size_t bytes = update_bytes(static_cast<std::size_t>(n), sizeof(double));
  // The roofline reference, measured here, right before the timed loop of this very run (every
  // run the harness makes, calibration runs and repetitions included): a concurrent load that
  // slows the machine down slows both down together, which a probe measured once at start-up would
  // not see. Its 3 x 2.4 MB arrays are freed before the loop; the first updates warm the caches.
  const double probe_seconds = triad_seconds_median(bytes);
  claw::PdController<double> controller(n);
  if (!install(state, controller, scenario)) return;
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
  const double seconds_per_update = run_updates(state, controller, scenario, out);
  claw_bench::set_roofline_counters(state, seconds_per_update, probe_seconds, bytes,
                                    static_cast<std::size_t>(n));
  state.counters["exact_path_fraction"] = exact_fraction;
}

void BM_PdController_batched_N49152_dynamic_double(benchmark::State& state) {
  static const Scenario<claw::Dynamic> scenario = make_scenario<claw::Dynamic>(kBatchedJoints);
  static const double exact_fraction = exact_path_fraction(scenario);
  run_batched(state, scenario, exact_fraction);
}

void BM_PdController_batched_N49152_pinned_double(benchmark::State& state) {
  static const Scenario<claw::Dynamic> scenario =
      make_pinned_scenario<claw::Dynamic>(kBatchedJoints);
  static const double exact_fraction = exact_path_fraction(scenario);
  run_batched(state, scenario, exact_fraction);
}

// Registration order is run order. BM_MemoryProbe_triad shows the probe in the table (time, GB/s);
// roofline_ratio uses the probe measured inside the batched benchmark (see there).
BENCHMARK(BM_MemoryProbe_triad)
    ->Arg(static_cast<std::int64_t>(update_bytes(kBatchedJoints, sizeof(double))))
    ->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PdController_N7_fixed_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PdController_batched_N49152_dynamic_double)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PdController_batched_N49152_pinned_double)->Unit(benchmark::kNanosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("claw_version", CLAW_VERSION_STRING);
  benchmark::AddCustomContext("compiler", __VERSION__);
  benchmark::AddCustomContext("eigen_simd", Eigen::SimdInstructionSetsInUse());
  benchmark::AddCustomContext(
      "batched_update_bytes",
      std::to_string(update_bytes(kBatchedJoints, sizeof(double))) + " (152 B/joint x 49152)");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
