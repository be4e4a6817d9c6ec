package stack

import (
	"net/url"
)

// libpqEnv is DATABASE_URL as the variables libpq and the drivers that
// follow it read (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD,
// PGSSLMODE): a TechEmpower entry that leaves its connection's fields
// unset reaches the run's database copy through them. Nil when the URL
// does not parse.
func libpqEnv(databaseURL string) []string {
	u, err := url.Parse(databaseURL)
	if err != nil || u.Host == "" {
		return nil
	}
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add("PGHOST", u.Hostname())
	add("PGPORT", u.Port())
	if len(u.Path) > 1 {
		add("PGDATABASE", u.Path[1:])
	}
	if u.User != nil {
		add("PGUSER", u.User.Username())
		p, _ := u.User.Password()
		add("PGPASSWORD", p)
	}
	add("PGSSLMODE", u.Query().Get("sslmode"))
	return env
}
