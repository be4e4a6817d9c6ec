package load

import (
	"net/http"
	"testing"
	"time"
)

// A capture from a header names it as the server writes it
// ("header.Authorization"): the engine finds it in the response head
// whatever its case, and the next step carries it.
func TestFlowCapturesAHeaderByItsName(t *testing.T) {
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			w.Header().Set("Authorization", "Token tok-1")
		case "/me":
			if r.Header.Get("Authorization") != "Token tok-1" {
				w.WriteHeader(401)
			}
		}
	})
	for _, name := range []string{"Authorization", "authorization", "AUTHORIZATION"} {
		flow := &Flow{Name: "f", Steps: []FlowStep{
			{Name: "login", Method: "POST", Path: "/login", Capture: map[string]string{"auth": "header." + name}},
			{Name: "me", Path: "/me", Headers: map[string]string{"Authorization": "${auth}"}},
		}}
		res := runLoad(t, url, Config{Connections: 2, Duration: 100 * time.Millisecond, Flow: flow})
		if f := res.Flow; f == nil || f.Completed == 0 || f.Failed != 0 {
			t.Errorf("capture header.%s: flow %+v", name, f)
		}
	}
}
