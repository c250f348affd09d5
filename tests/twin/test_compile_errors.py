"""API the twin does not support must fail to COMPILE, with a message saying so."""

from __future__ import annotations

import concurrent.futures
import subprocess

import pytest
from twin_support import CPP, CXX, CXXFLAGS

# Every case runs g++ (-fsyntax-only) on compile_errors.cpp.
pytestmark = pytest.mark.slow

CASES = {
    0: None,  # control: compiles
    1: "does not support this element type",  # Add<bfloat16_t>
    2: "does not support this element type",  # Add<uint8_t>
    3: "AscendC::Gelu is not emulated",
    4: "does not support this (src, dst) type pair",  # Cast half -> bfloat16_t
    5: "opgen_twin_macro_tiling_OtherOp",  # OPGEN_TWIN_OP_TYPE without REGISTER_TILING_DATA_CLASS
    6: "GET_TILING_DATA without REGISTER_TILING_DEFAULT and without a macro-style tiling type",
    7: "Adds",  # float scalar with a half tensor: no matching overload, as on the NPU
    8: "deprecated",  # UnknownShapeFormat with -Werror
    9: "does not support this element type",  # Exp<int32_t>
    10: "Matmul<A, B, C, Bias>: this combination of element types is not in asc-devkit's",
    11: None,  # control: the macro-style optiling::TCubeTiling exists (GetTiling fills it)
    12: "take an integer or floating-point type",  # TILING_DATA_FIELD_DEF(uint32_t*, p)
    13: None,  # control: macro-style tiling on the kernel side, OPGEN_TWIN_OP_TYPE registered
    14: None,  # control: older host API (InferShapeRange, SetTilingParse, AsyncFlag, std::cout)
    15: "expected primary-expression before",  # if (ASCEND_IS_AIV): a syntax error, as on the NPU
    16: None,  # control: if ASCEND_IS_AIV { } else if ASCEND_IS_AIC { } else { }
    17: 'macro "ASSERT" passed 2 arguments, but takes just 1',
    18: None,  # control: GET_TILING_DATA_PTR_WITH_STRUCT, COPY_TILING_*, TILING_KEY_LIST, DT_*
    19: "REGISTER_TILING_FOR_TILINGKEY (a tiling struct per key) is not emulated",
    20: "has not been declared",  # if (c) REGIST_MATMUL_OBJ(...): ASCubeObjConfig out of scope
}


def _compile(case: int) -> subprocess.CompletedProcess:
    cmd = [
        CXX,
        *CXXFLAGS,
        "-Werror=deprecated-declarations",
        "-fsyntax-only",
        f"-DCASE={case}",
        str(CPP / "compile_errors.cpp"),
    ]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def results():
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(CASES, pool.map(_compile, CASES), strict=True))


@pytest.mark.parametrize("case", sorted(CASES))
def test_unsupported_api_fails_to_compile(results, case):
    proc = results[case]
    expected = CASES[case]
    if expected is None:
        assert proc.returncode == 0 and "dangling-else" not in proc.stderr, proc.stderr
    else:
        assert proc.returncode != 0, f"case {case} compiled but must not"
        assert expected in proc.stderr, proc.stderr[-3000:]
