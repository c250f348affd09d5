"""The front end: read a prototype (msopgen's spellings too), check every rule, build the model."""
