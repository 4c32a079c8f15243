// tests/test_qp_regression_data.cpp: every QP input of tests/data/regressions/qp/*.json, solved as
// its file says and checked for the property each step names (the schema: that folder's README).
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "claw/solvers/qp.hpp"
#include "support/json_core.hpp"
#include "support/qp_certificate.hpp"
#include "support/regression_data.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;
using claw_test::check_keys;
using claw_test::field_integer;
using claw_test::field_real;
using claw_test::field_status;
using claw_test::field_text;
using claw_test::json_files;
using claw_test::member;
using claw_test::regressions_dir;
using claw_test::status_name;
using claw_test::status_named;
using claw_test::undecided;
using Json = nlohmann::json;

/// The fields of a file and of a solve step (README: "A file", "Steps", "Properties of a solve").
constexpr const char* kFileFields = "description scalar n m Q A g lb ub lbA ubA runs";
constexpr const char* kSolveFields =
    "do expect g lb ub lbA ubA warm status undecided witness cold x x_tolerance x_rel objective "
    "objective_rel objective_at_most iterations_at_most stationarity_at_most "
    "stationarity_per_gradient_at_most primal_residual primal_residual_rel x_scaled_miss_at_most";

/// The file's numbers and arrays in Scalar, checked against the schema as they are read.
template <typename Scalar>
class Reader {
 public:
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  /// A number that must be a Scalar value exactly (problem data, settings, expected points).
  static Scalar exact(const Json& v) {
    const double d = field_real(v);
    const auto s = static_cast<Scalar>(d);
    INFO("number " << v.dump() << " is not exactly a value of the file's scalar type");
    CHECK((static_cast<double>(s) == d || std::isnan(d)));
    return s;
  }

  /// A list of `size` numbers.
  static bool vector(const Json& v, Eigen::Index size, Vector& out) {
    INFO("vector of " << size << ": " << v.dump());
    const bool shaped = v.is_array() && static_cast<Eigen::Index>(v.size()) == size;
    CHECK(shaped);
    if (!shaped) return false;
    out.resize(size);
    for (Eigen::Index i = 0; i < size; ++i) out(i) = exact(v[static_cast<std::size_t>(i)]);
    return true;
  }

  /// A list of `rows` lists of `cols` numbers.
  static bool matrix(const Json& v, Eigen::Index rows, Eigen::Index cols, Matrix& out) {
    INFO("matrix " << rows << " x " << cols);
    bool shaped = v.is_array() && static_cast<Eigen::Index>(v.size()) == rows;
    for (std::size_t i = 0; shaped && i < v.size(); ++i)
      shaped = v[i].is_array() && static_cast<Eigen::Index>(v[i].size()) == cols;
    CHECK(shaped);
    if (!shaped) return false;
    out.resize(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j)
        out(i, j) = exact(v[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
    return true;
  }
};

/// One file's solver runs: each run is a fresh QpSolver<Scalar, Dynamic, Dynamic>(n, m) taken
/// through the run's steps in order.
template <typename Scalar>
class FileRunner {
 public:
  using R = Reader<Scalar>;
  using Matrix = typename R::Matrix;
  using Vector = typename R::Vector;
  using Solver = claw::QpSolver<Scalar, claw::Dynamic, claw::Dynamic>;
  using Result = typename Solver::Result;

  explicit FileRunner(const Json& file) : file_(file) {}

  void run() {
    n_ = field_integer(member(file_, "n"));
    m_ = field_integer(member(file_, "m"));
    REQUIRE(n_ > 0);
    REQUIRE(m_ >= 0);
    const Json& runs = member(file_, "runs");
    REQUIRE(runs.is_array());
    REQUIRE(!runs.empty());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      INFO("run " << r);
      REQUIRE(runs[r].is_array());
      run_steps(runs[r]);
    }
  }

 private:
  /// What a run's solves left: its answers by step, and the last Ok answer (zeros before one),
  /// which every other status must leave in x and objective.
  struct Answer {
    bool solved = false;
    Status status = Status::InvalidProblem;
    Vector x;
    Scalar objective = Scalar(0);
  };

  /// The problem as the run's steps have changed it so far.
  struct Problem {
    Matrix q, a;
    Vector g, lb, ub, lba, uba;
  };

  /// The file's top-level problem fields, where present.
  void initial_problem(Problem& p) const {
    if (file_.contains("Q")) R::matrix(file_["Q"], n_, n_, p.q);
    if (file_.contains("A")) R::matrix(file_["A"], m_, n_, p.a);
    for (const auto& [name, v, size] : vectors(p))
      if (file_.contains(name)) R::vector(file_[name], size, *v);
  }

  /// The problem's vectors with their names and sizes.
  std::vector<std::tuple<const char*, Vector*, Eigen::Index>> vectors(Problem& p) const {
    return {{"g", &p.g, n_},
            {"lb", &p.lb, n_},
            {"ub", &p.ub, n_},
            {"lbA", &p.lba, m_},
            {"ubA", &p.uba, m_}};
  }

  void run_steps(const Json& steps) {
    Solver solver(n_, m_);
    Problem p;
    initial_problem(p);
    std::vector<Answer> answers(steps.size());
    Answer last_ok;
    last_ok.x = Vector::Zero(n_);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Json& step = steps[k];
      INFO("step " << k << ": " << step.dump());
      REQUIRE(step.is_object());
      const std::string action = field_text(member(step, "do"));
      if (action == "set_settings") {
        set_settings(solver, step);
      } else if (action == "set_hessian" || action == "set_constraints") {
        set_matrix(solver, step, action == "set_hessian", p);
      } else if (action == "solve") {
        answers[k] = solve(solver, step, p, answers, last_ok);
      } else {
        FAIL("unknown step \"" << action << "\"");
      }
    }
  }

  /// "accepted": Ok and installed. "refused": the named status, the one validate() gives, and the
  /// solver's settings unchanged.
  void set_settings(Solver& solver, const Json& step) {
    check_keys(step, "do settings expect status", "set_settings");
    claw::QpSettings<Scalar> s;
    const Json& fields = step.contains("settings") ? step["settings"] : Json::object();
    REQUIRE(fields.is_object());
    check_keys(fields,
               "max_iterations feasibility_tolerance infeasibility_tolerance "
               "stationarity_tolerance dependence_tolerance",
               "settings");
    if (fields.contains("max_iterations"))
      s.max_iterations = field_integer(fields["max_iterations"]);
    if (fields.contains("feasibility_tolerance"))
      s.feasibility_tolerance = R::exact(fields["feasibility_tolerance"]);
    if (fields.contains("infeasibility_tolerance"))
      s.infeasibility_tolerance = R::exact(fields["infeasibility_tolerance"]);
    if (fields.contains("stationarity_tolerance"))
      s.stationarity_tolerance = R::exact(fields["stationarity_tolerance"]);
    if (fields.contains("dependence_tolerance"))
      s.dependence_tolerance = R::exact(fields["dependence_tolerance"]);
    const claw::QpSettings<Scalar> before = solver.settings();
    const Status status = solver.set_settings(s);
    const claw::QpSettings<Scalar>& now = solver.settings();
    const std::string expect = field_text(member(step, "expect"));
    if (expect == "accepted") {
      REQUIRE(status_name(status) == "Ok");
      CHECK(same_settings(now, s));
    } else {
      REQUIRE(expect == "refused");
      const Status named = field_status(member(step, "status"));
      CHECK(status_name(status) == status_name(named));
      CHECK(status_name(s.validate()) == status_name(named));
      CHECK(same_settings(now, before));
    }
  }

  static bool same_settings(const claw::QpSettings<Scalar>& a, const claw::QpSettings<Scalar>& b) {
    return a.max_iterations == b.max_iterations &&
           a.feasibility_tolerance == b.feasibility_tolerance &&
           a.infeasibility_tolerance == b.infeasibility_tolerance &&
           a.stationarity_tolerance == b.stationarity_tolerance &&
           a.dependence_tolerance == b.dependence_tolerance;
  }

  /// set_hessian (Q) or set_constraints (A): the step's matrix, else the problem's current one.
  /// "accepted": Ok, and the matrix is the problem's from now on; "refused": the named status.
  void set_matrix(Solver& solver, const Json& step, bool hessian, Problem& p) {
    const char* key = hessian ? "Q" : "A";
    check_keys(step, std::string("do expect status ") + key,
               hessian ? "set_hessian" : "set_constraints");
    Matrix given = hessian ? p.q : p.a;
    if (step.contains(key)) REQUIRE(R::matrix(step[key], hessian ? n_ : m_, n_, given));
    REQUIRE(given.rows() == (hessian ? n_ : m_));
    REQUIRE(given.cols() == n_);
    const Status status = hessian ? solver.set_hessian(given) : solver.set_constraints(given);
    INFO("status " << claw::to_string(status));
    const std::string expect = field_text(member(step, "expect"));
    if (expect == "accepted") {
      REQUIRE(status_name(status) == "Ok");
      (hessian ? p.q : p.a) = given;
    } else {
      REQUIRE(expect == "refused");
      CHECK(status_name(status) == status_name(field_status(member(step, "status"))));
    }
  }

  /// A guess of the step's "warm": "previous" (the solver's last active set) or named states.
  bool guess(const Solver& solver, const Json& warm, typename Solver::ActiveSet& out) const {
    if (warm.is_string()) {
      REQUIRE(field_text(warm) == "previous");
      out = solver.result().active_set;
      return true;
    }
    REQUIRE(warm.is_object());
    check_keys(warm, "bounds constraints", "warm");
    out.resize(n_, m_);
    const std::pair<const char*, Eigen::Index> parts[] = {{"bounds", n_}, {"constraints", m_}};
    for (const auto& [name, size] : parts) {
      REQUIRE(warm.contains(name));
      const Json& states = warm[name];
      REQUIRE(states.is_array());
      REQUIRE(static_cast<Eigen::Index>(states.size()) == size);
      for (Eigen::Index i = 0; i < size; ++i) {
        const std::string state = field_text(states[static_cast<std::size_t>(i)]);
        const claw::QpActivity activity = state == "Lower"      ? claw::QpActivity::Lower
                                          : state == "Upper"    ? claw::QpActivity::Upper
                                          : state == "Equality" ? claw::QpActivity::Equality
                                                                : claw::QpActivity::Inactive;
        INFO("activity \"" << state << "\"");
        CHECK((state == "Inactive" || activity != claw::QpActivity::Inactive));
        if (name[0] == 'b')
          out.set_bound(i, activity);
        else
          out.set_constraint(i, activity);
      }
    }
    return true;
  }

  Answer solve(Solver& solver, const Json& step, Problem& p, const std::vector<Answer>& answers,
               Answer& last_ok) {
    check_keys(step, kSolveFields, "solve");
    for (const auto& [name, v, size] : vectors(p)) {
      if (step.contains(name)) REQUIRE(R::vector(step[name], size, *v));
      INFO("the problem's " << name << " (the file's or a step's)");
      REQUIRE(v->size() == size);
    }
    if (step.contains("witness")) check_witness(step["witness"], p);
    typename Solver::ActiveSet warm_set;
    const bool warm = step.contains("warm") && guess(solver, step["warm"], warm_set);
    const Result& r = warm ? solver.solve(p.g, p.lb, p.ub, p.lba, p.uba, warm_set)
                           : solver.solve(p.g, p.lb, p.ub, p.lba, p.uba);
    INFO("status " << claw::to_string(r.status) << ", iterations " << r.iterations << ", x "
                   << r.x.transpose() << ", objective " << r.objective);
    check_property(step, p, r, solver.settings(), answers, last_ok);
    Answer answer;
    answer.solved = true;
    answer.status = r.status;
    answer.x = r.x;
    answer.objective = r.objective;
    if (r.status == Status::Ok) last_ok = answer;
    return answer;
  }

  /// The named property of the answer, then the step's Ok-only checks on an Ok answer.
  void check_property(const Json& step, const Problem& p, const Result& r,
                      const claw::QpSettings<Scalar>& settings, const std::vector<Answer>& answers,
                      const Answer& last_ok) const {
    const std::string expect = field_text(member(step, "expect"));
    const bool ok = r.status == Status::Ok;
    if (expect == "verified_ok" || expect == "warm_equals_cold") {
      REQUIRE(status_name(r.status) == "Ok");
    } else if (expect == "ok_or_undecided") {
      REQUIRE(step.contains("undecided"));
      const Json& allowed = step["undecided"];
      REQUIRE(allowed.is_array());
      bool listed = ok;
      for (const auto& name : allowed) {
        const Status s = field_status(name);
        CHECK(undecided(s));
        listed = listed || s == r.status;
      }
      CHECK(listed);
    } else if (expect == "never_infeasible") {
      CHECK((ok || undecided(r.status)));
    } else if (expect == "never_ok") {
      CHECK((r.status == Status::Infeasible || undecided(r.status)));
    } else if (expect == "fails_with") {
      const Status named = field_status(member(step, "status"));
      CHECK(status_name(named) != "Ok");
      CHECK(status_name(r.status) == status_name(named));
    } else {
      FAIL("unknown property \"" << expect << "\"");
    }
    if (!ok) {
      check_not_ok_answer(r, last_ok);
      return;
    }
    check_ok_answer(p, r, settings);
    if (expect == "warm_equals_cold") check_same_as_cold(step, r, answers);
    check_ok_values(step, p, r);
  }

  /// What every status but Ok leaves (QpResult): x and objective of the last Ok answer, residuals
  /// +inf, and (undecided statuses) multipliers 0.
  void check_not_ok_answer(const Result& r, const Answer& last_ok) const {
    CHECK(r.x == last_ok.x);
    CHECK(r.objective == last_ok.objective);
    const Scalar inf = std::numeric_limits<Scalar>::infinity();
    CHECK(r.residuals.primal == inf);
    CHECK(r.residuals.stationarity == inf);
    CHECK(r.residuals.stationarity_limit == inf);
    CHECK(r.residuals.dual == inf);
    CHECK(r.residuals.complementarity == inf);
    if (undecided(r.status)) {
      CHECK(r.bound_multipliers.isZero(Scalar(0)));
      CHECK(r.constraint_multipliers.isZero(Scalar(0)));
    }
  }

  /// An Ok answer as QpResult promises it: finite; its reported residuals >= 0 and within the
  /// settings (primal, complementarity <= t, stationarity <= its limit, no multiplier of the wrong
  /// sign);
  /// re-checked in long double from the problem and the answer alone (qp_answer_excess); its
  /// reported stationarity the recomputed one to the rounding of its (n + m + 2) terms.
  void check_ok_answer(const Problem& p, const Result& r, const claw::QpSettings<Scalar>& s) const {
    CHECK(r.x.allFinite());
    CHECK(r.bound_multipliers.allFinite());
    CHECK(r.constraint_multipliers.allFinite());
    CHECK(std::isfinite(r.objective));
    CHECK(r.residuals.primal <= s.infeasibility_tolerance);
    CHECK(r.residuals.complementarity <= s.infeasibility_tolerance);
    CHECK(r.residuals.stationarity <= r.residuals.stationarity_limit);
    CHECK(r.residuals.dual == Scalar(0));
    CHECK(r.residuals.primal >= Scalar(0));
    CHECK(r.residuals.complementarity >= Scalar(0));
    CHECK(r.residuals.stationarity >= Scalar(0));
    const long double excess = claw_test::qp_answer_excess(
        p.q, p.g, p.a, p.lb, p.ub, p.lba, p.uba, r.x, r.bound_multipliers, r.constraint_multipliers,
        static_cast<double>(s.infeasibility_tolerance),
        static_cast<double>(s.stationarity_tolerance));
    INFO("qp_answer_excess " << static_cast<double>(excess));
    CHECK(excess <= 1.0L + 1e-3L);
    using L = long double;
    L stationarity = 0;
    for (Eigen::Index j = 0; j < n_; ++j) {
      L rj = L(p.g(j)) - L(r.bound_multipliers(j));
      for (Eigen::Index k = 0; k < n_; ++k) rj += L(p.q(k, j)) * L(r.x(k));
      for (Eigen::Index i = 0; i < m_; ++i) rj -= L(p.a(i, j)) * L(r.constraint_multipliers(i));
      stationarity = std::fmax(stationarity, std::fabs(rj));
    }
    const L terms = L(r.residuals.stationarity_limit) / L(s.stationarity_tolerance);  // 1 + S
    const L rounding = L(n_ + m_ + 2) * L(std::numeric_limits<Scalar>::epsilon()) * terms;
    INFO("reported stationarity " << r.residuals.stationarity << ", recomputed "
                                  << static_cast<double>(stationarity) << ", allowance "
                                  << static_cast<double>(rounding));
    CHECK(std::fabs(L(r.residuals.stationarity) - stationarity) <= rounding);
  }

  void check_same_as_cold(const Json& step, const Result& r,
                          const std::vector<Answer>& answers) const {
    REQUIRE(step.contains("cold"));
    const Json& cold = step["cold"];
    REQUIRE(cold.is_object());
    check_keys(cold, "step x_tolerance objective_rel", "cold");
    const int k = field_integer(member(cold, "step"));
    REQUIRE(k >= 0);
    REQUIRE(static_cast<std::size_t>(k) < answers.size());
    const Answer& c = answers[static_cast<std::size_t>(k)];
    REQUIRE(c.solved);
    REQUIRE(status_name(c.status) == "Ok");
    const Scalar tolerance = cold.contains("x_tolerance") ? R::exact(cold["x_tolerance"]) : 0;
    CHECK((r.x - c.x).cwiseAbs().maxCoeff() <= tolerance);
    const double rel = cold.contains("objective_rel") ? field_real(cold["objective_rel"]) : 0.0;
    CHECK(static_cast<double>(r.objective) ==
          Approx(static_cast<double>(c.objective)).epsilon(rel));
  }

  /// The step's checks of an Ok answer's values (README: "Checks of an Ok answer").
  void check_ok_values(const Json& step, const Problem& p, const Result& r) const {
    if (step.contains("x")) {
      const Json& x = step["x"];
      REQUIRE(x.is_array());
      REQUIRE(static_cast<Eigen::Index>(x.size()) == n_);
      const bool relative = step.contains("x_rel");
      const double rel = relative ? field_real(step["x_rel"]) : 0.0;
      const Scalar tolerance = step.contains("x_tolerance") ? R::exact(step["x_tolerance"]) : 0;
      for (Eigen::Index j = 0; j < n_; ++j) {
        const Json& e = x[static_cast<std::size_t>(j)];
        if (e.is_null()) continue;
        INFO("x(" << j << ")");
        if (relative) {
          CHECK(static_cast<double>(r.x(j)) == Approx(field_real(e)).epsilon(rel));
        } else {
          CHECK(std::fabs(r.x(j) - R::exact(e)) <= tolerance);
        }
      }
    }
    if (step.contains("objective")) {
      const double rel = step.contains("objective_rel") ? field_real(step["objective_rel"]) : 0.0;
      CHECK(static_cast<double>(r.objective) == Approx(field_real(step["objective"])).epsilon(rel));
    }
    if (step.contains("objective_at_most"))
      CHECK(r.objective <= R::exact(step["objective_at_most"]));
    if (step.contains("iterations_at_most"))
      CHECK(r.iterations <= field_integer(step["iterations_at_most"]));
    if (step.contains("stationarity_at_most"))
      CHECK(r.residuals.stationarity <= R::exact(step["stationarity_at_most"]));
    if (step.contains("stationarity_per_gradient_at_most")) {
      const Vector gradient = p.q * r.x + p.g;
      CHECK(r.residuals.stationarity <=
            R::exact(step["stationarity_per_gradient_at_most"]) * gradient.cwiseAbs().maxCoeff());
    }
    if (step.contains("primal_residual")) {
      const double rel =
          step.contains("primal_residual_rel") ? field_real(step["primal_residual_rel"]) : 0.0;
      CHECK(static_cast<double>(r.residuals.primal) ==
            Approx(field_real(step["primal_residual"])).epsilon(rel));
    }
    if (step.contains("x_scaled_miss_at_most")) {
      const Scalar allowed =
          R::exact(step["x_scaled_miss_at_most"]) * (Scalar(1) + r.x.cwiseAbs().maxCoeff());
      for (Eigen::Index c = 0; c < n_ + m_; ++c) {
        const bool bound = c < n_;
        const Eigen::Index i = bound ? c : c - n_;
        const Scalar v = bound ? r.x(i) : p.a.row(i).dot(r.x);
        const Scalar lo = bound ? p.lb(i) : p.lba(i), hi = bound ? p.ub(i) : p.uba(i);
        const Scalar norm = bound ? Scalar(1) : p.a.row(i).norm();
        const Scalar miss = std::max({Scalar(0), lo - v, v - hi}) / norm;
        INFO((bound ? "bound " : "row ") << i << " missed by " << miss << " along its unit normal");
        CHECK(miss <= allowed);
      }
    }
  }

  /// The witness point meets every bound and row within the margin: the input is feasible.
  void check_witness(const Json& witness, const Problem& p) const {
    REQUIRE(witness.is_object());
    check_keys(witness, "x margin", "witness");
    Vector x;
    REQUIRE(witness.contains("x"));
    REQUIRE(R::vector(witness["x"], n_, x));
    const Scalar margin = witness.contains("margin") ? R::exact(witness["margin"]) : 0;
    for (Eigen::Index j = 0; j < n_; ++j) {
      INFO("witness bound " << j);
      CHECK(x(j) - p.lb(j) >= -margin);
      CHECK(p.ub(j) - x(j) >= -margin);
    }
    for (Eigen::Index i = 0; i < m_; ++i) {
      const Scalar v = p.a.row(i).dot(x);
      INFO("witness row " << i << ": " << v);
      CHECK(v - p.lba(i) >= -margin);
      CHECK(p.uba(i) - v >= -margin);
    }
  }

  const Json& file_;
  Eigen::Index n_ = 0, m_ = 0;
};

}  // namespace

TEST_CASE("QP regression data: numbers are read bit for bit", "[qp][regression]") {
  double v = 0.0;
  CHECK(claw_test::json_number(Json("0x1.8p+1"), 0.0, v));
  CHECK(v == 3.0);
  CHECK(claw_test::json_number(Json("-0x1.986a27f338fdcp-41"), 0.0, v));
  CHECK(v == -0x1.986a27f338fdcp-41);
  CHECK(claw_test::json_number(Json("0x1p-1074"), 0.0, v));
  CHECK(v == std::numeric_limits<double>::denorm_min());
  CHECK(claw_test::json_number(Json("0x1.2d2d52p+1"), 0.0, v));
  CHECK(static_cast<float>(v) == 0x1.2d2d52p+1f);
  CHECK(static_cast<double>(static_cast<float>(v)) == v);
  CHECK(claw_test::json_number(Json::parse("3.2e-319"), 0.0, v));
  CHECK(v == 3.2e-319);
  CHECK(claw_test::json_number(Json::parse("2499.8324"), 0.0, v));
  CHECK(v == 2499.8324);
  CHECK(claw_test::json_number(Json("-inf"), 0.0, v));
  CHECK(v == -std::numeric_limits<double>::infinity());
  // Not a number of the schema: a decimal string, a hex float that overflows or has trailing text.
  for (const char* text : {"1.5", "0x", "0x1p+1024", "0x1.8p+1 ", "x1p+1", "-"}) {
    INFO(text);
    CHECK_FALSE(claw_test::json_number(Json(text), 0.0, v));
  }
}

TEST_CASE("QP regression data: every input of tests/data/regressions/qp meets its properties",
          "[qp][regression]") {
  const std::string dir = regressions_dir() + "/qp";
  const std::vector<std::string> files = json_files(dir);
  INFO("regression inputs in " << dir);
  REQUIRE(!files.empty());
  for (const std::string& path : files) {
    DYNAMIC_SECTION(std::filesystem::path(path).filename().string()) {
      INFO("file " << path);
      Json file;
      claw_test::read_regression_file(path, kFileFields, file);
      REQUIRE(file.contains("scalar"));
      const std::string scalar = field_text(file["scalar"]);
      if (scalar == "double") {
        FileRunner<double>(file).run();
      } else {
        REQUIRE(scalar == "float");
        FileRunner<float>(file).run();
      }
    }
  }
}
