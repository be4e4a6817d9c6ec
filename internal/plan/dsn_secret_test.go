package plan

import (
	"strings"
	"testing"
)

// A database: that is a keyword DSN is refused without echoing its
// password.
func TestDatabaseKeywordDSNPasswordIsHidden(t *testing.T) {
	_, err := LoadEnv(writeConfig(t, "workload: saas-slice\ndatabase: \"host=127.0.0.1 user=bench password=hunter2 dbname=bench\"\n"+validStacks), noEnv)
	if err == nil || !strings.Contains(err.Error(), "password=xxxxx") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("plan: %v; want the DSN refused with its password hidden", err)
	}
}
