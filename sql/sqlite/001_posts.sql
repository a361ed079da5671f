-- The board's posts. AUTOINCREMENT keeps numbers from being reused: after a
-- reset to n posts (sqlite_sequence = n), the next post is n+1.
CREATE TABLE IF NOT EXISTS posts (
    no         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL,
    message    TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
