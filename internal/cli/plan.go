package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "plan", Short: "check stackbench.yaml and show what a run would do", Order: 55, Run: runPlan})
}

const planSynopsis = "[-f FILE] [--profile P] [--stacks a,b] [--cases c,d] [protocol flags] [--windows] [--known-hosts FILE] [-o text|json]"

func runPlan(ctx context.Context, args []string, env Env) error {
	pro := newPrologue("plan", planSynopsis, "comparison file", "output: text or json (the resolved plan)", env)
	overrides := overrideFlags(pro.fs)
	listWindows := pro.fs.Bool("windows", false, "list every window in run order")
	knownHosts := pro.fs.String("known-hosts", "", "known_hosts file the hosts' keys are checked against (default ~/.ssh/known_hosts)")
	if err := pro.parse(args); err != nil {
		return err
	}
	o, err := overrides()
	if err != nil {
		return err
	}
	var p *plan.Plan
	f, err := pro.comparison(func(f *plan.File) (err error) {
		p, err = resolvePlan(f, o)
		return err
	})
	if err != nil {
		return err
	}
	if pro.json() {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return err
		}
		if len(f.Hosts) > 0 {
			return checkHosts(ctx, io.Discard, f, remoteOptions(env, *knownHosts))
		}
		return nil
	}
	printPlan(env.Stdout, f, p)
	for _, w := range []string{undecidableWarning(p), shortWindowWarning(f, p)} {
		if w != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", w)
		}
	}
	if *listWindows {
		printWindows(env.Stdout, p)
	}
	if len(f.Hosts) > 0 {
		return checkHosts(ctx, env.Stdout, f, remoteOptions(env, *knownHosts))
	}
	return nil
}

// resolvePlan resolves the file with the overrides (a ConfigError is the
// caller's to report, see readComparison); a file without stacks is a
// usage error.
func resolvePlan(f *plan.File, o plan.Overrides) (*plan.Plan, error) {
	if len(f.Stacks) == 0 {
		return nil, usagef("%s has no stacks, only a process suite; run it with: stackbench process -f %s (and stackbench dx -f %s)", f.Name, f.Name, f.Name)
	}
	return f.Resolve(o)
}

// overrideFlags registers the flags that change the protocol (shared by
// plan and run) and returns a function that reads them after parsing.
// The protocol's settings come from plan.Settings, which parses and
// checks their values as the file's parser does.
func overrideFlags(fs *flag.FlagSet) func() (plan.Overrides, error) {
	var o plan.Overrides
	fs.StringVar(&o.Profile, "profile", "", "protocol profile: quick, standard or full (default: the file's)")
	stacks := stacksFlag(fs, "run only these stacks")
	cases := fs.String("cases", "", "run only these cases, comma-separated, in this order")
	settings := map[string]*settingFlag{}
	for _, s := range plan.Settings {
		if s.Flag != "" {
			settings[s.Flag] = &settingFlag{boolean: s.Type == plan.Switch, arg: s.ArgName()}
			fs.Var(settings[s.Flag], s.Flag, s.Meaning)
		}
	}
	noLatency := fs.Bool("no-latency", false, "leave out the file's latency windows (explain's one round has no latency cell)")
	placement := fs.String("placement", "", "where the generator, the server and the database run: shared, lanes (CPUs of their own), auto (lanes with 8 CPUs or more), or lanes:server=0-3:database=4-5:generator=6-7")
	return func() (plan.Overrides, error) {
		for _, s := range plan.Settings {
			f := settings[s.Flag]
			if f == nil || !f.set {
				continue
			}
			if err := s.Set(&o, f.raw); err != nil {
				return o, usagef("--%s %v; run with -h for the flags", s.Flag, err)
			}
		}
		o.Stacks, o.Cases = []string(*stacks), commaList(*cases)
		o.NoLatency = *noLatency
		placementSet := false
		fs.Visit(func(f *flag.Flag) { placementSet = placementSet || f.Name == "placement" })
		if placementSet {
			spec, err := plan.ParsePlacementFlag(*placement)
			if err != nil {
				return o, usagef("%v", err)
			}
			o.Placement = spec
		}
		return o, nil
	}
}

// settingFlag holds a protocol setting's flag as written, for
// plan.Setting.Set to read once every flag is parsed.
type settingFlag struct {
	arg     string // the value's name in the help
	raw     string
	set     bool
	boolean bool
}

func (f *settingFlag) String() string     { return f.raw }
func (f *settingFlag) Set(s string) error { f.raw, f.set = s, true; return nil }

// IsBoolFlag lets an on/off setting's flag stand alone (--spread).
func (f *settingFlag) IsBoolFlag() bool { return f.boolean }

// commaList splits a comma-separated flag value, dropping empty items.
func commaList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func printPlan(w io.Writer, f *plan.File, p *plan.Plan) {
	pr := p.Protocol
	fmt.Fprintf(w, "%s is valid.\n\n", f.Name)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	db := "none needed"
	if p.NeedsDatabase {
		db = pgfix.Redact(p.Database)
	}
	fmt.Fprintf(tw, "workload\t%s (%d cases; database: %s)\n", p.WorkloadName, len(f.Workload.Cases), db)
	fmt.Fprintf(tw, "profile\t%s\n", pr.Profile)
	fmt.Fprintf(tw, "cases\t%s\n", strings.Join(pr.Cases, ", "))
	for _, c := range p.Cases {
		if c.IsMix() {
			fmt.Fprintf(tw, "mix\t%s\n", mixText(c))
		}
		if c.IsFlow() {
			steps := make([]string, len(c.Flow.Steps))
			for i, st := range c.Flow.Steps {
				steps[i] = st.Name
			}
			fmt.Fprintf(tw, "flow\t%s = %s: each connection one user running it again and again (closed loop)\n", c.Name, strings.Join(steps, " → "))
		}
	}
	fmt.Fprintf(tw, "concurrency\t%s\n", intList(pr.Concurrency))
	fmt.Fprintf(tw, "windows\twarm-up %s, window %s, timeout %s\n", plan.WarmupText(pr), pr.Window, pr.Timeout)
	layout, design := analysis.LayoutOf(pr)
	alpha := stats.DefaultAlpha
	if pr.Adaptive {
		looks, levels := analysis.Looks(p, alpha)
		alpha = levels[len(levels)-1]
		fmt.Fprintf(tw, "rounds\tauto: %d to %d, a fresh process per %s; extra rounds measure only the cells of steps undecided at the last look%s\n",
			pr.Rounds, pr.LastRound(), pr.Fresh, budgetNote(pr))
		if len(looks) > 0 {
			if len(looks) == 1 {
				fmt.Fprintf(tw, "looks\tone, after round %d, at α=%.4g (no earlier round could select a call of the family, or one would come past half the rounds)\n", looks[0], alpha)
			} else {
				fmt.Fprintf(tw, "looks\t%s\n", looksLine(looks, levels))
			}
			fmt.Fprintf(tw, "false calls\t%s\n", familyLine(p))
		} else {
			fmt.Fprintf(tw, "looks\tnone can decide a step (see the warning)\n")
		}
	} else {
		fmt.Fprintf(tw, "rounds\t%d, a fresh process per %s%s\n", pr.Rounds, pr.Fresh, roundsNote(design, pr.Rounds))
	}
	fmt.Fprintf(tw, "layout\t%s\n", describeLayout(layout))
	fmt.Fprintf(tw, "gate\t%s\n", describeGate(pr.Gate))
	fmt.Fprintf(tw, "boot suite\t%s\n", describeBoot(pr.BootStarts))
	requests := "fixed (as the published runs)"
	if pr.Spread {
		requests = "spread over all users"
	}
	if v := plannedVariants(f, p); v != "" {
		requests = v
	}
	fmt.Fprintf(tw, "requests\t%s\n", requests)
	fmt.Fprintf(tw, "placement\t%s\n", describePlacement(pr.Placement, p.ExternalDatabase()))
	if l := pr.Latency; l != nil {
		when := fmt.Sprintf("after each cell's window from round %d", pr.LatencyFirstRound())
		if pr.LatencyRoundOne {
			when = fmt.Sprintf("after each cell's window from round %d (round %d's at its end, once the closed-loop windows of %s fix the rate)",
				pr.LatencyFirstRound(), pr.LatencyFirstRound(), analysis.RoundsUpTo(pr.RateRounds()))
		}
		fmt.Fprintf(tw, "latency\t%s, an open-loop window at %s on the same process (%s); steps get its p50, p99 and CPU cost per request (a rise is a loss)\n",
			when, l.Describe(), countNoun(p.LatencyWindows(p.Windows), "latency window"))
		if pr.ClosedLoop == plan.ClosedLoopFirst {
			fmt.Fprintf(tw, "closed loop\t%s only (closed_loop: first, as the run calls only latency-window metrics): their windows fix the rate and give the report its throughput, without an interval; from round %d each cell's round is its latency window alone, after a warm-up of twice the floor at the rate; --closed-loop every keeps them in every round\n",
				analysis.RoundsUpTo(pr.RateRounds()), pr.RateRounds()+1)
		}
	}
	if len(pr.Calls) > 0 {
		fmt.Fprintf(tw, "called\t%s, the headline %s; the run's other metrics are shown with their intervals, not called\n", strings.Join(pr.Calls, ", "), pr.Headline())
	}
	fmt.Fprintf(tw, "calls\tgain / loss when the %.4g%% interval excludes 0 (\"at least\" past ±%g%%, \"small\" within); same when the %.4g%% interval lies within ±%g%% (two one-sided tests at α=%.4g, log scale)\n", 100*(1-alpha), 100*pr.MinEffect, 100*(1-stats.SameLevel(alpha)), 100*pr.MinEffect, alpha)
	tw.Flush()
	fmt.Fprintf(w, "\nstacks, in file order:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, s := range p.Stacks {
		build := s.Build
		if build == "" {
			build = "-"
		}
		start := s.Start
		if c := s.Container; c != nil {
			if c.Build != "" {
				build = strings.TrimPrefix(build+" && ", "- && ") + "image " + c.Image + " from " + displayDir(f.Path, c.Build)
			}
			start = strings.TrimSpace("container " + c.Image + " (" + runtimeName(c.Runtime) + ", host network, measured through its cgroup) " + s.Start)
		}
		dir := displayDir(f.Path, s.Dir)
		if g := s.Git; g != nil {
			// The commit the revision names now is what the run builds.
			dir = fmt.Sprintf("git %s = %s", g.Rev, shortCommit(g.Commit))
			if g.Subdir != "" && g.Subdir != "." {
				dir += ", " + g.Subdir
			}
		}
		if wire := wireText(s.Wire); wire != "" {
			start += "  wire: " + wire
		}
		fmt.Fprintf(tw, "  %d. %s\t%s\tbuild: %s\tstart: %s\n", i+1, s.Name, dir, build, start)
	}
	tw.Flush()
	if len(p.Stacks) > 1 {
		fmt.Fprintf(w, "\nsteps, a tree from %s (each step changes one layer; from: in the file):\n", p.Stacks[0].Name)
		printStepTree(w, p.Stacks)
	}
	processes := 0
	for _, w := range p.Windows {
		processes = max(processes, w.Process+1)
	}
	printCapacity(w, p)
	printPlanThresholds(w, p)
	fmt.Fprintf(w, "\n%s in %s; about %s (boot suite %s, windows %s%s), after builds and the parity gate\n",
		countNoun(len(p.Windows), "window"), countNoun(processes, "server process"), roundEstimate(p.Estimate()), roundEstimate(p.EstimateBoot()),
		roundEstimate(p.EstimateWindows(p.Windows)), capacityEstimate(p)+profilingEstimate(p))
	fmt.Fprintf(w, "fingerprint %s\n", p.Fingerprint)
}

// shortCommit is a commit's first 12 hex digits, as git log shows enough
// of it to be unique in any repository of this size.
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// describePlacement is the plan's placement line, with what it cannot do.
func describePlacement(pl plan.Placement, externalDatabase bool) string {
	text := pl.String()
	if !pl.IsLanes() {
		text += fmt.Sprintf(": every process on every CPU (lanes, with CPUs of their own for the generator, the server and the database, are the default from %d CPUs; --placement lanes)", plan.LanesFromCPUs)
	}
	for _, n := range pl.Notes(externalDatabase) {
		text += "; " + strings.TrimPrefix(n, "placement lanes: ")
	}
	return text
}

// printStepTree draws the steps as a tree from the first stack: each
// stack under the stack it steps from (its From, else the previous one).
func printStepTree(w io.Writer, stacks []plan.Stack) {
	children := map[string][]string{}
	for i, s := range stacks[1:] {
		from := s.From
		if from == "" {
			from = stacks[i].Name
		}
		children[from] = append(children[from], s.Name)
	}
	var walk func(name, indent string, last bool, root bool)
	walk = func(name, indent string, last, root bool) {
		switch {
		case root:
			fmt.Fprintf(w, "  %s\n", name)
			indent = "  "
		case last:
			fmt.Fprintf(w, "%s└─ %s\n", indent, name)
			indent += "   "
		default:
			fmt.Fprintf(w, "%s├─ %s\n", indent, name)
			indent += "│  "
		}
		kids := children[name]
		for i, k := range kids {
			walk(k, indent, i == len(kids)-1, false)
		}
	}
	walk(stacks[0].Name, "", true, true)
}

func printWindows(w io.Writer, p *plan.Plan) {
	fmt.Fprintf(w, "\nwindows, in run order (* starts a fresh process, + resets the orders table):\n")
	for _, win := range p.Windows {
		mark := " "
		if win.NewProcess {
			mark = "*"
		}
		reset := " "
		if win.Inserts {
			reset = "+"
		}
		fmt.Fprintf(w, "  %4d %s%s %s\n", win.Index+1, mark, reset, win.Key)
	}
}

// familyLine says how the plan controls false calls.
func familyLine(p *plan.Plan) string {
	if p.Protocol.CallFamily() == plan.FamilyStep {
		return "family step: each call on its own at its look's α (an unchanged run with many calls can show a false gain or loss)"
	}
	return fmt.Sprintf("family run: over the run's %d calls at once (Benjamini–Hochberg at each look's α; a called gain or loss shows its interval at the adjusted level)", analysis.FamilyCalls(p))
}

// roundsNote says what a number of rounds keeps the report from saying:
// each cell gets one window per round (see docs/config.md, "Rounds").
// roundsNote warns when fixed rounds are too few for any finite interval
// at α = 0.05 under the design.
func roundsNote(d stats.Design, rounds int) string {
	if d.MinLevel(rounds) <= stats.DefaultAlpha {
		return ""
	}
	need := rounds + 1
	for d.MinLevel(need) > stats.DefaultAlpha {
		need++
	}
	what := countNoun(rounds, "window") + " a side"
	if d == stats.Paired {
		what = countNoun(rounds, "pair") + " of windows (interleaved rounds compare round by round)"
	}
	same := "so every call is undecided"
	if d.MinLevel(rounds) <= stats.SameLevel(stats.DefaultAlpha) {
		same = "so no step can be a gain or a loss, only same (its 90% interval is finite)"
	}
	return fmt.Sprintf(" (with %s no step's 95%% interval is finite, %s; %d or more can decide a change)", what, same, need)
}

// undecidableWarning says when no call of the plan could be selected as a
// gain or a loss: an adaptive run that would stop before any look could
// decide a step (its budget affords too few rounds for the design), and
// what budget would let it; or a fixed number of rounds whose smallest
// attainable p-value is above the family's first threshold (α ÷ its calls
// under family run), and the rounds that would allow one. "" otherwise.
func undecidableWarning(p *plan.Plan) string {
	pr := p.Protocol
	_, d := analysis.LayoutOf(pr)
	if !pr.Adaptive {
		return fixedRoundsWarning(p, d)
	}
	decidable := func(last int) bool {
		q := *p
		q.Protocol.MaxRounds, q.Protocol.BudgetRounds = last, 0
		looks, _ := analysis.Looks(&q, stats.DefaultAlpha)
		return len(looks) > 0
	}
	if decidable(pr.LastRound()) {
		return ""
	}
	need := 0
	for r := pr.LastRound() + 1; r <= max(pr.MaxRounds, 64); r++ {
		if decidable(r) {
			need = r
			break
		}
	}
	if need == 0 || need > pr.MaxRounds {
		return fmt.Sprintf("rounds: auto from %d to %d can call no gain or loss (%s steps, false calls controlled over %d calls): every change would be undecided; raise max_rounds", pr.Rounds, pr.LastRound(), d, analysis.FamilyCalls(p))
	}
	budget := (time.Duration(need) * p.RoundEstimate()).Round(time.Minute) + time.Minute
	return fmt.Sprintf("the budget of %s affords %d rounds by the plan's estimate, and no gain or loss can be called before round %d (%s steps, α split over the looks and controlled over %d calls): every change would be undecided; give --budget %s or more (budget: in the protocol; more rounds narrow the intervals), or run fewer stacks or cases",
		pr.Budget, pr.LastRound(), need, d, analysis.FamilyCalls(p), budget)
}

// fixedRoundsWarning is undecidableWarning for a fixed number of rounds:
// with n rounds the smallest p-value the design can reach is
// d.MinLevel(n) (2 ÷ 2ⁿ for pairs), and under family run a lone effect
// among m calls is selected only at α ÷ m (k effects together at k·α ÷ m).
func fixedRoundsWarning(p *plan.Plan, d stats.Design) string {
	pr := p.Protocol
	m := analysis.FamilyCalls(p)
	first := stats.DefaultAlpha / float64(m)
	// The calls' windows may start late (latency windows at a share of
	// round 1's throughput): n rounds give them n − lag pairs.
	lag := analysis.CallsLag(pr)
	minLevel := func(n int) float64 {
		if n-lag < 1 {
			return 1
		}
		return d.MinLevel(n - lag)
	}
	if pr.Rounds < 1 || minLevel(pr.Rounds) <= first {
		return ""
	}
	need := pr.Rounds + 1
	for minLevel(need) > first {
		need++
	}
	if m == 1 {
		return fmt.Sprintf("profile %s with %s (%s steps) can call no gain or loss: the smallest p-value they reach is %.2g, above α = %g; every change would be undecided. %d rounds would allow one (--rounds %d)",
			pr.Profile, countNoun(pr.Rounds, "round"), d, minLevel(pr.Rounds), stats.DefaultAlpha, need, need)
	}
	together := "none can be called at all"
	for k := 2; k <= m; k++ {
		if minLevel(pr.Rounds) <= float64(k)*first {
			together = fmt.Sprintf("only %d or more of them moving together can be called", k)
			break
		}
	}
	return fmt.Sprintf("profile %s with %s (%s steps) can call no lone gain or loss: the smallest p-value they reach is %.2g, and with false calls controlled over the run's %d calls a lone one is selected only at p ≤ α ÷ %d = %.2g (%s). %d rounds would allow one (--rounds %d), or fewer cases, stacks or concurrencies shrink the family",
		pr.Profile, countNoun(pr.Rounds, "round"), d, minLevel(pr.Rounds), m, m, first, together, need, need)
}

// budgetNote says what bounds an adaptive run's rounds.
func budgetNote(pr plan.Protocol) string {
	if pr.BudgetRounds > 0 && pr.BudgetRounds < pr.MaxRounds {
		return fmt.Sprintf("; the budget of %s for the windows affords %d whole rounds by the estimate below, so the run stops there (max_rounds %d)", pr.Budget, pr.LastRound(), pr.MaxRounds)
	}
	return fmt.Sprintf(", within a budget of %s for the windows", pr.Budget)
}

// describeLayout says how a round orders its windows and what that means
// for the calls.
func describeLayout(layout string) string {
	if layout == plan.LayoutInterleaved {
		return "interleaved: in each round the stacks take turns case by case in a balanced (Williams) order, each stack's process of the round up from its first window to its last; steps compare the two stacks round by round (paired)"
	}
	return "grouped: each stack serves all its cases in a row; steps compare the two stacks' windows as independent samples"
}

func describeGate(g plan.Gate) string {
	switch g.Mode {
	case plan.GateOff:
		return "off (windows are not checked for a busy host)"
	case plan.GateCores:
		return fmt.Sprintf("%.2f cores of foreign CPU, %d retries, wait up to %s", g.Cores, g.Retries, g.Wait)
	}
	return fmt.Sprintf("auto (host at rest + %.2f core, at most %.2f on this host), %d retries, wait up to %s", host.DefaultGateMarginCores, host.BusyCores(runtime.NumCPU()), g.Retries, g.Wait)
}

func describeBoot(n int) string {
	if n == 0 {
		return "skipped"
	}
	return fmt.Sprintf("%d cold starts per stack", n)
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// displayDir shows a stack's dir relative to the comparison file when inside it.
func displayDir(file, dir string) string {
	rel, err := filepath.Rel(filepath.Dir(file), dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return dir
	}
	return rel
}

// roundEstimate rounds to the second, or to the minute above ten minutes.
func roundEstimate(d time.Duration) time.Duration {
	if d > 10*time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// countNoun writes n and a noun, with an -s or -es when n is not one.
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// runtimeName is a container's runtime as the plan shows it.
func runtimeName(r string) string {
	if r == "" {
		return "docker or podman, whichever is installed"
	}
	return r
}

// printPlanThresholds lists each case's thresholds, as --fail-on threshold
// will judge them.
func printPlanThresholds(w io.Writer, p *plan.Plan) {
	if len(p.Thresholds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthresholds, per stack and concurrency (gate them with --fail-on threshold):\n")
	for _, ct := range p.Thresholds {
		t := ct.Thresholds
		var parts []string
		for _, l := range []struct {
			name string
			d    time.Duration
		}{{"p50", t.P50}, {"p90", t.P90}, {"p99", t.P99}, {"p999", t.P999}} {
			if l.d > 0 {
				parts = append(parts, fmt.Sprintf("%s ≤ %s", l.name, l.d))
			}
		}
		if t.ErrorRate != nil {
			parts = append(parts, fmt.Sprintf("error rate ≤ %g %%", 100**t.ErrorRate))
		}
		if t.ThroughputRPS > 0 {
			parts = append(parts, fmt.Sprintf("throughput ≥ %g req/s", t.ThroughputRPS))
		}
		fmt.Fprintf(w, "  %s: %s\n", ct.Name(), strings.Join(parts, ", "))
	}
}

// plannedVariants says how many requests each planned case cycles over,
// when a custom workload has templated cases ("article: 200 variants, me:
// 1 request"); "" otherwise.
func plannedVariants(f *plan.File, p *plan.Plan) string {
	if f.Scenario == nil || len(f.Scenario.Cases) == 0 {
		return ""
	}
	var parts []string
	for _, c := range p.Cases {
		n, exact, err := f.Scenario.Planned(c)
		switch {
		case err != nil:
			parts = append(parts, fmt.Sprintf("%s: %v", c.Name, err))
		case n == 1:
			parts = append(parts, c.Name+": 1 request")
		case exact:
			parts = append(parts, fmt.Sprintf("%s: %d variants", c.Name, n))
		default:
			parts = append(parts, fmt.Sprintf("%s: %d variants or more (a capture that finds a JSON array is a list)", c.Name, n))
		}
	}
	return strings.Join(parts, ", ")
}

// wireText describes a stack's wire for the plan ("" for HTTP/1.1 in
// cleartext): "grpc over TLS, 4 streams a connection, proto saas.proto".
func wireText(w plan.Wire) string {
	if w == (plan.Wire{}) {
		return ""
	}
	out := w.ProtocolOf()
	if w.TLS {
		out += " over TLS"
	}
	if w.Streams > 1 {
		out += fmt.Sprintf(", %d streams a connection", w.Streams)
	}
	if w.Proto == plan.ProtoReflect {
		out += ", descriptors by server reflection"
	} else if w.Proto != "" {
		out += ", proto " + w.Proto
	}
	return out
}

// mixText describes a mix case: "storefront = user 60, list 30,
// create-order 10 (seed 123), one sequence for every stack".
func mixText(c workload.Case) string {
	parts := make([]string, len(c.Mix))
	for i, m := range c.Mix {
		parts[i] = fmt.Sprintf("%s %d", m.Case, m.Weight)
	}
	return fmt.Sprintf("%s = %s (seed %d): one interleaving for every stack and run; each route measured apart", c.Name, strings.Join(parts, ", "), c.MixSeed)
}

// looksLine names each look of an adaptive plan and its level.
func looksLine(looks []int, levels []float64) string {
	parts := make([]string, len(looks))
	for i, n := range looks {
		parts[i] = fmt.Sprintf("%d (α=%.4g)", n, levels[min(i, len(levels)-1)])
	}
	if len(levels) > 1 && levels[0] == levels[len(levels)-1] {
		return fmt.Sprintf("after rounds %s (α=%g split equally over the looks)", strings.Join(parts, ", "), stats.DefaultAlpha)
	}
	return fmt.Sprintf("after rounds %s: the last keeps %g%% of α=%g, the earlier ones share the rest and stop only what is plain early", strings.Join(parts, ", "), 100*stats.FinalShare, stats.DefaultAlpha)
}
