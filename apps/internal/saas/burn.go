package saas

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// BurnEnv names the variable that gives a reference server a known
// slowdown: with SAAS_BURN_US=12 every request first burns 12 µs of CPU
// on its own goroutine. It exists to test stackbench's calls against an
// effect of known direction (a stack that must be called a loss); unset,
// it costs nothing.
const BurnEnv = "SAAS_BURN_US"

// withBurn wraps h so that each request spins for burn before it is
// served; h itself when burn is 0.
func withBurn(h http.Handler, burn time.Duration) http.Handler {
	if burn <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spin(burn)
		h.ServeHTTP(w, r)
	})
}

// spin keeps the CPU busy for d of wall time, reading the clock every
// few hundred nanoseconds of work.
func spin(d time.Duration) {
	deadline := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(deadline) {
		for i := 0; i < 64; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	spinSink = x
}

var spinSink uint64

// burnFromEnv reads BurnEnv: a whole number of microseconds, or empty.
func burnFromEnv(getenv func(string) string) (time.Duration, error) {
	v := getenv(BurnEnv)
	if v == "" {
		return 0, nil
	}
	us, err := strconv.Atoi(v)
	if err != nil || us < 0 {
		return 0, fmt.Errorf("%s=%q: write a whole number of microseconds, e.g. %s=12", BurnEnv, v, BurnEnv)
	}
	return time.Duration(us) * time.Microsecond, nil
}
