package pgfix_test

import (
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
