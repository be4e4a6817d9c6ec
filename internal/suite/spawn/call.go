package spawn

// Call compares one command's wall times with the first command's at one
// size, with the calls the report's steps use (docs/statistics.md). The
// suite measures; internal/analysis (ProcessCalls) decides the calls.
type Call struct {
	Size int    `json:"size"`
	From string `json:"from"`
	To   string `json:"to"`
	// Change is the Hodges–Lehmann estimate of the relative shift of the
	// wall times (−0.2 = 20 % faster); Defined is false when either cell
	// failed.
	Change  float64 `json:"change"`
	Defined bool    `json:"defined"`
	// Verdict is the call: gain (faster), loss (slower), same, undecided
	// or invalid; Detail the estimate and its interval in words.
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}
