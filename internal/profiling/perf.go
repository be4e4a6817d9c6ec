package profiling

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// PerfScriptFields are the fields ParsePerfScript reads: pass them to
// `perf script -F` so that the text does not depend on perf's defaults.
const PerfScriptFields = "comm,pid,tid,time,period,event,ip,sym,symoff,dso"

// KernelMapping is the dso perf gives kernel frames.
const KernelMapping = "[kernel.kallsyms]"

// perfHeader is a sample's first line: "comm pid/tid time: period event:".
// comm may hold spaces (a thread's name), so the line is read from its end.
// perf prints -1 for an id it did not learn (":-1 20795/-1" for a thread
// whose comm and tid it never saw, as with `-a` while processes in other
// PID namespaces come and go).
var perfHeader = regexp.MustCompile(`^(.*?)\s+(-?\d+)/(-?\d+)\s+([\d.]+):\s+(\d+)\s+(\S+):\s*$`)

// perfFrame is one frame of a sample's call chain: "addr sym+0xoff (dso)".
var perfFrame = regexp.MustCompile(`^([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)$`)

// symOffset is the "+0x…" perf appends to a symbol.
var symOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)

// ParsePerfScript converts the text of `perf script -F PerfScriptFields`
// (a recording with -g) into a pprof CPU profile: sample types samples
// (count) and cpu (nanoseconds, the sample's period: cpu-clock counts
// nanoseconds), one location per address and binary, the binary as the
// mapping. keep selects the samples by process id and time (the
// sample's time as perf prints it: Unix seconds when recorded with -k
// realtime); nil keeps all. Each
// sample is labelled with its process's pid and comm. A frame perf could
// not name is named "[unknown] <binary>", so an unsymbolised binary shows
// up grouped by mapping rather than not at all. rateHz is recorded as the
// profile's period.
func ParsePerfScript(r io.Reader, keep func(pid int, seconds float64) bool, rateHz int) (*profile.Profile, error) {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	if rateHz > 0 {
		p.Period = int64(1e9 / rateHz)
	}
	b := &perfBuilder{p: p, maps: map[string]*profile.Mapping{}, funcs: map[[2]string]*profile.Function{}, locs: map[string]*profile.Location{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *profile.Sample
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			cur = nil
			continue
		}
		if text[0] != ' ' && text[0] != '\t' {
			m := perfHeader.FindStringSubmatch(text)
			if m == nil {
				return nil, fmt.Errorf("perf script line %d: not a sample header (comm pid/tid time: period event:): %q", line, text)
			}
			pid, _ := strconv.Atoi(m[2])
			at, _ := strconv.ParseFloat(m[4], 64)
			period, _ := strconv.ParseInt(m[5], 10, 64)
			cur = nil
			if keep == nil || keep(pid, at) {
				cur = &profile.Sample{Value: []int64{1, period},
					Label: map[string][]string{"comm": {m[1]}}, NumLabel: map[string][]int64{"pid": {int64(pid)}}}
				p.Sample = append(p.Sample, cur)
			}
			continue
		}
		if cur == nil {
			continue // a frame of a sample left out
		}
		m := perfFrame.FindStringSubmatch(strings.TrimSpace(text))
		if m == nil {
			return nil, fmt.Errorf("perf script line %d: not a call-chain frame (address symbol (binary)): %q", line, text)
		}
		addr, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("perf script line %d: address %q: %v", line, m[1], err)
		}
		cur.Location = append(cur.Location, b.location(addr, symOffset.ReplaceAllString(m[2], ""), m[3]))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf script: %w", err)
	}
	return p, p.CheckValid()
}

// perfBuilder interns mappings, functions and locations.
type perfBuilder struct {
	p     *profile.Profile
	maps  map[string]*profile.Mapping
	funcs map[[2]string]*profile.Function
	locs  map[string]*profile.Location
}

func (b *perfBuilder) location(addr uint64, sym, dso string) *profile.Location {
	key := dso + "\x00" + strconv.FormatUint(addr, 16)
	if l, ok := b.locs[key]; ok {
		return l
	}
	m, ok := b.maps[dso]
	if !ok {
		m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: dso, Limit: ^uint64(0), HasFunctions: true}
		b.maps[dso] = m
		b.p.Mapping = append(b.p.Mapping, m)
	}
	if sym == "" || sym == "[unknown]" {
		sym = "[unknown] " + filepath.Base(dso)
	}
	f, ok := b.funcs[[2]string{sym, dso}]
	if !ok {
		f = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: sym, SystemName: sym, Filename: dso}
		b.funcs[[2]string{sym, dso}] = f
		b.p.Function = append(b.p.Function, f)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: addr, Line: []profile.Line{{Function: f}}}
	b.locs[key] = l
	b.p.Location = append(b.p.Location, l)
	return l
}
