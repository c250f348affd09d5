"""The compute compiler: a compute expression turned into Ascend C vector calls."""
