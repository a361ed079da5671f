// Package pgsetup tells someone without a PostgreSQL server how to start
// one:
//
//	fmt.Fprint(stderr, pgsetup.Hint)
//
// Hint is what the board (cmd/bbs) and the experiment runner (loadtest)
// print when a PostgreSQL server cannot be reached; the steps themselves
// are in docs/postgres.md, and a test holds the two together.
package pgsetup

// Hint names the three ways to get a PostgreSQL server and where the steps
// are. It ends with a newline.
const Hint = `No PostgreSQL server answers. Start one (docs/postgres.md has the steps):
  Debian/Ubuntu:  sudo apt-get install postgresql && sudo pg_ctlcluster 15 main start
  macOS:          brew install postgresql@16 && brew services start postgresql@16
  container:      docker compose -f docs/postgres/compose.yaml up -d
                  (or: docker run -d --name bbs-postgres -p 127.0.0.1:5432:5432 -e POSTGRES_USER=bbs -e POSTGRES_PASSWORD=bbs -e POSTGRES_DB=test postgres:16)
then give the board its URL with BBS_DSN or -dsn (experiment files read BBS_PG_DSN), e.g.
  BBS_DSN='postgres://bbs:bbs@127.0.0.1:5432/test?sslmode=disable'
`
