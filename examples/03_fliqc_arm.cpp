// examples/03_fliqc_arm.cpp: claw's FLIQC joint-velocity safety filter on a 7-DOF arm (Franka Emika
// Panda kinematics) reaching past a spherical obstacle; writes a CSV.
//
// Scenario (examples/fliqc_arm_scenario.hpp): from the Panda's "ready" pose the hand moves 0.58 m
// left and down to a goal beyond a sphere (radius 0.1 m) hanging at forearm height. The guide is a
// task-space proportional law on the fingertip position (2.5/s, at most 0.25 m/s) through a damped
// pseudo-inverse; it knows nothing of the sphere. Ten points on links 3..7, each with the radius of
// the link's capsule there, give the distances psi_i to the sphere and their projectors P_i
// (psi_i' = P_i qdot). The arm is kinematic: q += h qdot every h = 2 ms, for 4 s.
//
// Two runs: the guide alone, whose forearm passes through the sphere, and the guide through
// claw::FliqcFilter with the original FLIQC controller's settings (horizon 0.02 s, distances enter
// below 0.05 m, corrections in the nullspace of the fingertip position) and |qdot_j| <= 2 rad/s:
// the elbow moves aside and the hand still reaches the goal. The required clearance is 0.02 m (the
// original's eps); the filter's eps is that plus kPredictionMargin = 20 um, because the filter
// keeps the first-order prediction psi + 0.02 P qdot >= eps while the links move on arcs during
// each 2 ms step: with eps = clearance the distance settles about 2 um below it while a
// constraint is held. The exit status is failure when configure fails, the unfiltered run does not
// reach into the sphere, or the filtered run's distance goes below the clearance (by more than
// 1e-9 m).
//
// Usage: 03_fliqc_arm [output.csv]   (default: fliqc_arm.csv)

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "claw/core/status.hpp"
#include "claw/filters/fliqc.hpp"
#include "fliqc_arm_scenario.hpp"

namespace {

using namespace claw_examples;

constexpr double kQdotMax = 2.0;     // [rad/s] bound on every joint velocity
constexpr double kPrintEvery = 0.4;  // table row every 0.4 s

using Filter = claw::FliqcFilter<double, kJoints, kJoints, 16>;

/// The q-quantile (nearest rank) of the finite entries of `values`; NaN when there are none.
double quantile(const std::vector<double>& values, double q) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return std::nan("");
  std::sort(finite.begin(), finite.end());
  const double rank = std::ceil(q * static_cast<double>(finite.size()));
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return finite[std::min(index, finite.size() - 1)];
}

/// One summary line of a run; times as "-" when the run measured none.
void print_summary(const char* name, const ScenarioLog& log) {
  const double median = quantile(log.filter_time_us, 0.5);
  const double p99 = quantile(log.filter_time_us, 0.99);
  char median_text[32] = "-", p99_text[32] = "-";
  if (std::isfinite(median)) std::snprintf(median_text, sizeof median_text, "%.1f", median);
  if (std::isfinite(p99)) std::snprintf(p99_text, sizeof p99_text, "%.1f", p99);
  std::printf("%-16s %15.4f %15.4f %12.1f%% %13s %10s\n", name, log.overall_min_distance(),
              log.final_ee_error, 100.0 * log.not_ok_fraction(), median_text, p99_text);
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv_path = (argc > 1) ? argv[1] : "fliqc_arm.csv";
  const ScenarioConfig cfg = default_scenario();

  claw::FliqcSettings<double> settings;  // the original FLIQC controller's defaults
  settings.q_dot_max = kQdotMax;
  settings.eps = kClearance + kPredictionMargin;
  Filter filter;
  const claw::Status configured = filter.configure(settings);
  if (!claw::ok(configured)) {
    std::fprintf(stderr, "03_fliqc_arm: configure failed: %s\n", claw::to_string(configured));
    return EXIT_FAILURE;
  }

  std::printf("FLIQC joint-velocity safety filter on a 7-DOF arm (Panda kinematics)\n");
  std::printf(
      "goal (%.3f, %.3f, %.3f) m; sphere at (%.3f, %.3f, %.3f) m, radius %.3f m; "
      "%d control points on links 3..7\n",
      cfg.goal.x(), cfg.goal.y(), cfg.goal.z(), cfg.obstacle.centre.x(), cfg.obstacle.centre.y(),
      cfg.obstacle.centre.z(), cfg.obstacle.radius, kControlPoints);
  std::printf(
      "guide: kp = %g 1/s, <= %g m/s, damping %g m; step %g s, %ld cycles; "
      "filter: dt %g s, eps %g m, active below %g m, |qdot| <= %g rad/s\n\n",
      cfg.gains.kp, cfg.gains.max_speed, cfg.gains.damping, cfg.dt, cfg.cycles, settings.dt,
      settings.eps, settings.active_threshold, kQdotMax);

  // Run 1: the guide alone.
  const ScenarioLog unfiltered = run_scenario(cfg, IdentityFilter{});

  // Run 2: the guide through FLIQC, each call timed.
  std::array<long, 16> status_counts{};
  long uncertified = 0;
  const ScenarioLog filtered =
      run_scenario(cfg, [&](const JointVector& qdot_guide, const Jacobian& jacobian,
                            const DistanceVector& psi, const DistanceProjector& projector) {
        const auto start = std::chrono::steady_clock::now();
        const auto& result = filter.filter(qdot_guide, jacobian, psi, projector);
        const auto stop = std::chrono::steady_clock::now();
        FilterStep step;
        step.qdot = result.qdot;
        step.ok = claw::ok(result.status);
        step.time_us = std::chrono::duration<double, std::micro>(stop - start).count();
        step.active_count = static_cast<int>(result.active_count);
        const auto code = static_cast<std::size_t>(result.status);
        if (code < status_counts.size()) ++status_counts[code];
        if (step.ok && step.active_count > 0 && !result.certified_global) ++uncertified;
        return step;
      });

  std::FILE* csv = std::fopen(csv_path, "w");
  if (csv == nullptr) {
    std::fprintf(stderr, "03_fliqc_arm: cannot open %s for writing\n", csv_path);
    return EXIT_FAILURE;
  }
  std::fprintf(csv,
               "t,eps,psi_min_guide,psi_min_fliqc,ee_error_guide,ee_error_fliqc,"
               "fliqc_time_us,fliqc_active,fliqc_ok\n");
  std::printf("%6s %15s %15s %13s %13s %7s\n", "t [s]", "min psi guide", "min psi FLIQC",
              "ee err guide", "ee err FLIQC", "active");
  const auto print_stride = static_cast<std::size_t>(std::lround(kPrintEvery / cfg.dt));
  for (std::size_t k = 0; k < filtered.time.size(); ++k) {
    std::fprintf(csv, "%.6f,%.17g,%.17g,%.17g,%.17g,%.17g,%.6g,%d,%d\n", filtered.time[k],
                 kClearance, unfiltered.min_distance[k], filtered.min_distance[k],
                 unfiltered.ee_error[k], filtered.ee_error[k], filtered.filter_time_us[k],
                 filtered.active_count[k], filtered.ok[k] ? 1 : 0);
    if (k % print_stride == 0)
      std::printf("%6.2f %15.4f %15.4f %13.4f %13.4f %7d\n", filtered.time[k],
                  unfiltered.min_distance[k], filtered.min_distance[k], unfiltered.ee_error[k],
                  filtered.ee_error[k], filtered.active_count[k]);
  }
  if (std::fclose(csv) != 0) {
    std::fprintf(stderr, "03_fliqc_arm: error writing %s\n", csv_path);
    return EXIT_FAILURE;
  }

  std::printf("\n%-16s %15s %15s %13s %13s %10s\n", "run", "min psi [m]", "final err [m]",
              "status != Ok", "median [us]", "p99 [us]");
  print_summary("guide only", unfiltered);
  print_summary("guide + FLIQC", filtered);
  for (std::size_t code = 1; code < status_counts.size(); ++code)
    if (status_counts[code] > 0)
      std::printf("  FLIQC status %s: %ld cycles\n",
                  claw::to_string(static_cast<claw::Status>(code)), status_counts[code]);
  if (uncertified > 0) std::printf("  FLIQC answers not certified global: %ld\n", uncertified);
  std::printf("wrote %s\n", csv_path);

  bool success = true;
  if (filtered.overall_min_distance() < kClearance - 1e-9) {
    std::fprintf(stderr,
                 "03_fliqc_arm: the filtered run went below the clearance: min psi %.9f m\n",
                 filtered.overall_min_distance());
    success = false;
  }
  if (!(unfiltered.overall_min_distance() < 0.0)) {
    std::fprintf(stderr, "03_fliqc_arm: the unfiltered run never touched the sphere\n");
    success = false;
  }
  return success ? EXIT_SUCCESS : EXIT_FAILURE;
}
