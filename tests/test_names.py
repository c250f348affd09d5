"""Naming rules: msopgen's snake rule, aclnn's camel rule, identifier checks."""

import pytest

from opgen.frontend import names

# OpType -> msopgen's fix_name_lower_with_under (the expected values are msopgen's documented
# outputs where it gives them: ascend-c.md §1.4 and the function's docstring).
SNAKE_CASES = [
    ("AddCustom", "add_custom"),
    ("Conv2D", "conv2_d"),
    ("GeLU", "ge_lu"),
    ("GELUCustom", "gelu_custom"),
    ("AddRMSNorm", "add_rms_norm"),
    ("MatMulV3", "mat_mul_v3"),
    ("SwiGLU", "swi_glu"),
    ("Abc2DEf", "abc2_d_ef"),
    ("AbcDef", "abc_def"),
    ("AbcAAc", "abc_a_ac"),
    ("ABCDef", "abc_def"),
    ("Abc2DEF", "abc2_def"),
    ("ABC2dEF", "abc2d_ef"),
    ("Abc", "abc"),
    ("GeluCustom", "gelu_custom"),
    ("LeakyReluCustom", "leaky_relu_custom"),
    ("ReduceMaxCustom", "reduce_max_custom"),
    ("Conv3DBackpropInput", "conv3_d_backprop_input"),
    ("FlashAttentionScore", "flash_attention_score"),
    ("MoeGatingTopKSoftmax", "moe_gating_top_k_softmax"),
    ("RmsNorm", "rms_norm"),
    ("BatchMatMulV2", "batch_mat_mul_v2"),
    ("LayerNormV4", "layer_norm_v4"),
    ("A", "a"),
    ("IFMRCustom", "ifmr_custom"),
    ("X1Y2", "x1_y2"),
]


@pytest.mark.parametrize("op_type, expected", SNAKE_CASES)
def test_snake_name_matches_msopgen(op_type, expected):
    assert names.snake_name(op_type) == expected


@pytest.mark.parametrize(
    "name, expected",
    [
        ("x", "x"),
        ("negative_slope", "negativeSlope"),
        ("conv1_w", "conv1W"),
        ("X", "x"),
        ("keep_dims", "keepDims"),
        ("a_b_c", "aBC"),
        ("x_1", "x1"),
    ],
)
def test_aclnn_name_is_lower_camel(name, expected):
    assert names.aclnn_name(name) == expected


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("template", "C++ keyword"),
        ("class", "keyword in C++ and Python"),
        ("lambda", "Python keyword"),
        ("and", "keyword in C++ and Python"),
        ("tiling", "reserved"),
        ("workspace", "reserved"),
        ("_x", "start with a letter"),
        ("x_", "trailing"),
        ("a__b", "double underscore"),
        ("1x", "start with a letter"),
        ("x-y", "letters, digits"),
    ],
)
def test_identifier_problems(name, fragment):
    assert fragment in names.identifier_problem(name)


@pytest.mark.parametrize("name", ["x", "gamma", "residual_in", "x1", "Input2"])
def test_good_identifiers(name):
    assert names.identifier_problem(name) is None
