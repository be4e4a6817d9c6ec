package spawn

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// MetricPrefix starts a line of figures a program reports about itself.
const MetricPrefix = "stackbench-metric:"

// metricName is what a figure's name may hold; its unit belongs in it
// (container_ms, heap_bytes).
var metricName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)

// ParseMetrics reads the figures a program printed on lines that start
// with MetricPrefix: space-separated name=value pairs, the value a finite
// decimal number, e.g.
//
//	stackbench-metric: container_ms=1.234 providers=1000
//
// Other lines are ignored. A malformed pair, or a name given twice, is an
// error: a figure the harness cannot read would silently vanish.
func ParseMetrics(out []byte) (map[string]float64, error) {
	var m map[string]float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), MetricPrefix)
		if !ok {
			continue
		}
		for _, pair := range strings.Fields(line) {
			name, value, ok := strings.Cut(pair, "=")
			v, err := strconv.ParseFloat(value, 64)
			if !ok || !metricName.MatchString(name) || err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return m, fmt.Errorf("metric %q on a %s line is not name=number; print e.g. %s container_ms=1.23", pair, MetricPrefix, MetricPrefix)
			}
			if m == nil {
				m = map[string]float64{}
			}
			if _, dup := m[name]; dup {
				return m, fmt.Errorf("metric %s printed twice; print each figure once per run", name)
			}
			m[name] = v
		}
	}
	return m, sc.Err()
}
