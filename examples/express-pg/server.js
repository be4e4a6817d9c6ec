// Entry point: reads the harness's environment (PORT, DATABASE_URL,
// JWT_SECRET, STACKBENCH_WORKLOAD) and serves the SaaS slice, or the micro
// workload when STACKBENCH_WORKLOAD=micro, on $HOST:$PORT (HOST 127.0.0.1
// when unset).
import { saasApp } from './app.js'
import { openPool } from './db.js'
import { microApp } from './micro.js'

const defaultSecret = 'bench-secret-do-not-use-in-prod'

const port = Number(process.env.PORT || 3000)
const host = process.env.HOST || '127.0.0.1'
const micro = process.env.STACKBENCH_WORKLOAD === 'micro'

let pool
let app
if (micro) {
  app = microApp()
} else {
  if (!process.env.DATABASE_URL) {
    console.error('DATABASE_URL is not set: point it at a database with the saas-slice schema (stackbench passes it)')
    process.exit(1)
  }
  pool = openPool(process.env.DATABASE_URL)
  app = saasApp(pool, process.env.JWT_SECRET || defaultSecret)
}

const server = app.listen(port, host, (err) => {
  if (err) {
    console.error(`listen on ${host}:${port}: ${err.message}`)
    process.exit(1)
  }
})

// shutdown stops accepting, lets requests in flight finish (2 s at most),
// then closes the pool and exits.
function shutdown() {
  setTimeout(() => process.exit(0), 2000).unref()
  server.close(() => {
    Promise.resolve(pool?.end()).finally(() => process.exit(0))
  })
  server.closeIdleConnections()
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
