// python/src/common.hpp: what the binding files share: the one table of claw's statuses, the
// cached Python objects of claw.Status, and the argument checks of numpy arrays (float64,
// C-contiguous, shape, writable), which raise exceptions naming the argument.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <claw/core/status.hpp>
#include <string>

namespace claw_python {

namespace py = pybind11;

/// Every claw::Status, its Python name and meaning: the enum claw.Status is built from this table
/// alone (status.cpp), so a renamed or added status is one line here.
#define CLAW_PYTHON_STATUSES(X)                                                              \
  X(Ok, "Done; outputs written.")                                                            \
  X(NegativeTimeStep, "dt < 0 (or not usable as a time step); nothing touched.")             \
  X(NonFiniteInput, "An input holds NaN or Inf; nothing touched, last output held.")         \
  X(InvalidBounds, "Bounds are NaN, lower > upper, or unusable for the chosen mode.")        \
  X(InvalidParameter, "A gain, limit or setting is out of its domain; old values kept.")     \
  X(SizeMismatch, "Vectors of different lengths where equal lengths are required.")          \
  X(NumericalOverflow, "Finite inputs overflowed to a non-finite result; that output held.") \
  X(Infeasible, "The problem has no solution (solvers, filters).")                           \
  X(MaxIterations, "The iteration cap was reached before convergence (solvers).")            \
  X(InvalidProblem, "The problem data is inconsistent (solvers).")                           \
  X(IllConditioned, "Undecidable in this precision: the data's conditioning hides the answer.")

/// Binds claw.Status (status.cpp) and caches one Python object per value.
void bind_status(py::module_& m);
/// The cached claw.Status object of `status`, as a new reference (fast: no pybind11 cast).
PyObject* status_object(claw::Status status) noexcept;

void bind_jiminy(py::module_& m);
void bind_blocks(py::module_& m);
void bind_laws(py::module_& m);
void bind_actuator(py::module_& m);
void bind_solvers(py::module_& m);

/// Joint counts from which the class bindings release the GIL around a call.
constexpr Eigen::Index kReleaseGilFrom = 2048;

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorMap = Eigen::Map<Eigen::VectorXd>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

/// The data of `obj` after the checks every claw argument passes (arrays.hpp's array_data: a
/// float64 ndarray, native byte order, aligned, C-contiguous, `ndim` dimensions, `rows` (and for
/// 2-D `cols`) entries where these are >= 0, writable when `writable`); its extents in shape[0..2).
/// Raises TypeError / ValueError naming `where` and `name`. No copy is ever made.
double* checked_array(py::handle obj, const char* where, const char* name, int ndim,
                      Eigen::Index rows, Eigen::Index cols, bool writable, Eigen::Index* shape);

/// A float64 vector of n entries (n < 0: any length) viewed without copy.
inline ConstVectorMap vector_in(py::handle obj, const char* where, const char* name,
                                Eigen::Index n = -1) {
  Eigen::Index shape[2];
  const double* data = checked_array(obj, where, name, 1, n, -1, false, shape);
  return ConstVectorMap(data, shape[0]);
}
inline VectorMap vector_out(py::handle obj, const char* where, const char* name,
                            Eigen::Index n = -1) {
  Eigen::Index shape[2];
  double* data = checked_array(obj, where, name, 1, n, -1, true, shape);
  return VectorMap(data, shape[0]);
}
/// An optional vector argument: the float64 array of n entries viewed without copy, or `fallback`
/// (n entries, e.g. zeros) when the argument is None.
inline ConstVectorMap vector_or(py::handle obj, const Eigen::VectorXd& fallback, const char* where,
                                const char* name, Eigen::Index n) {
  return obj.is_none() ? ConstVectorMap(fallback.data(), n) : vector_in(obj, where, name, n);
}
/// A float64 C-contiguous matrix of rows x cols (either < 0: any) viewed without copy.
inline ConstMatrixMap matrix_in(py::handle obj, const char* where, const char* name,
                                Eigen::Index rows = -1, Eigen::Index cols = -1) {
  Eigen::Index shape[2];
  const double* data = checked_array(obj, where, name, 2, rows, cols, false, shape);
  return ConstMatrixMap(data, shape[0], shape[1]);
}

/// A joint mask: a 1-D array of n entries of any dtype, read as bool (numpy's truth values); a
/// copy. Raises ValueError naming `where` for another shape.
inline Eigen::Array<bool, Eigen::Dynamic, 1> mask_in(py::handle obj, const char* where,
                                                     Eigen::Index n) {
  const auto flags = py::array::c_style | py::array::forcecast;
  const py::array_t<bool, flags> mask = py::array_t<bool, flags>::ensure(obj);
  if (!mask || mask.ndim() != 1 || mask.shape(0) != n)
    throw py::value_error(std::string(where) + ": selected must be a 1-D array of " +
                          std::to_string(n) + " entries");
  Eigen::Array<bool, Eigen::Dynamic, 1> out(n);
  for (Eigen::Index j = 0; j < n; ++j) out(j) = mask.at(j);
  return out;
}

/// A new float64 array copied from an Eigen vector or matrix (for read-only properties).
template <typename Derived>
py::array_t<double> to_numpy(const Eigen::MatrixBase<Derived>& x) {
  if constexpr (Derived::ColsAtCompileTime == 1) {
    py::array_t<double> out(x.rows());
    VectorMap(out.mutable_data(), x.rows()) = x.col(0);
    return out;
  } else {
    py::array_t<double> out({x.rows(), x.cols()});
    MatrixMap(out.mutable_data(), x.rows(), x.cols()) = x;
    return out;
  }
}

/// A float64 vector of n copies of a Python float, or the float64 array of n entries given.
Eigen::VectorXd vector_or_scalar(py::handle obj, const char* where, const char* name,
                                 Eigen::Index n);

}  // namespace claw_python
