"""profile.pop as an SQLite database: `database` opens it through SQLite (read-only, immutable) and reads
its tables' integer columns in batches; `pages` is the page reader those batches come from where it can,
the b-tree's leaf pages decoded with numpy behind one boundary that yields columns or raises `Unreadable`.
"""
