"""Helpers of the PyTorch package tests (test_torch_side.py, test_torch_ext_render.py)."""
