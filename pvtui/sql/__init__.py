"""`pvtui sql`: read-only SQL over views of pvtui's own model (catalogue, views, guard, engine, output, shell)."""
