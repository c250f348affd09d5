"""opgen: scaffold Ascend custom operators from a JSON prototype."""

__version__ = "0.1.0"
