package run

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// A run started by a stackbench that split α evenly over its looks cannot
// be resumed under the new spending, and the refusal says why and what to
// do instead of blaming the user's file.
func TestResumeNamesASpendingChange(t *testing.T) {
	if got := spendingChanged(plan.SpendingFinal, ""); !strings.Contains(got, "equal share of α") || !strings.Contains(got, "start a new run") {
		t.Errorf("spendingChanged = %q", got)
	}
	if got := spendingChanged(plan.SpendingFinal, plan.SpendingFinal); got != "" {
		t.Errorf("no change: %q", got)
	}
}
