// tests/compile/umbrella_uses_every_class.cpp: compiled with claw/claw.hpp as its only claw
// include (ctest umbrella_uses_every_class): every public class and free function is usable.
#include "claw/claw.hpp"

int main() {
  using V = claw::Vector<double, 2>;
  const V zero = V::Zero(), one = V::Ones();
  V out = V::Zero();
  int failures = 0;
  const auto count = [&failures](claw::Status s) { failures += claw::ok(s) ? 0 : 1; };

  claw::StateMatrix<double, 2> state = claw::StateMatrix<double, 2>::Zero();
  const claw::StateMatrix<double, 2> lower = claw::StateMatrix<double, 2>::Constant(-1.0);
  const claw::StateMatrix<double, 2> upper = claw::StateMatrix<double, 2>::Constant(1.0);
  count(claw::integrate_zoh(state, lower, upper, 1e-3));
  count(claw::pd_effort(one, zero, zero, zero, one, one, claw::PdForm::Parallel,
                        claw::EffortLimits<double, 2>::symmetric(1.0), out));
  count(claw::clamp_effort(claw::EffortLimits<double, 2>::symmetric(1.0), out, zero));

  claw::Pid<double, 2> pid;
  count(pid.configure(pid.settings()));
  count(pid.update(one, zero, zero, out));
  claw::DelayLine<double, 2, 2, 4> line;
  count(line.set_delay(2));
  count(line.update(one, out));
  claw::PositionEffortLimit<double, 2> position_limit;
  count(position_limit.clamp(out, zero));
  claw::Actuator<double, 2> actuator;
  count(actuator.configure(1, claw::EffortLimits<double, 2>::symmetric(1.0)));
  count(actuator.update(one, zero, zero, out));
  const claw::Actuator<double, 2>::State snapshot = actuator.state();
  count(actuator.set_state(snapshot));
  claw::PidState<double, 2> pid_state = pid.state();
  count(pid.set_state(pid_state));
  char name[32];
  const char* joints[2] = {"a", "b"};
  claw::state_field_names(actuator, joints, [&name](const claw::FieldName& f) {
    static_cast<void>(f.write(name, sizeof name));
  });
  Eigen::VectorXd logged(claw::state_scalar_count(actuator));
  count(claw::state_values(actuator, logged));
  claw::PdController<double, 2> pd;
  count(pd.update(zero, zero, zero, out));
  claw::PdAdapter<double, 2> adapter;
  count(adapter.update(zero, pd, out));
  claw::StablePd<double, 2> stable_pd;
  static_cast<void>(stable_pd);
  claw::SlewLimiter<double, 2> slew;
  count(slew.update(one, zero, 1e-3, out));
  claw::ActivationDynamics<double, 2> activation;
  V rate = V::Zero();
  count(activation.update(one, out, rate));
  claw::VelocityServo<double, 2> servo;
  static_cast<void>(servo);
  count(pid.configure(
      claw::presets::mujoco_native<double, 2>(claw::presets::MujocoNativePid<double>{})));

  claw::QpSolver<double, 2, 2, 0> qp;
  count(qp.set_hessian(Eigen::Matrix2d::Identity()));
  count(qp.solve(-one, -one, one).status);
  claw::LemkeSolver<double, 2> lemke;
  count(lemke.solve(one, Eigen::Matrix2d::Identity()).status);
  claw::LcqpProblem<double> problem(2, 0, 1);
  problem.Q.setIdentity();
  claw::LcqpSolver<double> lcqp;
  count(lcqp.solve(problem).status);
  claw::FliqcFilter<double, 2, 2, 1> fliqc;
  const Eigen::Matrix<double, 3, 2> jacobian = Eigen::Matrix<double, 3, 2>::Zero();
  const Eigen::MatrixXd no_rows(0, 2);
  const Eigen::VectorXd no_distances(0);
  count(fliqc.filter(zero, jacobian, no_distances, no_rows).status);
  return failures;
}
