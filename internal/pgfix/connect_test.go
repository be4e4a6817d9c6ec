package pgfix_test

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// A connection that fails says, on one line, which server, why, and what to
// check, and never shows the password.
func TestConnectErrorsSayWhatToCheck(t *testing.T) {
	ctx := context.Background()
	good, err := url.Parse(pgtest.FreshDB(t))
	if err != nil {
		t.Fatal(err)
	}
	wrongPassword := *good
	wrongPassword.User = url.UserPassword(good.User.Username(), "not-the-password")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	unreachable := "postgres://u:secret-pw@127.0.0.1:" + strconv.Itoa(closedPort) + "/db"

	for _, c := range []struct {
		url  string
		want []string
	}{
		{wrongPassword.String(), []string{"PostgreSQL at 127.0.0.1:" + good.Port() + " as " + good.User.Username() + " (database ", "refused the connection", "password authentication failed", "; check the user, password and database of the URL"}},
		{unreachable, []string{"cannot reach PostgreSQL at 127.0.0.1:" + strconv.Itoa(closedPort) + " as u (database db)", "connection refused", "; check that the server runs and the URL's host and port"}},
	} {
		_, err := pgfix.Open(ctx, c.url)
		if err == nil {
			t.Fatalf("%s: connected", c.url)
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("error lacks %q:\n%s", w, msg)
			}
		}
		if strings.Contains(msg, "\n") || strings.Contains(msg, "not-the-password") || strings.Contains(msg, "secret-pw") {
			t.Errorf("error is not one line without the password:\n%s", msg)
		}
	}
}
