package accesslog

import (
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	cases := []struct {
		line string
		want Entry
		err  string
	}{
		{`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`, Entry{"GET", "/apache_pb.gif", 200}, ""},
		{`::1 - - [10/Oct/2000:13:55:36 -0700] "post /orders?x=1 HTTP/1.1" 201 12 "https://ref/" "curl/8"`, Entry{"POST", "/orders?x=1", 201}, ""},
		{`1.2.3.4 - - [t] "GET http://example.com/a/b?c HTTP/1.1" 404 0`, Entry{"GET", "/a/b?c", 404}, ""},
		{`{"method":"GET","path":"/users/7","status":200}`, Entry{"GET", "/users/7", 200}, ""},
		{`{"method":"delete","uri":"/users/7","status":"503","ts":1}`, Entry{"DELETE", "/users/7", 503}, ""},
		{`{"method":"GET","status":200}`, Entry{}, "needs method, path and status"},
		{`{"method":"GET","path":"users","status":200}`, Entry{}, "not a path"},
		{`1.2.3.4 - - [t] "-" 400 0`, Entry{}, "neither"},
		{`hello`, Entry{}, "neither"},
	}
	for _, c := range cases {
		got, err := ParseLine([]byte(c.line))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.line, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %+v, %v; want %+v", c.line, got, err, c.want)
		}
	}
}

// Ids become templates over the ids seen; a line too long is skipped and
// counted, not an error; routes come most requested first.
func TestSummarize(t *testing.T) {
	log := strings.Join([]string{
		`{"method":"GET","path":"/users/12","status":200}`,
		`{"method":"GET","path":"/users/3?full=1","status":200}`,
		`{"method":"GET","path":"/users/40?full=1","status":404}`,
		`{"method":"GET","path":"/a/${x}","status":200}`,
		"",
		`{"method":"GET","path":"/` + strings.Repeat("x", MaxLineBytes) + `","status":200}`,
	}, "\n")
	s, err := Summarize(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 5 || s.Skipped != 1 || s.FirstSkipped != 6 || len(s.Routes) != 2 {
		t.Fatalf("lines %d, skipped %d (first %d), routes %+v", s.Lines, s.Skipped, s.FirstSkipped, s.Routes)
	}
	users := s.Routes[0]
	if users.Count != 3 || users.Template() != "/users/${rand:3..40}?full=1" || users.Expect() != 200 || users.StatusText() != "200 ×2, 404 ×1" {
		t.Errorf("users: %d, %q, expect %d, %s", users.Count, users.Template(), users.Expect(), users.StatusText())
	}
	if got := s.Routes[1].Template(); got != "/a/$${x}" {
		t.Errorf("a literal ${ is %q, want it escaped", got)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a?b=1 HTTP/1.0" 200 2326 "-" "ua"`))
	f.Add([]byte(`{"method":"GET","path":"/users/7","status":200}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseLine(line)
		if err != nil {
			return
		}
		if !strings.HasPrefix(e.Target, "/") || strings.ContainsAny(e.Target, " \r\n\t") || e.Status < 100 || e.Status > 599 || e.Method == "" {
			t.Errorf("accepted %q as %+v", line, e)
		}
		if strings.ContainsAny(string(line), "\r\n") || len(line) > MaxLineBytes {
			return // more than one line for Summarize
		}
		s, err := Summarize(strings.NewReader(string(line)))
		if err != nil || len(s.Routes) != 1 {
			t.Errorf("a line that parses makes routes %+v, %v", s, err)
		}
	})
}
