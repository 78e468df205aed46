"""Files pvtui reads (regular files only, never blocking, limited) and writes (exports, never over a report)."""
