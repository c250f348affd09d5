"""Rendering: copier renders templates/ with the planners' data."""
