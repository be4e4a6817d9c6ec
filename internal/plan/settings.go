package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one protocol setting as a file and a command line write it:
// its key in the protocol section (a dotted key is nested: gate.wait),
// its override flag, its type, its bounds and what it means. The file's
// parser, the override flags of plan and run, and Overrides.check all
// read a setting through Parse and Check, so a bad value gets the same
// words wherever it was written (TestSettingsSayTheSameInFileAndFlag, in
// internal/cli).
type Setting struct {
	// Key is the key under protocol: ("warmup_max", "gate.wait").
	Key string
	// Flag is the override flag without its dashes ("warmup-max"); empty
	// when only the file sets it.
	Flag string
	// Type says how a value is written.
	Type SettingType
	// Meaning says what the setting does: the flag's usage line.
	Meaning string
	// Example is a good value, as both places write it ("5s").
	Example string
	// Min is a Duration's shortest value; Low and High bound a Count, a
	// Rounds or a CountList (High 0: no upper bound).
	Min       time.Duration
	Low, High int
	// Advice follows the message of a Count out of its bounds.
	Advice string
	// Choices are a Choice's values and what each means.
	Choices []Choice

	// set stores a value Parse returned; get returns the value o holds
	// and whether o sets it.
	set func(o *Overrides, v any)
	get func(o Overrides) (any, bool)
}

// Choice is one value of a Choice setting.
type Choice struct {
	Value, Meaning string
}

// SettingType is how a setting's value is written.
type SettingType int

// The types of settings.
const (
	// Duration is a Go duration with a unit ("5s"), at least Min.
	Duration SettingType = iota
	// Count is a whole number from Low to High.
	Count
	// Rounds is a Count from Low, or auto.
	Rounds
	// CountList is whole numbers from Low to High, each once: a YAML
	// list or one number in the file, comma-separated on the command line.
	CountList
	// ChoiceOf is one of Choices.
	ChoiceOf
	// Fraction is a share strictly between 0 and 1: "5%" or 0.05.
	Fraction
	// Switch is on or off (true or false).
	Switch
	// GateThreshold is auto, off or a number of cores above 0.
	GateThreshold
	// RateOf is a latency rate: a share of the slowest stack's median
	// ("50%") or requests per second ("800").
	RateOf
	// ChoiceList is Choices, each at most once, in a chosen order: a YAML
	// list or one value in the file, comma-separated on the command line.
	ChoiceList
)

// SettingError is a bad value of a setting: Why says what is wrong and
// what to write instead, without naming the setting (the file names its
// key, the command line its flag).
type SettingError struct {
	Value string
	Why   string
}

func (e *SettingError) Error() string { return fmt.Sprintf("%q: %s", e.Value, e.Why) }

// Settings are the protocol's settings, in the order of the protocol
// section's keys (docs/config.md).
var Settings = []Setting{
	{Key: "concurrency", Flag: "concurrency", Type: CountList, Low: 1, High: maxConcurrency, Example: "10,100",
		Meaning: "concurrency levels, comma-separated, e.g. 10,100",
		set:     func(o *Overrides, v any) { o.Concurrency = v.([]int) },
		get:     func(o Overrides) (any, bool) { return o.Concurrency, len(o.Concurrency) > 0 }},
	durationSetting("warmup", "warmup", minWarmup, "warm-up before each window: its floor when it runs until throughput is steady",
		func(o *Overrides) *time.Duration { return &o.Warmup }),
	durationSetting("warmup_max", "warmup-max", minWarmup, "the warm-up's cap: it ends once throughput is steady, at most this long (equal to --warmup: a fixed warm-up)",
		func(o *Overrides) *time.Duration { return &o.WarmupMax }),
	durationSetting("jit_warmup", "", minWarmup, "the warm-up's floor for a stack of a JIT runtime",
		func(o *Overrides) *time.Duration { return &o.JITWarmup }),
	durationSetting("jit_warmup_max", "", minWarmup, "the warm-up's cap for a stack of a JIT runtime",
		func(o *Overrides) *time.Duration { return &o.JITWarmupMax }),
	durationSetting("window", "window", minWindow, "measured window",
		func(o *Overrides) *time.Duration { return &o.Window }),
	durationSetting("timeout", "timeout", minTimeout, "client timeout",
		func(o *Overrides) *time.Duration { return &o.Timeout }),
	{Key: "rounds", Flag: "rounds", Type: Rounds, Low: 1, Example: "5",
		Meaning: "rounds: passes over every stack, in a balanced order: a number, or auto (measure more rounds of the cells an undecided step needs)",
		set: func(o *Overrides, v any) {
			n := v.(int)
			adaptive := n == 0
			o.Adaptive = &adaptive
			if !adaptive {
				o.Rounds = n
			}
		},
		get: func(o Overrides) (any, bool) {
			if o.Adaptive != nil && *o.Adaptive {
				return 0, true
			}
			return o.Rounds, o.Rounds != 0
		}},
	countSetting("min_rounds", "min-rounds", 1, 0, "4", "with --rounds auto: the rounds always measured",
		func(o *Overrides) *int { return &o.MinRounds }),
	countSetting("max_rounds", "max-rounds", 1, 0, "12", "with --rounds auto: the most rounds",
		func(o *Overrides) *int { return &o.MaxRounds }),
	durationSetting("budget", "budget", time.Minute, "with --rounds auto: the longest the windows may take, extra rounds included (estimated)",
		func(o *Overrides) *time.Duration { return &o.Budget }),
	choiceSetting("fresh", "fresh", "fresh server process per round or per case",
		[]Choice{{FreshRound, "one process serves all cases of a round"}, {FreshCase, "a fresh process per case"}},
		func(o *Overrides) *string { return &o.Fresh }),
	choiceSetting("layout", "layout", "round layout: interleaved (stacks take turns case by case; steps paired by round) or grouped (each stack serves its cases in a row)",
		[]Choice{{LayoutInterleaved, "stacks take turns case by case, steps paired by round"}, {LayoutGrouped, "each stack serves its cases in a row"}},
		func(o *Overrides) *string { return &o.Layout }),
	withAdvice(countSetting("repeat", "repeat", 1, MaxRepeat, "2", "windows each process serves of each cell in a round (2 or more: the report tells within-process from between-process spread)",
		func(o *Overrides) *int { return &o.Repeat }), ": a process's windows of a cell vary little, so 2 shows that spread"),
	{Key: "boot_starts", Flag: "boot-starts", Type: Count, Low: 0, Example: "10",
		Meaning: "cold starts per stack (0: no boot suite)",
		set:     func(o *Overrides, v any) { n := v.(int); o.BootStarts = &n },
		get:     func(o Overrides) (any, bool) { return deref0(o.BootStarts), o.BootStarts != nil }},
	{Key: "gate.threshold", Flag: "gate", Type: GateThreshold, Example: "auto",
		Meaning: "contention gate: auto, off, or cores of foreign CPU, e.g. 0.8",
		set:     func(o *Overrides, v any) { o.Gate = v.(string) },
		get:     func(o Overrides) (any, bool) { return o.Gate, o.Gate != "" }},
	{Key: "gate.retries", Flag: "gate-retries", Type: Count, Low: 0, Example: "3",
		Meaning: "redo a contended window at most this many times",
		set:     func(o *Overrides, v any) { n := v.(int); o.GateRetries = &n },
		get:     func(o Overrides) (any, bool) { return deref0(o.GateRetries), o.GateRetries != nil }},
	durationSetting("gate.wait", "gate-wait", time.Second, "longest wait for a quiet host before a window",
		func(o *Overrides) *time.Duration { return &o.GateWait }),
	{Key: "spread", Flag: "spread", Type: Switch, Example: "true",
		Meaning: "spread ids and pages over all users instead of the fixed requests",
		set:     func(o *Overrides, v any) { b := v.(bool); o.Spread = &b },
		get:     func(o Overrides) (any, bool) { return o.Spread != nil && *o.Spread, o.Spread != nil }},
	{Key: "min_effect", Flag: "min-effect", Type: Fraction, Example: "5%",
		Meaning: "smallest shift a step calls a gain or a loss, e.g. 5% or 0.05",
		set:     func(o *Overrides, v any) { o.MinEffect = v.(float64) },
		get:     func(o Overrides) (any, bool) { return o.MinEffect, o.MinEffect != 0 }},
	choiceSetting("family", "family", "false-call control: run (over all the run's calls at once; the default) or step (each call on its own)",
		[]Choice{{FamilyRun, "false gains and losses controlled over all the run's calls at once"}, {FamilyStep, "each call on its own, at α"}},
		func(o *Overrides) *string { return &o.Family }),
	{Key: "profiling", Flag: "profiling", Type: Switch, Example: "on",
		Meaning: "after the measured rounds, profile one extra window per cell and explain each step by function (docs/profiles.md)",
		set:     func(o *Overrides, v any) { b := v.(bool); o.Profiling = &b },
		get:     func(o Overrides) (any, bool) { return o.Profiling != nil && *o.Profiling, o.Profiling != nil }},
	{Key: "calls", Flag: "calls", Type: ChoiceList, Example: "cost", Choices: metricChoices,
		Meaning: "the metrics each step is called on, the first the run's headline: throughput, per_cpu, p50, p99, cost (the last three need latency:); the others are shown with their intervals, not called (default: every metric measured)",
		set:     func(o *Overrides, v any) { o.Calls = v.([]string) },
		get:     func(o Overrides) (any, bool) { return o.Calls, len(o.Calls) > 0 }},
	choiceSetting("closed_loop", "closed-loop", "closed-loop windows in every round, or in round 1 only (then later rounds measure only the latency windows; the default when the run calls only p50, p99 or cost)",
		[]Choice{{ClosedLoopEvery, "a closed-loop window for every cell of every round"}, {ClosedLoopFirst, "closed-loop windows in round 1 only (they fix the latency windows' rate); later rounds are the fixed-rate windows alone"}},
		func(o *Overrides) *string { return &o.ClosedLoop }),
	{Key: "latency.rate", Flag: "latency-rate", Type: RateOf, Example: "50%",
		Meaning: "add open-loop latency windows at one rate per case, and call p50 and p99: a share of the slowest stack's closed-loop median in the first rounds (50%) or req/s (800)",
		set:     func(o *Overrides, v any) { l := v.(LatencyRate); o.Latency = &l },
		get: func(o Overrides) (any, bool) {
			if o.Latency == nil {
				return LatencyRate{}, false
			}
			return *o.Latency, true
		}},
}

func deref0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func withAdvice(s Setting, advice string) Setting {
	s.Advice = advice
	return s
}

func durationSetting(key, flag string, min time.Duration, meaning string, field func(*Overrides) *time.Duration) Setting {
	return Setting{Key: key, Flag: flag, Type: Duration, Min: min, Example: "5s", Meaning: meaning,
		set: func(o *Overrides, v any) { *field(o) = v.(time.Duration) },
		get: func(o Overrides) (any, bool) { d := *field(&o); return d, d != 0 }}
}

func countSetting(key, flag string, low, high int, example, meaning string, field func(*Overrides) *int) Setting {
	return Setting{Key: key, Flag: flag, Type: Count, Low: low, High: high, Example: example, Meaning: meaning,
		set: func(o *Overrides, v any) { *field(o) = v.(int) },
		get: func(o Overrides) (any, bool) { n := *field(&o); return n, n != 0 }}
}

func choiceSetting(key, flag, meaning string, choices []Choice, field func(*Overrides) *string) Setting {
	return Setting{Key: key, Flag: flag, Type: ChoiceOf, Choices: choices, Example: choices[0].Value, Meaning: meaning,
		set: func(o *Overrides, v any) { *field(o) = v.(string) },
		get: func(o Overrides) (any, bool) { s := *field(&o); return s, s != "" }}
}

// ArgName names a value of the setting in a flag's help: "duration",
// "int", …; "" for an on/off switch.
func (s Setting) ArgName() string {
	switch s.Type {
	case Duration:
		return "duration"
	case Count:
		return "int"
	case Rounds:
		return "int|auto"
	case CountList:
		return "ints"
	case ChoiceOf:
		var vs []string
		for _, c := range s.Choices {
			vs = append(vs, c.Value)
		}
		return strings.Join(vs, "|")
	case Fraction:
		return "share"
	case GateThreshold:
		return "auto|off|cores"
	case RateOf:
		return "rate"
	case ChoiceList:
		return "metrics"
	}
	return ""
}

// SettingOf returns the setting with the key.
func SettingOf(key string) Setting {
	for _, s := range Settings {
		if s.Key == key {
			return s
		}
	}
	panic("plan: no setting " + key)
}

// Parse reads a value of the setting as written (a Rounds of auto is 0)
// and checks it; a bad one is a *SettingError.
func (s Setting) Parse(raw string) (any, error) {
	v, why := s.parse(strings.TrimSpace(raw))
	if why == "" {
		why = s.check(v)
	}
	if why != "" {
		return nil, &SettingError{Value: raw, Why: why}
	}
	if items, ok := v.([]string); ok && s.Type == CountList { // checked
		ns := make([]int, len(items))
		for i, it := range items {
			ns[i], _ = strconv.Atoi(it)
		}
		v = ns
	}
	return v, nil
}

// checkList checks a CountList's items (as written, or numbers) and says
// what is wrong with each bad one.
func (s Setting) checkList(v any) string {
	var items []string
	switch v := v.(type) {
	case []string:
		items = v
	case []int:
		for _, n := range v {
			items = append(items, strconv.Itoa(n))
		}
	}
	var whys []string
	seen := map[int]bool{}
	for _, it := range items {
		n, err := strconv.Atoi(it)
		switch {
		case err != nil:
			whys = append(whys, fmt.Sprintf("%q is not a whole number", it))
		case s.checkCount(n) != "":
			whys = append(whys, fmt.Sprintf("%d is %s", n, s.checkCount(n)))
		case seen[n]:
			whys = append(whys, fmt.Sprintf("%d is listed twice", n))
		}
		seen[n] = err == nil
	}
	if len(whys) == 0 {
		return ""
	}
	return strings.Join(whys, "; ") + "; write each level once, e.g. " + s.Example
}

// checkChoices checks a ChoiceList's items: each known, each once.
func (s Setting) checkChoices(items []string) string {
	var whys []string
	seen := map[string]bool{}
	for _, it := range items {
		switch {
		case !slices.ContainsFunc(s.Choices, func(c Choice) bool { return c.Value == it }):
			var ws []string
			for _, c := range s.Choices {
				ws = append(ws, c.Value)
			}
			whys = append(whys, fmt.Sprintf("%q is not one of %s", it, strings.Join(ws, ", ")))
		case seen[it]:
			whys = append(whys, fmt.Sprintf("%s is listed twice", it))
		}
		seen[it] = true
	}
	if len(whys) == 0 {
		return ""
	}
	return strings.Join(whys, "; ") + "; write each once, e.g. " + s.Example
}

// Set parses raw and stores it in o.
func (s Setting) Set(o *Overrides, raw string) error {
	v, err := s.Parse(raw)
	if err == nil {
		s.set(o, v)
	}
	return err
}

// Check checks the value o holds, if it sets one: what Parse would have
// said of it (for Overrides built in code rather than parsed).
func (s Setting) Check(o Overrides) error {
	v, ok := s.get(o)
	if !ok {
		return nil
	}
	if why := s.check(v); why != "" {
		return &SettingError{Value: s.format(v), Why: why}
	}
	return nil
}

// parse reads the value's syntax: a value or why it is not one.
func (s Setting) parse(raw string) (any, string) {
	switch s.Type {
	case Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return nil, "not a duration; write a number with a unit, e.g. " + s.Example + " (units: ms, s, m, h)"
		}
		return d, ""
	case Count:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, "not a whole number; write e.g. " + s.Example
		}
		return n, ""
	case Rounds:
		if raw == "auto" {
			return 0, ""
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, "not a number of rounds; write a whole number, e.g. " + s.Example + ", or auto"
		}
		if n == 0 {
			n = -1 // 0 is auto's; the check says what to write
		}
		return n, ""
	case CountList:
		var items []string
		for _, item := range strings.Split(raw, ",") {
			items = append(items, strings.TrimSpace(item))
		}
		return items, ""
	case ChoiceOf:
		return raw, ""
	case ChoiceList:
		var items []string
		for _, item := range strings.Split(raw, ",") {
			items = append(items, strings.TrimSpace(item))
		}
		return items, ""
	case Fraction:
		f, err := ParseFraction(raw)
		if err != nil {
			return nil, err.Error() + "; write e.g. " + s.Example + " or 0.05"
		}
		return f, ""
	case Switch:
		switch strings.ToLower(raw) {
		case "on", "true", "yes":
			return true, ""
		case "off", "false", "no":
			return false, ""
		}
		return nil, "not on or off; write on (or true) or off (or false)"
	case GateThreshold:
		return raw, ""
	case RateOf:
		l, err := ParseLatencyRate(raw)
		if err != nil {
			return nil, err.Error() + "; write e.g. 50% (of the slowest stack's closed-loop median) or 800 (req/s)"
		}
		return l, ""
	}
	panic("plan: setting type")
}

// check bounds a value: "" when it is good, else why not.
func (s Setting) check(v any) string {
	switch s.Type {
	case Duration:
		if d := v.(time.Duration); d < s.Min {
			return fmt.Sprintf("too short; give at least %s", s.Min)
		}
	case Count, Rounds:
		return s.checkCount(v.(int))
	case CountList:
		return s.checkList(v)
	case ChoiceList:
		return s.checkChoices(v.([]string))
	case ChoiceOf:
		for _, c := range s.Choices {
			if v.(string) == c.Value {
				return ""
			}
		}
		var ws []string
		for _, c := range s.Choices {
			ws = append(ws, fmt.Sprintf("%s (%s)", c.Value, c.Meaning))
		}
		return "not known; write " + strings.Join(ws, " or ")
	case Fraction:
		if f := v.(float64); f <= 0 || f >= 1 {
			return "must be above 0 % and below 100 %; write e.g. " + s.Example + " or 0.05"
		}
	case GateThreshold:
		if _, _, err := parseGate(v.(string)); err != nil {
			return err.Error()
		}
	}
	return ""
}

func (s Setting) checkCount(n int) string {
	switch {
	case s.Type == Rounds && n == 0:
		return ""
	case n < s.Low && s.Type == CountList:
		return fmt.Sprintf("below %d", s.Low)
	case n > s.High && s.High > 0 && s.Type == CountList:
		return fmt.Sprintf("above %d", s.High)
	case n < s.Low:
		return fmt.Sprintf("below %d; give at least %d, e.g. %s", s.Low, s.Low, s.Example)
	case s.High > 0 && n > s.High:
		return fmt.Sprintf("above %d; give at most %d", s.High, s.High) + s.Advice
	}
	return ""
}

// format writes a value as Parse reads it.
func (s Setting) format(v any) string {
	switch v := v.(type) {
	case []int:
		var ws []string
		for _, n := range v {
			ws = append(ws, strconv.Itoa(n))
		}
		return strings.Join(ws, ",")
	case []string:
		return strings.Join(v, ",")
	case LatencyRate:
		return v.String()
	}
	return fmt.Sprint(v)
}
