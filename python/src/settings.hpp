// python/src/settings.hpp: settings structs filled from Python keyword arguments through a table
// of named fields (vectors accept a float, broadcast to every joint, or a float64 array).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <claw/laws/effort_clamp.hpp>

#include "common.hpp"

namespace claw_python {

/// One named field of a settings struct S: writes the Python value into S for n joints.
template <typename S>
struct Field {
  const char* name;
  void (*set)(S& settings, py::handle value, Eigen::Index n, const char* where);
};

/// Applies every keyword of `kwargs` through `fields`; TypeError for an unknown keyword (listing
/// the known ones), and whatever a field's conversion raises.
template <typename S, std::size_t K>
void apply_fields(S& settings, const py::kwargs& kwargs, Eigen::Index n, const char* where,
                  const Field<S> (&fields)[K]) {
  for (const auto& item : kwargs) {
    const std::string key = py::str(item.first);
    bool found = false;
    for (const Field<S>& f : fields)
      if (key == f.name) {
        f.set(settings, item.second, n, where);
        found = true;
        break;
      }
    if (!found) {
      std::string known;
      for (const Field<S>& f : fields) known += std::string(known.empty() ? "" : ", ") + f.name;
      throw py::type_error(std::string(where) + ": unknown setting '" + key + "' (known: " + known +
                           ")");
    }
  }
}

/// A Python value cast to T, or TypeError naming the setting.
template <typename T>
T cast_setting(py::handle value, const char* where, const char* name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(where) + ": setting " + name + " has the wrong type (" +
                         std::string(py::str(py::type::of(value).attr("__name__"))) + ")");
  }
}

/// Raises ValueError when a constructor's settings were refused (misuse: a constructor has no
/// status to return; configure() returns it instead).
inline void require_ok(claw::Status status, const char* where) {
  if (status != claw::Status::Ok)
    throw py::value_error(std::string(where) + ": settings refused (" + claw::to_string(status) +
                          ")");
}

/// Effort limits as keywords: effort_limit (symmetric bounds), effort_lower / effort_upper
/// (bounds), or effort_limit_kind with stall_effort, peak_effort, no_load_speed (DcMotor), for any
/// settings struct S with a member `limits`.
template <typename S>
void set_symmetric_limit(S& s, py::handle v, Eigen::Index n, const char* where) {
  const Eigen::VectorXd limit = vector_or_scalar(v, where, "effort_limit", n);
  s.limits.kind = claw::EffortLimitKind::Bounds;
  s.limits.lower = -limit;
  s.limits.upper = limit;
}

}  // namespace claw_python

/// Field-table entries: a per-joint vector, a scalar or enum/bool member (cast to its type).
#define CLAW_PYTHON_VECTOR(S, member)                                                             \
  claw_python::Field<S> {                                                                         \
#member,                                                                                      \
        [](S & s, pybind11::handle v, Eigen::Index n,                                             \
           const char* where) { s.member = claw_python::vector_or_scalar(v, where, #member, n); } \
  }
#define CLAW_PYTHON_VALUE(S, member)                                                         \
  claw_python::Field<S> {                                                                    \
#member, [](S& s, pybind11::handle v, Eigen::Index, const char* where) {                   \
      s.member = claw_python::cast_setting<std::decay_t<decltype(s.member)>>(v, where, #member); \
    } \
  }
#define CLAW_PYTHON_LIMIT_FIELDS(S)                                                             \
  claw_python::Field<S>{"effort_limit", &claw_python::set_symmetric_limit<S>},                  \
      claw_python::Field<S>{"effort_lower",                                                     \
                            [](S& s, pybind11::handle v, Eigen::Index n, const char* w) {       \
                              s.limits.lower =                                                  \
                                  claw_python::vector_or_scalar(v, w, "effort_lower", n);       \
                              s.limits.kind = claw::EffortLimitKind::Bounds;                    \
                            }},                                                                 \
      claw_python::Field<S>{"effort_upper",                                                     \
                            [](S& s, pybind11::handle v, Eigen::Index n, const char* w) {       \
                              s.limits.upper =                                                  \
                                  claw_python::vector_or_scalar(v, w, "effort_upper", n);       \
                              s.limits.kind = claw::EffortLimitKind::Bounds;                    \
                            }},                                                                 \
      claw_python::Field<S>{"effort_limit_kind",                                                \
                            [](S& s, pybind11::handle v, Eigen::Index, const char* w) {         \
                              s.limits.kind = claw_python::cast_setting<claw::EffortLimitKind>( \
                                  v, w, "effort_limit_kind");                                   \
                            }},                                                                 \
      claw_python::Field<S>{"stall_effort",                                                     \
                            [](S& s, pybind11::handle v, Eigen::Index n, const char* w) {       \
                              s.limits.stall_effort =                                           \
                                  claw_python::vector_or_scalar(v, w, "stall_effort", n);       \
                            }},                                                                 \
      claw_python::Field<S>{"peak_effort",                                                      \
                            [](S& s, pybind11::handle v, Eigen::Index n, const char* w) {       \
                              s.limits.peak_effort =                                            \
                                  claw_python::vector_or_scalar(v, w, "peak_effort", n);        \
                            }},                                                                 \
      claw_python::Field<S> {                                                                   \
    "no_load_speed", [](S& s, pybind11::handle v, Eigen::Index n, const char* w) {              \
      s.limits.no_load_speed = claw_python::vector_or_scalar(v, w, "no_load_speed", n);         \
    }                                                                                           \
  }
