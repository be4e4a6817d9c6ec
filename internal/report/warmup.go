package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
)

// warmupLine is the header's sentence about the warm-ups: overall, then
// per stack.
func warmupLine(ws *analysis.WarmupSummary, how string) string {
	if ws == nil {
		return ""
	}
	var per []string
	for _, r := range ws.Stacks {
		per = append(per, fmt.Sprintf("%s %.2f s (max %.2f s)", r.Stack, r.MedianSeconds, r.MaxSeconds))
	}
	return fmt.Sprintf("Warm-up: %s; per window %.2f s median, %.2f s max (%s); %d window(s) not_steady (the cap came first) and %d with a trend between the window's halves, all counted (trap T19).",
		how, ws.MedianSeconds, ws.MaxSeconds, strings.Join(per, ", "), ws.NotSteady, ws.Trend)
}
