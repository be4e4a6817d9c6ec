package load

import (
	"testing"
)

type parseWant struct {
	status   int
	close    bool
	consumed int
	done     bool
	err      bool
}

// parseWhole feeds the response in pieces of size step (0 = at once) and
// then, if still incomplete, an EOF.
func parseWhole(resp []byte, head bool, step int) parseWant {
	var p respParser
	p.reset(head)
	total := 0
	for total < len(resp) {
		end := len(resp)
		if step > 0 && total+step < end {
			end = total + step
		}
		n, done, err := p.feed(resp[total:end])
		if err != nil {
			return parseWant{err: true}
		}
		if done {
			return parseWant{status: p.status, close: p.close, consumed: total + n, done: true}
		}
		if n != end-total {
			// An incomplete response must use every byte it is given.
			return parseWant{err: true, consumed: -1}
		}
		total = end
	}
	if p.feedEOF() {
		return parseWant{status: p.status, close: p.close, consumed: total, done: true}
	}
	return parseWant{consumed: total}
}

func TestParseResponses(t *testing.T) {
	cases := []struct {
		name   string
		resp   string
		head   bool
		status int
		close  bool
		extra  int  // bytes after the response, left unused
		fail   bool // the parser must report an error
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, 200, false, 0, false},
		{"extra bytes not used", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiXX", false, 200, false, 2, false},
		{"chunked", "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n\r\n", false, 201, false, 0, false},
		{"chunked trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n", false, 200, false, 0, false},
		{"connection close", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false, 503, true, 0, false},
		{"until close", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody until eof", false, 200, true, 0, false},
		{"http/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", false, 200, true, 0, false},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx", false, 200, false, 0, false},
		{"head has no body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", true, 200, false, 0, false},
		{"204 has no body", "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", false, 204, false, 0, false},
		{"interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", false, 200, false, 0, false},
		{"case-insensitive names", "HTTP/1.1 200 OK\r\ncontent-LENGTH:  3 \r\n\r\nabc", false, 200, false, 0, false},
		{"bad status line", "HTTX/1.1 200 OK\r\n\r\n", false, 0, false, 0, true},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", false, 0, false, 0, true},
		{"conflicting content-length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", false, 0, false, 0, true},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, 0, false, 0, true},
		{"header without colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", false, 0, false, 0, true},
	}
	for _, tc := range cases {
		for _, step := range []int{0, 1, 3, 7} {
			got := parseWhole([]byte(tc.resp), tc.head, step)
			if tc.fail {
				if !got.err {
					t.Errorf("%s (step %d): parsed as %+v, want an error", tc.name, step, got)
				}
				continue
			}
			want := parseWant{status: tc.status, close: tc.close, consumed: len(tc.resp) - tc.extra, done: true}
			if got != want {
				t.Errorf("%s (step %d): got %+v, want %+v", tc.name, step, got, want)
			}
		}
	}
}

func TestParseTruncatedBodyIsIncomplete(t *testing.T) {
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"
	if got := parseWhole([]byte(resp), false, 0); got.done || got.err || got.consumed != len(resp) {
		t.Errorf("truncated body: %+v, want incomplete with every byte used", got)
	}
}

func TestParserReuseAllocatesNothing(t *testing.T) {
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"ok\":true}\r\n")
	var p respParser
	allocs := testing.AllocsPerRun(1000, func() {
		p.reset(false)
		// Split inside the head so the stash path runs too.
		p.feed(resp[:20])
		if _, done, err := p.feed(resp[20:]); !done || err != nil {
			t.Fatalf("not parsed: %v", err)
		}
	})
	if allocs != 0 {
		t.Errorf("parsing allocates %v times per response, want 0", allocs)
	}
}

// FuzzParser checks that the parser never panics, and that where a
// response is split between reads changes nothing.
func FuzzParser(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.0 503 x\r\nConnection: close\r\n\r\nbye",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(7), false)
	}
	f.Fuzz(func(t *testing.T, resp []byte, split uint8, head bool) {
		whole := parseWhole(resp, head, 0)
		for _, step := range []int{1, int(split) + 1} {
			if got := parseWhole(resp, head, step); got != whole {
				t.Fatalf("split every %d bytes: %+v, at once: %+v", step, got, whole)
			}
		}
		if whole.done && (whole.status < 100 || whole.status > 999 || whole.consumed > len(resp)) {
			t.Fatalf("impossible result %+v for %d bytes", whole, len(resp))
		}
	})
}
