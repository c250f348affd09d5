"""The pipe check (opgen_twin/detail/pipes.h): asc-devkit's single- and double-buffer static-tensor
Add kernels (静态Tensor编程.md) pass as the guide writes them, and fail with any one of their four
events (MTE2_V, V_MTE3 forward; V_MTE2, MTE3_V backward) left out, naming both calls and the
event; TQue kernels are ordered by their queues, TBuf ones are not; a GetValue of a vector
result needs V_S when the compiler's auto sync is off (cpp/test_pipes.cpp)."""

from __future__ import annotations

import subprocess

import pytest
from twin_support import CPP, CXX, CXXFLAGS

pytestmark = pytest.mark.slow

EVENTS = {
    "MTE2_V": ("DataCopy(GM->UB) (MTE2)", "Add (V)", "read after write"),
    "V_MTE3": ("Add (V)", "DataCopy(UB->GM) (MTE3)", "read after write"),
    "V_MTE2": ("Add (V)", "DataCopy(GM->UB) (MTE2)", "write after read"),
    "MTE3_V": ("DataCopy(UB->GM) (MTE3)", "Add (V)", "write after read"),
}


@pytest.fixture(scope="module")
def pipes_bin(tmp_path_factory):
    exe = tmp_path_factory.mktemp("twin_pipes") / "test_pipes"
    proc = subprocess.run(
        [CXX, *CXXFLAGS, str(CPP / "test_pipes.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return exe


def _run(exe, section: str) -> dict[str, str]:
    proc = subprocess.run([str(exe), section], capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert proc.returncode == 0 and any(ln.startswith("SUMMARY") for ln in lines), proc.stdout
    msgs = {}
    for ln in lines:
        if ln.startswith("MSG "):
            name, _, text = ln[4:].partition(": ")
            msgs[name] = text
    return msgs


@pytest.fixture(scope="module")
def static_msgs(pipes_bin):
    return _run(pipes_bin, "static")


@pytest.mark.parametrize("kernel", ["single", "double"])
@pytest.mark.parametrize("event", sorted(EVENTS))
def test_static_add_without_one_event_fails(static_msgs, kernel, event):
    first, second, kind = EVENTS[event]
    msg = static_msgs[f"{kernel}_without_{event}"]
    assert f"pipe hazard ({kind})" in msg
    assert f"SetFlag/WaitFlag<HardEvent::{event}> between {first} and {second}" in msg
    assert "UB block" in msg


def test_tque_orders_and_tbuf_does_not(pipes_bin):
    msgs = _run(pipes_bin, "tque")
    assert "HardEvent::MTE2_V" in msgs["tbuf_without_events"]
    # 关键特性说明.md 反例2: EnQue without DeQue sets MTE2_V that nothing waits for
    assert "HardEvent::MTE2_V" in msgs["tque_without_DeQue"]


def test_scalar_read_needs_v_s_without_auto_sync(pipes_bin):
    msgs = _run(pipes_bin, "scalar")
    assert (
        "HardEvent::V_S> between Adds (V) and LocalTensor::GetValue (S)"
        in msgs["scalar_without_V_S"]
    )


def test_gm_read_back_needs_mte3_mte2(pipes_bin):
    msgs = _run(pipes_bin, "gm")
    assert "HardEvent::MTE3_MTE2" in msgs["gm_without_MTE3_MTE2"]
