"""tmkit check: what in a -fgnu-tm binary only write-through runtimes get right (redo-log hazards)."""
