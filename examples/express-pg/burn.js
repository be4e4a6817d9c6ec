// A fixed amount of CPU work per request, for measuring a known slowdown:
// BURN_US=40 adds about 40 µs of CPU to each request (0 or unset: none).
// The work is a loop whose length is calibrated once at start, on its
// fastest of several timed runs (the least preempted), after the loop has
// been run enough for V8 to optimise it; so each request does the same
// work, whatever the host's load during the run.

// spin runs n rounds of an integer hash and returns it (so it is not
// optimised away).
function spin(n) {
  let h = 2166136261
  for (let i = 0; i < n; i++) {
    h = Math.imul(h ^ i, 16777619)
  }
  return h
}

// roundsFor calibrates the rounds that take us microseconds.
function roundsFor(us) {
  const probe = 200000
  for (let i = 0; i < 50; i++) spin(probe) // let V8 optimise the loop
  let best = Infinity
  for (let i = 0; i < 15; i++) {
    const t0 = process.hrtime.bigint()
    spin(probe)
    best = Math.min(best, Number(process.hrtime.bigint() - t0))
  }
  return Math.max(1, Math.round((probe * us * 1000) / best))
}

// burner returns an Express middleware that does BURN_US µs of CPU work
// per request, or undefined when BURN_US is 0 or unset.
export function burner(env = process.env) {
  const us = Number(env.BURN_US || 0)
  if (!(us > 0)) return undefined
  const rounds = roundsFor(us)
  let sink = 0
  return (req, res, next) => {
    sink ^= spin(rounds)
    res.locals.burn = sink // keeps the result alive
    next()
  }
}
