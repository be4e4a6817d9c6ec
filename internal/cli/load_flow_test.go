package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/load"
)

// stackbench load --flow FILE runs the flow and reports flows beside
// requests, in JSON and in text; a mix goes from --requests and --mix.
func TestLoadFlowAndMixFromTheCommandLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/login" {
			io.WriteString(w, `{"token":"t1"}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer t1" && r.URL.Path == "/me" {
			w.WriteHeader(401)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flow.json"), []byte(`{"name":"s","steps":[
		{"name":"login","method":"POST","path":"/login","capture":{"token":"body.token"}},
		{"name":"me","path":"/me","headers":{"Authorization":"Bearer ${token}"}}]}`), 0o644)
	code, out, errOut := loadMain(t, dir, "-c", "2", "-d", "300ms", "-o", "json", "--flow", "flow.json", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res load.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Flow == nil || res.Flow.Completed == 0 || res.Flow.Failed != 0 {
		t.Fatalf("flow %+v (%v)", res.Flow, err)
	}
	code, out, _ = loadMain(t, dir, "-c", "2", "-d", "300ms", "--flow", "flow.json", srv.URL)
	if code != 0 || !strings.Contains(out, "flow s of 2 steps") || !strings.Contains(out, "flows/s") {
		t.Errorf("text output:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"name":"s","steps":[{"name":"a","path":"/a/${id}"}]}`), 0o644)
	if code, _, errOut := loadMain(t, dir, "--flow", "bad.json", srv.URL); code != 2 || !strings.Contains(errOut, "${id} is not captured") {
		t.Errorf("a bad flow: exit %d, %s", code, errOut)
	}

	os.WriteFile(filepath.Join(dir, "mix.jsonl"), []byte(`{"path":"/a","route":"a"}`+"\n"+`{"path":"/b","route":"b"}`+"\n"), 0o644)
	code, out, errOut = loadMain(t, dir, "-c", "2", "-d", "300ms", "-o", "json", "--requests", "mix.jsonl", "--mix", "a=3,b=1", srv.URL)
	if code != 0 {
		t.Fatalf("mix: exit %d: %s", code, errOut)
	}
	res = load.Result{}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Routes) != 2 || res.Routes[0].Attempts < 2*res.Routes[1].Attempts {
		t.Errorf("mix routes %+v (%v)", res.Routes, err)
	}
}
