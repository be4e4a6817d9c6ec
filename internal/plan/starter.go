package plan

// StarterYAML is the annotated comparison file `stackbench init` writes. It
// validates as it is (its one stack lives in the file's own directory); the
// user edits the stacks to point at the servers to compare.
const StarterYAML = `# stackbench.yaml: one comparison. Which stacks, on which workload, measured how.
# Check it with 'stackbench plan', run it with 'stackbench run'.
# The whole format is in docs/config.md.

# The routes every stack serves: saas-slice (seven routes on a seeded PostgreSQL:
# health, echo, me, user, list, order, cpu), micro (two routes, no database), or a
# workload of your own (see docs/config.md, "Custom workloads").
workload: saas-slice

# embedded: a throwaway PostgreSQL cluster made with this machine's own initdb,
# seeded, and torn down at the end. Or a server of your own:
#   database: postgres://user:password@127.0.0.1:5432/bench
#   database: ${DATABASE_URL}
database: embedded

# quick: a first look, minutes (concurrency 32, 500ms warm-up until steady (at most
# 3s; JIT runtimes 2s–8s), 1s windows, 4 to 16 rounds within 8m). standard:
# concurrency 10 and 100, 1s warm-up until steady (at most 10s; JIT runtimes
# 3s–15s), 5s windows, 6 to 12 rounds within 1h30m, more only while a step is
# undecided. full: the published protocol (10, 100 and 500; 5s warm-up until
# steady (at most 20s; JIT runtimes 10s–30s), 30s windows, 5 rounds).
profile: standard

# Any field of the profile can be changed here (and again on the command line).
# The values below are the standard profile's.
# protocol:
#   concurrency: [10, 100]   # connections, one window per level
#   warmup: 1s               # load before each window, not measured: at least this,
#   warmup_max: 10s          # then until throughput is steady, at most this
#   jit_warmup: 3s           # the same for stacks whose runtime: compiles (node, bun,
#   jit_warmup_max: 15s      # python, jvm …): they compile while they serve
#   window: 5s               # each measured window
#   rounds: auto             # passes over every stack, in a balanced order: a number,
#   min_rounds: 6            # or auto: at least min_rounds, then more rounds for the
#   max_rounds: 12           # steps still undecided, up to max_rounds and as many as
#   budget: 1h30m            # the budget of measuring time affords
#   cases: [health, echo, me, user, list, order, cpu]   # in this order
#   fresh: round             # a fresh server process per round, or per case
#   timeout: 60s             # client timeout: slow answers are latency, not errors
#   boot_starts: 10          # measured cold starts per stack; 0 skips them
#   gate: auto               # wait for a quiet host: auto, off, or cores, e.g. 0.8
#   spread: false            # true: ids and pages spread over all 50,000 users
#   placement: auto          # lanes (the generator, the server and the database on
#                            # CPUs of their own) from 8 CPUs, else shared; or say which

# Limits every stack must meet on every case, judged with an interval; a CI job
# fails on them with 'stackbench run --fail-on threshold' (docs/ci.md).
# thresholds: {p99: 25ms, error_rate: 0.1%}

# The stacks, in step order: the report attributes each difference to the step
# between neighbours (first -> second, second -> third, ...). Each stack gets
# PORT, DATABASE_URL, JWT_SECRET, NODE_ENV=production and STACKBENCH_WORKLOAD.
stacks:
  - name: my-api                      # letters, digits, '.', '_', '-'
    dir: .                            # relative to this file, or absolute
    build: go build -o bin/server .   # optional, run in dir before anything else
    start: ./bin/server               # run in dir; must listen on $PORT
    env: {GOMAXPROCS: "2"}            # optional, added to the harness's variables
    health: /health                   # optional; polled until the first 200
    boot_timeout: 60s                 # optional; longest wait for that 200
    version: go version               # optional; its output is kept with the results

  # - name: my-api-next               # the next step: change one layer only
  #   dir: ../my-api-next
  #   build: go build -o bin/server .
  #   start: ./bin/server
`
