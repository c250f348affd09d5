"""Helpers of the PyTorch package tests (test_torch_ext_data.py, test_torch_ext_render.py)."""
