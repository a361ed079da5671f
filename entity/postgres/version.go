package postgres

// DatabaseKind is "postgres".
func (s *pgStore) DatabaseKind() string { return "postgres" }

// ServerVersion is the server_version parameter the server sent at
// start-up on the set-up connection (pgconn's ParameterStatus), so reading
// it takes no connection from the pool.
func (s *pgStore) ServerVersion() string { return s.version }
