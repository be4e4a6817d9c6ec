package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// browser is headless Chromium driven over the DevTools protocol: one
// page, its console errors and uncaught exceptions collected.
type browser struct {
	t    *testing.T
	ws   *websocket.Conn
	mu   sync.Mutex
	next int
	wait map[int]chan cdpReply
	errs []string
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

var devtools = regexp.MustCompile(`DevTools listening on (ws://[^\s]+)`)

// startBrowser starts headless Chromium with no network but loopback and
// attaches to its first page.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := tool(t, "chromium", "chromium-browser", "google-chrome")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--hide-scrollbars",
		"--window-size=1300,1000", "--remote-debugging-port=0", "--remote-allow-origins=http://127.0.0.1", "about:blank")
	// Chromium starts helper processes: kill them all at the end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtools.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var browserWS string
	select {
	case browserWS = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not open its DevTools port within 30 s")
	}
	// The page's own socket, from the browser's target list.
	host := regexp.MustCompile(`ws://([^/]+)/`).FindStringSubmatch(browserWS)[1]
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + host + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
				return attach(t, tg.WebSocketDebuggerURL)
			}
		}
		if i > 50 {
			t.Fatalf("chromium lists no page: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func attach(t *testing.T, url string) *browser {
	t.Helper()
	cfg, err := websocket.NewConfig(url, "http://127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := websocket.DialConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws.MaxPayloadBytes = 64 << 20
	b := &browser{t: t, ws: ws, wait: map[int]chan cdpReply{}}
	t.Cleanup(func() { ws.Close() })
	go b.read()
	b.call("Runtime.enable", nil)
	b.call("Log.enable", nil)
	b.call("Page.enable", nil)
	return b
}

// read dispatches replies and keeps the console's errors.
func (b *browser) read() {
	for {
		var msg struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			return
		}
		b.mu.Lock()
		switch {
		case msg.ID != 0:
			if ch := b.wait[msg.ID]; ch != nil {
				ch <- msg.cdpReply
				delete(b.wait, msg.ID)
			}
		case msg.Method == "Runtime.exceptionThrown":
			b.errs = append(b.errs, "uncaught: "+string(msg.Params))
		case msg.Method == "Runtime.consoleAPICalled":
			var p struct{ Type string }
			json.Unmarshal(msg.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				b.errs = append(b.errs, "console: "+string(msg.Params))
			}
		case msg.Method == "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Text, URL string }
			}
			json.Unmarshal(msg.Params, &p)
			if p.Entry.Level == "error" {
				b.errs = append(b.errs, "log: "+p.Entry.Text+" "+p.Entry.URL)
			}
		}
		b.mu.Unlock()
	}
}

// call sends one command and waits for its reply.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	r, err := b.try(method, params)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

// try is call that returns the error.
func (b *browser) try(method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.wait[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := websocket.JSON.Send(b.ws, msg); err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no reply within 30 s", method)
	}
}

// loaded says whether the page's document has loaded and holds the
// element id; false while it navigates (its context may be gone).
func (b *browser) loaded(id string) bool {
	raw, err := b.try("Runtime.evaluate", map[string]any{"expression": `document.readyState==="complete"&&!!document.getElementById("` + id + `")`, "returnByValue": true})
	if err != nil {
		return false
	}
	var r struct {
		Result struct{ Value bool } `json:"result"`
	}
	json.Unmarshal(raw, &r)
	return r.Result.Value
}

// eval evaluates a JavaScript expression in the page and decodes its
// JSON-able value into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	raw := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.ExceptionDetails != nil {
		b.t.Fatalf("evaluate %s: %v %s", expr, err, r.ExceptionDetails)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		b.t.Fatalf("evaluate %s: %v (%s)", expr, err, r.Result.Value)
	}
}

// screenshot is a PNG of the page's first screen.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var r struct{ Data string }
	json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png"}), &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) == 0 {
		b.t.Fatalf("screenshot: %v", err)
	}
	return png
}

func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

func (b *browser) String() string { return fmt.Sprintf("browser(%d errors)", len(b.errors())) }
