"""Helpers of tests/test_generated_suite.py: generated projects rendered, built and tested."""
