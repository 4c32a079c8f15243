// examples/02_mujoco_pendulum.cpp: a MuJoCo pendulum held horizontal by claw's PD, PD + gravity
// feedforward and saturated PID with anti-windup; checks their steady-state errors, writes a CSV.
//
// Plant: MuJoCo 2.2.2, one hinge joint about the y axis, all of the link's mass m at distance l
// from the axis (an explicit <inertial>: a point mass plus a small sphere inertia), gravity g along
// -z, no joint damping, no contacts. q = 0 hangs straight down, so the gravity torque on the joint
// is -m g l sin(q), largest in magnitude (m g l) at the target q* = pi/2 (link horizontal). A
// <motor> actuator with gear 1 applies ctrl as the joint torque; its ctrlrange is the drive's
// effort limit. The model comes from a string in this file through MuJoCo's virtual file system
// (2.2.2 has no loader for XML strings).
//
// Control: one control period per MuJoCo step (h = 1 ms), split as MuJoCo intends for controllers
// that need its position/velocity results: mj_step1 (kinematics, qfrc_bias at the measured state),
// read qpos/qvel, compute and write ctrl, mj_step2 (integrate). Independent copies of the plant
// (one mjData each), all starting at rest hanging down, all under the same effort limit:
//   (a) PD, claw::pd_effort: tau = kp (q* - q) - kd v. Holding the link against gravity needs
//       tau = m g l sin(q), which a PD only makes from an error e = q* - q: it settles where
//       kp e = m g l cos(e), i.e. e ~ m g l / kp for small e (relative difference ~e^2/2).
//   (b) PD + gravity feedforward, claw::Pid with ki = 0 and ff = qfrc_bias[0], MuJoCo's bias force
//       at the measured state (a single hinge has no velocity-dependent bias, so that is exactly
//       the gravity torque m g l sin(q); the run checks it): e -> 0.
//   (c) PID, claw::Pid with back-calculation anti-windup: the drive saturates for the first quarter
//       second; meanwhile the integral tracks what the limited output allows instead of piling up
//       the large initial error, so it removes the sag without a windup overshoot. A fourth plant
//       runs the same PID with no anti-windup, for comparison: its integral keeps growing while the
//       drive saturates, and q overshoots q* by about 1 rad (written to the CSV and printed; the
//       run checks nothing of it).
//
// Usage: 02_mujoco_pendulum [output.csv]   (default: mujoco_pendulum.csv)
// Exit status 1 when (a) is more than 10 % away from m g l / kp, (b) or (c) keeps an error of
// 1e-3 rad or more, (c) overshoots q* by 0.1 rad or more, or MuJoCo reports a warning.

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pd.hpp"
#include "claw/laws/pid.hpp"

namespace {

using Pid1 = claw::Pid<double, 1>;
using Vec1 = Pid1::VectorType;

constexpr double kPi = 3.14159265358979323846;
constexpr double kMass = 1.0;           // m [kg]
constexpr double kLength = 0.5;         // l, axis to centre of mass [m]
constexpr double kGravity = 9.81;       // g [m/s^2]
constexpr double kSphereRadius = 0.05;  // only sets the link's own inertia [m]
constexpr double kHoldingTorque = kMass * kGravity * kLength;  // m g l [N m]
constexpr double kEffortLimit = 1.5 * kHoldingTorque;          // drive limit [N m]
constexpr double kTarget = 0.5 * kPi;                          // q*: horizontal [rad]

constexpr double kTimestep = 1e-3;   // MuJoCo step = control period h [s]
constexpr long kSteps = 5000;        // 5 s
constexpr long kAverageSteps = 500;  // steady state: mean over the last 0.5 s

// Gains. Near q* gravity adds no stiffness (d(m g l sin q)/dq = 0 at pi/2), so with the inertia
// about the axis J = m l^2 + 2/5 m r^2 = 0.251 kg m^2, kd = 2 sqrt(kp J) ~ 10 damps the PD
// critically. With ki = 300 the PID's closed-loop poles J s^3 + kd s^2 + kp s + ki = 0 are at about
// -26.5 and -6.7 +- 0.8i [1/s]: the integral removes the sag within about a second.
constexpr double kKp = 100.0;                // [N m/rad]
constexpr double kKd = 10.0;                 // [N m s/rad]
constexpr double kKi = 300.0;                // [N m/(rad s)]
constexpr double kSagTolerance = 0.10;       // (a): relative to m g l / kp
constexpr double kZeroTolerance = 1e-3;      // (b), (c) [rad]
constexpr double kOvershootTolerance = 0.1;  // (c) [rad]
constexpr int kRuns = 4;                     // (a), (b), (c) and the comparison PID
constexpr const char* kModelName = "claw_pendulum.xml";

// Table rows: step indices (times in ms).
constexpr long kTableSteps[] = {0, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000};

// Prints what failed and returns false unless `status` is Ok.
bool succeeded(claw::Status status, const char* call) {
  if (claw::ok(status)) return true;
  std::fprintf(stderr, "02_mujoco_pendulum: %s failed: %s\n", call, claw::to_string(status));
  return false;
}

// The MJCF text of the pendulum, built from the constants above so formula and model agree.
bool pendulum_xml(char* buffer, std::size_t size) {
  const double sphere_inertia = 0.4 * kMass * kSphereRadius * kSphereRadius;
  const int written = std::snprintf(
      buffer, size,
      "<mujoco model=\"claw_pendulum\">\n"
      "  <compiler angle=\"radian\"/>\n"
      "  <option timestep=\"%.17g\" gravity=\"0 0 %.17g\" integrator=\"Euler\">\n"
      "    <flag contact=\"disable\"/>\n"
      "  </option>\n"
      "  <worldbody>\n"
      "    <body name=\"link\">\n"
      "      <joint name=\"hinge\" type=\"hinge\" axis=\"0 1 0\" damping=\"0\"/>\n"
      "      <inertial pos=\"0 0 %.17g\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>\n"
      "      <geom type=\"capsule\" fromto=\"0 0 0 0 0 %.17g\" size=\"0.01\"/>\n"
      "      <geom type=\"sphere\" pos=\"0 0 %.17g\" size=\"%.17g\"/>\n"
      "    </body>\n"
      "  </worldbody>\n"
      "  <actuator>\n"
      "    <motor name=\"torque\" joint=\"hinge\" gear=\"1\" ctrllimited=\"true\""
      " ctrlrange=\"%.17g %.17g\"/>\n"
      "  </actuator>\n"
      "</mujoco>\n",
      kTimestep, -kGravity, -kLength, kMass, sphere_inertia, sphere_inertia, sphere_inertia,
      -kLength, -kLength, kSphereRadius, -kEffortLimit, kEffortLimit);
  return written > 0 && static_cast<std::size_t>(written) < size;
}

// Compiles the pendulum from its XML string via a virtual file (nullptr and a message on failure).
mjModel* load_pendulum() {
  char xml[2048];
  if (!pendulum_xml(xml, sizeof xml)) {
    std::fprintf(stderr, "02_mujoco_pendulum: model text does not fit its buffer\n");
    return nullptr;
  }
  // mjVFS holds fixed arrays for 2000 file names (~2 MB): keep it off the stack.
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const std::size_t bytes = std::strlen(xml) + 1;  // with the terminating NUL
  if (mj_makeEmptyFileVFS(vfs.get(), kModelName, static_cast<int>(bytes)) != 0) {
    std::fprintf(stderr, "02_mujoco_pendulum: mj_makeEmptyFileVFS failed\n");
    return nullptr;
  }
  const int index = mj_findFileVFS(vfs.get(), kModelName);
  if (index < 0) {
    std::fprintf(stderr, "02_mujoco_pendulum: virtual file %s not found\n", kModelName);
    mj_deleteVFS(vfs.get());
    return nullptr;
  }
  std::memcpy(vfs->filedata[index], xml, bytes);
  char error[1000] = "";
  mjModel* model = mj_loadXML(kModelName, vfs.get(), error, static_cast<int>(sizeof error));
  mj_deleteVFS(vfs.get());
  if (model == nullptr) std::fprintf(stderr, "02_mujoco_pendulum: mj_loadXML: %s\n", error);
  return model;
}

// One copy of the plant under one controller, with the statistics the report needs.
struct Run {
  const char* label = "";
  mjData* data = nullptr;
  double tau = 0.0;                // torque commanded this period [N m]
  double error_sum = 0.0;          // sum of q* - q over the averaging window
  double peak = -1e300;            // largest q reached [rad]
  double max_bias_mismatch = 0.0;  // max |qfrc_bias - m g l sin q| [N m]
  long saturated_steps = 0;        // periods with |tau| at the limit

  double q() const { return data->qpos[0]; }
  double v() const { return data->qvel[0]; }
  double steady_state_error() const { return error_sum / static_cast<double>(kAverageSteps); }
};

// Sum of the warnings MuJoCo counted in d (bad qacc, instabilities, ...).
int warning_count(const mjData* d) {
  int count = 0;
  for (int i = 0; i < mjNWARNING; ++i) count += d->warning[i].number;
  return count;
}

// The equilibrium error of the PD at the target: the root of kp e = m g l cos(e) (Newton).
double exact_pd_sag() {
  double e = kHoldingTorque / kKp;
  for (int i = 0; i < 20; ++i) {
    const double f = kKp * e - kHoldingTorque * std::cos(e);
    const double df = kKp + kHoldingTorque * std::sin(e);
    e -= f / df;
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv_path = (argc > 1) ? argv[1] : "mujoco_pendulum.csv";

  mjModel* model = load_pendulum();
  if (model == nullptr) return EXIT_FAILURE;
  if (model->nq != 1 || model->nv != 1 || model->nu != 1 || model->opt.timestep != kTimestep) {
    std::fprintf(stderr, "02_mujoco_pendulum: unexpected model (nq %d, nv %d, nu %d, dt %g)\n",
                 model->nq, model->nv, model->nu, model->opt.timestep);
    mj_deleteModel(model);
    return EXIT_FAILURE;
  }

  Run runs[kRuns];
  runs[0].label = "(a) PD";
  runs[1].label = "(b) PD + ff";
  runs[2].label = "(c) PID";
  runs[3].label = "PID, no anti-windup (comparison)";
  for (Run& run : runs) {
    run.data = mj_makeData(model);  // qpos0 = 0: at rest, hanging down
    if (run.data == nullptr) {
      std::fprintf(stderr, "02_mujoco_pendulum: mj_makeData failed\n");
      for (Run& made : runs)
        if (made.data != nullptr) mj_deleteData(made.data);
      mj_deleteModel(model);
      return EXIT_FAILURE;
    }
  }
  // Releases MuJoCo's allocations on every return path below.
  struct Cleanup {
    mjModel* model;
    Run* runs;
    ~Cleanup() {
      for (int i = 0; i < kRuns; ++i) mj_deleteData(runs[i].data);
      mj_deleteModel(model);
    }
  } cleanup{model, runs};

  // The drive's limit, shared by the three controllers (equal to the actuator's ctrlrange).
  claw::EffortLimits<double, 1> limits;
  limits.kind = claw::EffortLimitKind::Bounds;
  limits.lower = Vec1::Constant(-kEffortLimit);
  limits.upper = Vec1::Constant(kEffortLimit);
  const Vec1 kp = Vec1::Constant(kKp);
  const Vec1 kd = Vec1::Constant(kKd);

  // (b): the same PD as a Pid with no integral, so it takes a feedforward effort.
  Pid1::Settings feedforward_settings;
  feedforward_settings.kp = kp;
  feedforward_settings.kd = kd;
  feedforward_settings.limits = limits;
  feedforward_settings.dt = kTimestep;
  Pid1 pd_feedforward;
  if (!succeeded(pd_feedforward.configure(feedforward_settings), "configure (b)"))
    return EXIT_FAILURE;

  // (c): PID, backward-Euler integral, back-calculation with the default tracking time
  // Tt = sqrt(kd / ki): while the drive saturates, I is pulled toward the value that makes the
  // unlimited output equal the limited one, instead of integrating the large initial error.
  Pid1::Settings pid_settings = feedforward_settings;
  pid_settings.ki = Vec1::Constant(kKi);
  pid_settings.anti_windup = claw::AntiWindup::BackCalculation;
  Pid1 pid;
  if (!succeeded(pid.configure(pid_settings), "configure (c)")) return EXIT_FAILURE;
  Pid1::Settings windup_settings = pid_settings;
  windup_settings.anti_windup = claw::AntiWindup::None;
  Pid1 pid_windup;
  if (!succeeded(pid_windup.configure(windup_settings), "configure (comparison)"))
    return EXIT_FAILURE;

  std::FILE* csv = std::fopen(csv_path, "w");
  if (csv == nullptr) {
    std::fprintf(stderr, "02_mujoco_pendulum: cannot open %s for writing\n", csv_path);
    return EXIT_FAILURE;
  }
  // The comparison run's columns come last, after those of (a), (b), (c) and the target.
  std::fprintf(csv,
               "t,q_pd,q_pd_ff,q_pid,tau_pd,tau_pd_ff,tau_pid,target,q_pid_no_aw,tau_pid_no_aw\n");

  const double predicted_sag = kHoldingTorque / kKp;
  std::printf("MuJoCo %s pendulum held horizontal by claw controllers\n", mj_versionString());
  std::printf("m = %g kg, l = %g m, g = %g m/s^2: m g l = %g N m; effort limit %g N m; h = %g s\n",
              kMass, kLength, kGravity, kHoldingTorque, kEffortLimit, kTimestep);
  std::printf(
      "kp = %g N m/rad, kd = %g N m s/rad, ki (c) = %g N m/(rad s); q(0) = 0, q* = %.6f rad\n\n",
      kKp, kKd, kKi, kTarget);
  std::printf("%6s | %10s %10s %10s | %9s %9s %9s\n", "t [s]", "q_pd", "q_pd_ff", "q_pid", "tau_pd",
              "tau_pd_ff", "tau_pid");
  std::printf("%6s | %32s | %29s\n", "", "angle q [rad]", "torque [N m]");

  const Vec1 target = Vec1::Constant(kTarget);
  const Vec1 zero = Vec1::Zero();
  std::size_t table_row = 0;
  constexpr std::size_t kTableRows = sizeof kTableSteps / sizeof kTableSteps[0];

  // The four torques for the states that mj_step1 has just evaluated; false (reported) on failure.
  const auto compute_torques = [&]() -> bool {
    Vec1 out = Vec1::Zero();
    const Vec1 q_a = Vec1::Constant(runs[0].q()), v_a = Vec1::Constant(runs[0].v());
    if (!succeeded(
            claw::pd_effort(target, zero, q_a, v_a, kp, kd, claw::PdForm::Parallel, limits, out),
            "pd_effort (a)"))
      return false;
    runs[0].tau = out(0);

    // qfrc_bias: MuJoCo's gravity + Coriolis force at this state; for one joint only gravity.
    const Vec1 q_b = Vec1::Constant(runs[1].q()), v_b = Vec1::Constant(runs[1].v());
    const Vec1 gravity = Vec1::Constant(runs[1].data->qfrc_bias[0]);
    if (!succeeded(pd_feedforward.update(target, zero, gravity, q_b, v_b, out), "update (b)"))
      return false;
    runs[1].tau = out(0);

    const Vec1 q_c = Vec1::Constant(runs[2].q()), v_c = Vec1::Constant(runs[2].v());
    if (!succeeded(pid.update(target, q_c, v_c, out), "update (c)")) return false;
    runs[2].tau = out(0);

    const Vec1 q_w = Vec1::Constant(runs[3].q()), v_w = Vec1::Constant(runs[3].v());
    if (!succeeded(pid_windup.update(target, q_w, v_w, out), "update (comparison)")) return false;
    runs[3].tau = out(0);
    return true;
  };

  bool controllers_ok = true;
  for (long k = 0; k <= kSteps; ++k) {
    // Kinematics, velocities and bias forces at the current state.
    for (Run& run : runs) mj_step1(model, run.data);
    const double t = runs[0].data->time;
    controllers_ok = compute_torques();
    if (!controllers_ok) break;

    for (Run& run : runs) {
      if (run.q() > run.peak) run.peak = run.q();
      if (k > kSteps - kAverageSteps) run.error_sum += kTarget - run.q();
      if (std::fabs(run.tau) >= kEffortLimit) ++run.saturated_steps;
      const double mismatch =
          std::fabs(run.data->qfrc_bias[0] - kHoldingTorque * std::sin(run.q()));
      if (mismatch > run.max_bias_mismatch) run.max_bias_mismatch = mismatch;
    }
    std::fprintf(csv, "%.6f,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t,
                 runs[0].q(), runs[1].q(), runs[2].q(), runs[0].tau, runs[1].tau, runs[2].tau,
                 kTarget, runs[3].q(), runs[3].tau);
    if (table_row < kTableRows && k == kTableSteps[table_row]) {
      ++table_row;
      std::printf("%6.3f | %10.6f %10.6f %10.6f | %9.4f %9.4f %9.4f\n", t, runs[0].q(), runs[1].q(),
                  runs[2].q(), runs[0].tau, runs[1].tau, runs[2].tau);
    }
    if (k == kSteps) break;

    // Hold each torque over the period and integrate.
    for (Run& run : runs) {
      run.data->ctrl[0] = run.tau;
      mj_step2(model, run.data);
    }
  }

  const bool csv_ok = std::fclose(csv) == 0;
  if (!controllers_ok) return EXIT_FAILURE;
  if (!csv_ok) {
    std::fprintf(stderr, "02_mujoco_pendulum: error writing %s\n", csv_path);
    return EXIT_FAILURE;
  }

  const double sag = runs[0].steady_state_error();
  const double sag_deviation = (sag - predicted_sag) / predicted_sag;
  std::printf("\nsteady-state error e = q* - q, mean over the last %g s:\n",
              static_cast<double>(kAverageSteps) * kTimestep);
  std::printf("  %-12s e = %+.6e rad   vs m g l / kp = %.6e rad: %+.2f %%\n", runs[0].label, sag,
              predicted_sag, 100.0 * sag_deviation);
  std::printf("  %-12s (exact equilibrium, root of kp e = m g l cos e: %.6e rad)\n", "",
              exact_pd_sag());
  std::printf("  %-12s e = %+.6e rad\n", runs[1].label, runs[1].steady_state_error());
  std::printf("  %-12s e = %+.6e rad\n", runs[2].label, runs[2].steady_state_error());
  std::printf("\novershoot above q* (largest q - q*) and periods at the effort limit:\n");
  for (const Run& run : runs)
    std::printf("  %-33s %+.3e rad, %4ld periods saturated\n", run.label, run.peak - kTarget,
                run.saturated_steps);
  std::printf("  (the comparison PID settles to e = %+.3e rad, after its windup transient)\n",
              runs[3].steady_state_error());
  double bias_mismatch = 0.0;
  int warnings = 0;
  for (const Run& run : runs) {
    bias_mismatch = std::fmax(bias_mismatch, run.max_bias_mismatch);
    warnings += warning_count(run.data);
  }
  std::printf("\nmax |qfrc_bias - m g l sin q| over all runs: %.3e N m; MuJoCo warnings: %d\n",
              bias_mismatch, warnings);
  std::printf("wrote %s\n", csv_path);

  bool pass = true;
  if (!(std::fabs(sag_deviation) <= kSagTolerance)) {
    std::fprintf(stderr,
                 "02_mujoco_pendulum: FAIL: PD sag %.6e rad is not within %g %% of %.6e rad\n", sag,
                 100.0 * kSagTolerance, predicted_sag);
    pass = false;
  }
  for (int i = 1; i < 3; ++i) {
    if (!(std::fabs(runs[i].steady_state_error()) < kZeroTolerance)) {
      std::fprintf(stderr, "02_mujoco_pendulum: FAIL: %s steady-state error %.3e rad >= %g rad\n",
                   runs[i].label, runs[i].steady_state_error(), kZeroTolerance);
      pass = false;
    }
  }
  if (!(runs[2].peak - kTarget < kOvershootTolerance)) {
    std::fprintf(stderr, "02_mujoco_pendulum: FAIL: (c) PID overshoots q* by %.3e rad >= %g rad\n",
                 runs[2].peak - kTarget, kOvershootTolerance);
    pass = false;
  }
  if (warnings != 0) {
    std::fprintf(stderr, "02_mujoco_pendulum: FAIL: MuJoCo reported %d warning(s)\n", warnings);
    pass = false;
  }
  std::printf("%s\n", pass ? "checks passed" : "checks FAILED");
  return pass ? EXIT_SUCCESS : EXIT_FAILURE;
}
