package live

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// event is one server-sent event as a test reads it.
type event struct {
	Name, ID, Data string
}

// readEvents opens the event stream at url and sends its events on the
// returned channel until ctx ends or the stream closes.
func readEvents(t *testing.T, ctx context.Context, url string) <-chan event {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	out := make(chan event, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var ev event
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Name != "" {
					ev.Data = strings.Join(data, "\n")
					select {
					case out <- ev:
					case <-ctx.Done():
						return
					}
				}
				ev, data = event{}, nil
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return out
}

// waitFor reads events until one satisfies ok, failing after d.
func waitFor(t *testing.T, evs <-chan event, d time.Duration, what string, ok func(event) bool) event {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case ev, open := <-evs:
			if !open {
				t.Fatalf("the event stream closed before %s", what)
			}
			if ok(ev) {
				return ev
			}
		case <-timer.C:
			t.Fatalf("no event %s within %s", what, d)
		}
	}
}
