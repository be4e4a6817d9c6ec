package pgfix

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connect opens a connection to url. Its error is one line that names the
// server, says why it refused (pgx's own repeats every address it tried,
// over several lines) and what to check; a cancelled ctx is returned as is.
func connect(ctx context.Context, url string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, url)
	if err == nil || ctx.Err() != nil {
		return conn, err
	}
	cfg, perr := pgx.ParseConfig(url)
	if perr != nil {
		return nil, fmt.Errorf("the database URL %s does not parse (%w); write postgres://user:password@host:5432/database", Redact(url), perr)
	}
	where := fmt.Sprintf("%s:%d as %s (database %s)", cfg.Host, cfg.Port, cfg.User, cfg.Database)
	var pgErr *pgconn.PgError
	var netErr *net.OpError
	switch {
	case errors.As(err, &pgErr):
		return nil, fmt.Errorf("PostgreSQL at %s refused the connection: %w; check the user, password and database of the URL", where, pgErr)
	case errors.As(err, &netErr):
		return nil, fmt.Errorf("cannot reach PostgreSQL at %s: %w; check that the server runs and the URL's host and port", where, netErr)
	}
	return nil, fmt.Errorf("cannot connect to PostgreSQL at %s: %w", where, err)
}

// URLHost returns the host a connection to url goes to (a name, an
// address, or a Unix socket directory), as pgx reads the URL or DSN.
func URLHost(url string) (string, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return "", fmt.Errorf("the database URL %s does not parse (%v); write postgres://user:password@host:5432/database", Redact(url), err)
	}
	for _, fb := range cfg.Fallbacks {
		if fb.Host != cfg.Host {
			return "", fmt.Errorf("the database URL %s names several hosts; name one", Redact(url))
		}
	}
	return cfg.Host, nil
}
