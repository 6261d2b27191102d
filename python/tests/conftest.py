"""Shared fixtures: GPU tests skip, saying why, where there is no GPU or no array library."""

import importlib

import pytest

import sluice


def _gpu_reason():
    if sluice.device_count() == 0:
        return "no CUDA device: " + str(sluice.info().get("reason", ""))
    return None


def gpu_library(name):
    """The module `name` (torch or cupy) with a usable GPU, else a skip naming what is missing."""
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    try:
        module = importlib.import_module(name)
    except ImportError:
        pytest.skip(f"{name} is not installed")
    if name == "torch" and not module.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return module
