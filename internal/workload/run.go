package workload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"time"
)

// RunOptions configures RunChecks.
type RunOptions struct {
	// Stack names the stack in the result.
	Stack string
	// Secret is the JWT_SECRET the stack was given; "" is DefaultJWTSecret.
	Secret string
	// DatabaseURL is the stack's database. The order checks read it to see
	// that orders are stored (and that rejected ones are not); without it
	// they fail.
	DatabaseURL string
	// HealthPath is probed when a request gets no answer, to tell a stack
	// that stopped answering from one bad route; "" is "/health".
	HealthPath string
	// RequestTimeout bounds each request; 0 is 30 s (the largest cpu check
	// takes a second or more on a loaded machine).
	RequestTimeout time.Duration
	// Requests, by case, replaces a custom case's request as written: the
	// first variant of a templated case, expanded with the stack's setup
	// captures (internal/scenario).
	Requests map[string]Request
	// Protocol is how the stack is reached ("" or "http1", "h2", "h2c",
	// "grpc"), and CA, when set, the certificates (PEM) its TLS
	// certificate chains to: baseURL is then https.
	Protocol string
	CA       []byte
	// GRPC, set for a stack that speaks gRPC, makes each check the case's
	// gRPC call (Check.GRPC); cases without one are not checked there.
	GRPC *GRPCOptions
	// Calls, by case, replaces a gRPC request as written: the first
	// variant of a templated message and metadata.
	Calls map[string]GRPCCall
	// TFBRelax names tfb rules (TFBRules) relaxed for this stack besides
	// TFBRelaxedByDefault: an answer that breaks only them passes, and
	// the check lists them in CheckResult.Relaxed.
	TFBRelax []string
}

// maxBodyBytes is how much of a response body a check reads.
const maxBodyBytes = 4 << 20

// RunChecks runs every check of workload w, in order, against the stack
// answering at baseURL (e.g. "http://127.0.0.1:8080"). A failed check is
// data in the result, not an error. When a request gets no answer and the
// health path does not answer either, the stack has stopped: the remaining
// checks are counted as not run and Error says where it stopped.
func RunChecks(ctx context.Context, w *Workload, baseURL string, opt RunOptions) StackResult {
	if opt.Secret == "" {
		opt.Secret = DefaultJWTSecret
	}
	if opt.HealthPath == "" {
		opt.HealthPath = "/health"
		if w.Health != "" {
			opt.HealthPath = w.Health
		}
	}
	if opt.RequestTimeout == 0 {
		opt.RequestTimeout = 30 * time.Second
	}
	res := StackResult{Stack: opt.Stack, Workload: w.Name}
	// A redirect is a finding, not followed (it could carry the check's
	// headers and body to another host).
	client, err := WireClient(opt.Protocol, opt.CA, opt.RequestTimeout)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r := runner{ctx: ctx, base: baseURL, opt: opt, start: time.Now(), client: client}
	defer r.client.CloseIdleConnections()
	defer r.closeDB()
	checks := checksWith(w, opt.Secret, opt.Requests)
	checks = wireChecks(checks, opt.GRPC != nil, opt.Calls)
	if len(checks) == 0 && (opt.GRPC != nil || !slices.ContainsFunc(w.Cases, Case.IsFlow)) {
		res.Error = "no case of workload " + w.Name + " has a request this stack can be sent (a gRPC stack needs the cases' grpc:, another stack their path:)"
		return res
	}
	// Only the built-in order checks know which answers created an order; a
	// custom workload's inserting case is not held to the orders table.
	countOrders := slices.ContainsFunc(checks, func(c Check) bool { return c.Expect.Order != nil })
	if countOrders {
		r.ordersBefore, r.ordersErr = r.countOrders()
	}
	for i, c := range checks {
		if ctx.Err() != nil {
			res.NotRun = len(checks) - i
			res.Error = "cancelled: " + ctx.Err().Error()
			return res
		}
		cr := r.run(c)
		res.Checks = append(res.Checks, cr)
		if cr.Status == 0 && !r.answers() {
			res.NotRun = len(checks) - i - 1
			res.Error = fmt.Sprintf("stopped answering at check %s (%s), and %s does not answer either", c.Name, cr.Problem, opt.HealthPath)
			return res
		}
	}
	if opt.GRPC == nil {
		for _, c := range w.Cases {
			if c.IsFlow() {
				res.Checks = append(res.Checks, r.runFlow(c)...)
			}
		}
	}
	if countOrders {
		res.Checks = append(res.Checks, r.storedOrdersCheck())
	}
	return res
}

// runner is the state of one RunChecks call.
type runner struct {
	ctx    context.Context
	base   string
	opt    RunOptions
	client *http.Client
	start  time.Time
	db     *orderDB
	// ordersBefore is the orders table's row count before the checks;
	// created counts the 201 answers to the order case's checks, wanted or
	// not (an invalid order accepted is created too).
	ordersBefore int64
	ordersErr    error
	created      int64
	// statementsErr is why the statements of the current tfb check
	// could not be reset (and so cannot be counted).
	statementsErr error
}

func (r *runner) run(c Check) CheckResult {
	cr := CheckResult{Check: c.Name, Case: c.Case, Sent: c.Sent(findingBodyBytes),
		Expected: c.Expect.Expected(findingBodyBytes), Success: c.Expect.Success()}
	if c.GRPC != nil {
		success := http.StatusOK
		if cr.Success {
			success = c.Expect.Status[0]
		}
		a, err := r.callGRPC(c, success)
		if err != nil {
			cr.Got = "no answer"
			cr.Problem = "no answer: " + err.Error()
			return cr
		}
		cr.Status, cr.ContentType, cr.Body = a.status, a.contentType, a.body
		cr.Got = describeAnswer(cr.Status, cr.Body, findingBodyBytes)
	} else {
		if c.Expect.TFB != nil && c.Expect.TFB.Statements {
			r.statementsErr = r.resetTFBStatements()
		}
		resp, err := r.do(c.Method, c.Path, c.Header, c.Body)
		if err != nil {
			cr.Got = "no answer"
			cr.Problem = "no answer: " + err.Error()
			return cr
		}
		defer resp.Body.Close()
		cr.Status, cr.header = resp.StatusCode, resp.Header
		cr.ContentType = resp.Header.Get("Content-Type")
		cr.redirect = RedirectNote(resp.StatusCode, resp.Header)
		cr.wire = wireFacts{header: resp.Header, contentLength: resp.ContentLength,
			chunked: slices.Contains(resp.TransferEncoding, "chunked")}
		cr.Body, err = io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
		cr.Got = describeAnswer(cr.Status, cr.Body, findingBodyBytes)
		if err != nil {
			cr.Problem = "reading the body: " + err.Error()
			return cr
		}
	}
	var err error
	cr.compare, cr.ignore = c.Expect.Compare, c.Expect.Ignore
	if !c.Expect.Volatile && slices.Contains(c.Expect.Status, cr.Status) {
		cr.comparable, cr.ignored, err = normalize(c.Expect.Compare, c.Expect.Ignore, cr.Body)
		if err != nil && c.Expect.Success() {
			cr.Problem = err.Error()
			return cr
		}
	}
	if c.Case == "order" && cr.Status == http.StatusCreated {
		r.created++
	}
	cr.Problem = r.judge(c.Expect, &cr)
	return cr
}

func (r *runner) do(method, path string, header []Header, body []byte) (*http.Response, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(r.ctx, method, r.base+path, rd)
	if err != nil {
		return nil, err
	}
	for _, h := range header {
		req.Header.Set(h.Name, h.Value)
	}
	return r.client.Do(req)
}

// judge returns what is wrong with the answer, or "".
func (r *runner) judge(e Expect, cr *CheckResult) string {
	if !slices.Contains(e.Status, cr.Status) {
		return fmt.Sprintf("status %d, want %s%s", cr.Status, statusList(e.Status), cr.redirect)
	}
	if e.TFB != nil {
		return r.judgeTFB(*e.TFB, cr)
	}
	if e.Body == "" && e.Order == nil {
		return ""
	}
	if !isJSON(cr.ContentType) {
		return fmt.Sprintf("Content-Type %q, want application/json", cr.ContentType)
	}
	if e.Order != nil {
		return r.judgeOrder(*e.Order, cr)
	}
	if string(cr.Body) != e.Body {
		return "body differs: " + firstDifference(e.Body, string(cr.Body))
	}
	return ""
}

// answers reports whether the stack's health path still answers.
func (r *runner) answers() bool {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", r.base+r.opt.HealthPath, nil)
	if r.opt.GRPC != nil {
		// The health method, with an empty message.
		req, err = http.NewRequestWithContext(ctx, "POST", r.base+r.opt.HealthPath, bytes.NewReader([]byte{0, 0, 0, 0, 0}))
		if err == nil {
			req.Header.Set("Content-Type", "application/grpc")
			req.Header.Set("TE", "trailers")
		}
	}
	if err != nil {
		return false
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// diffContext is how many bytes around a difference firstDifference quotes.
const diffContext = 40

// firstDifference locates the first byte where got differs from want and
// quotes both around it.
func firstDifference(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-diffContext)
	excerpt := func(s string) string {
		to := min(len(s), i+diffContext)
		e := s[from:to]
		if from > 0 {
			e = "…" + e
		}
		if to < len(s) {
			e += "…"
		}
		return e
	}
	switch {
	case i == len(got):
		return fmt.Sprintf("the body ends at byte %d (%s), want it to go on: %s", i, excerpt(got), excerpt(want))
	case i == len(want):
		return fmt.Sprintf("the body goes on after byte %d: %s, want %s", i, excerpt(got), excerpt(want))
	}
	return fmt.Sprintf("at byte %d, want %s but got %s", i, excerpt(want), excerpt(got))
}
