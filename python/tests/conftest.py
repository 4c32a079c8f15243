"""Shared helpers of claw's Python tests: the reference data of $CLAW_REFERENCE_DIR (default
tests/data/reference of the repository) turned into float64 arrays."""
import json
import math
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def reference_dir():
    return pathlib.Path(os.environ.get("CLAW_REFERENCE_DIR")
                        or os.environ.get("CLAW_REFERENCE_DIR_DEFAULT")
                        or REPO / "tests" / "data" / "reference")


def load_reference(family, name):
    path = reference_dir() / family / name
    if not path.is_file():
        pytest.fail(f"reference file missing: {path}")
    with open(path) as f:
        return json.load(f)


def number(x, null=0.0):
    """A JSON number, or one of the strings inf / -inf / DBL_MAX; None gives `null`."""
    if x is None:
        return null
    if isinstance(x, str):
        return {"inf": math.inf, "-inf": -math.inf, "DBL_MAX": np.finfo(float).max,
                "-DBL_MAX": -np.finfo(float).max}[x]
    return float(x)


def array(x, null=0.0):
    """A JSON list (of lists) as a C-contiguous float64 array."""
    if isinstance(x, list) and x and isinstance(x[0], list):
        return np.array([[number(v, null) for v in row] for row in x], dtype=np.float64)
    return np.array([number(v, null) for v in x], dtype=np.float64)


def bits_equal(a, b):
    """Equal under == everywhere (bit for bit up to the sign of zero), same shape."""
    a = np.asarray(a)
    b = np.asarray(b)
    return a.shape == b.shape and bool(np.all(a == b))
