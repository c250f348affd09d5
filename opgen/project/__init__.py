"""A generated project on disk: its manifest and pristine copies (.opgen/), merges, msopgen."""
