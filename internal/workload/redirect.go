package workload

import (
	"fmt"
	"net/http"
)

// RedirectNote describes a redirect answer that was not followed, for an
// error or a finding ("" for any other status).
func RedirectNote(status int, header http.Header) string {
	if status < 300 || status > 399 || header.Get("Location") == "" {
		return ""
	}
	return fmt.Sprintf(" (a redirect to %s, not followed: stackbench follows no redirect in setup steps and parity checks; list %d in expect to accept it)",
		truncate(header.Get("Location"), 200), status)
}
