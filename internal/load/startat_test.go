package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// StartAt holds the run's clock until the instant, after the connections
// are open: the window opens at it, not when Run was called.
func TestStartAt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	at := time.Now().Add(400 * time.Millisecond)
	res, err := Run(context.Background(), Config{URL: srv.URL, Connections: 1, Duration: 200 * time.Millisecond, Timeout: time.Second, StartAt: at})
	if err != nil {
		t.Fatal(err)
	}
	opened := time.Unix(0, res.MeasureStartUnixNano)
	if opened.Before(at) || opened.Sub(at) > 300*time.Millisecond || res.Successes == 0 {
		t.Fatalf("the window opened %s after the instant (%d successes); want at it", opened.Sub(at), res.Successes)
	}
}
