// The SaaS-slice routes on Express 5 (async handlers: a rejected promise
// reaches the error handler at the end).
import express from 'express'
import { verifier } from './auth.js'
import { hashChain } from './cpu.js'
import * as db from './db.js'
import * as rules from './rules.js'

const notFound = { error: 'not found' }

// saasApp returns the Express application serving the seven contract routes
// over pool, authenticating GET /me with jwtSecret.
export function saasApp(pool, jwtSecret) {
  const app = baseApp()
  // 1 MiB, like Fastify's default and the Go reference servers (express.json's own is 100 kB).
  const json = express.json({ limit: '1mb' })
  const userIdOf = verifier(jwtSecret)

  app.get('/health', (req, res) => {
    res.json({ status: 'ok' })
  })

  app.post('/echo', json, (req, res) => {
    const body = rules.echoBody(req.body)
    if (body.error) return res.status(400).json({ error: body.error })
    res.json(body.value)
  })

  app.get('/me', async (req, res) => {
    const id = userIdOf(req.get('authorization'))
    if (id === undefined) return res.status(401).json({ error: 'unauthorized' })
    await sendUser(pool, res, id)
  })

  app.get('/users/:id', async (req, res) => {
    const id = rules.decimalIn(req.params.id, 1, rules.int32Max)
    if (id === undefined) return res.status(400).json({ error: 'id must be an integer from 1 to 2147483647' })
    await sendUser(pool, res, id)
  })

  app.get('/users', async (req, res) => {
    const p = rules.paging(req.query)
    if (p.error) return res.status(400).json({ error: p.error })
    if (typeof p.page === 'bigint') {
      // Past 2^53 the page is far beyond any table, and JSON.stringify cannot write a BigInt.
      return res.type('json').send(`{"page":${p.page},"limit":${p.limit},"items":[]}`)
    }
    const { rows } = await pool.query({ ...db.usersPage, values: [p.limit, (p.page - 1) * p.limit] })
    res.json({ page: p.page, limit: p.limit, items: rows.map(db.toUser) })
  })

  app.post('/orders', json, async (req, res) => {
    const body = rules.orderBody(req.body)
    if (body.error) return res.status(400).json({ error: body.error })
    const { userId, amount, currency } = body.value
    if (userId > rules.int32Max) return res.status(404).json(notFound)
    let rows
    try {
      ({ rows } = await pool.query({ ...db.insertOrder, values: [userId, amount, currency] }))
    } catch (err) {
      if (err.code === db.foreignKeyViolation) return res.status(404).json(notFound)
      if (err.code === db.numericOverflow) return res.status(400).json({ error: 'amount rounds to 10^10 or more' })
      throw err
    }
    res.status(201).json(db.toOrder(rows[0]))
  })

  app.get('/cpu', (req, res) => {
    const q = rules.cpuRounds(req.query)
    if (q.error) return res.status(400).json({ error: q.error })
    res.json({ n: q.n, hash: hashChain(q.n) })
  })

  return finish(app)
}

// sendUser answers the user object of id, or 404 when there is none.
async function sendUser(pool, res, id) {
  const { rows } = await pool.query({ ...db.userById, values: [id] })
  if (rows.length === 0) return res.status(404).json(notFound)
  res.json(db.toUser(rows[0]))
}

// baseApp is an Express app set up for an API in production: no
// X-Powered-By header and no ETag (clients of this API never revalidate, so
// hashing every body would be wasted work).
export function baseApp() {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  return app
}

// finish adds the JSON 404 for unknown routes and the error handler: a bad
// body is a 400 (413 when too large), anything else is logged and a 500.
export function finish(app) {
  app.use((req, res) => {
    res.status(404).json(notFound)
  })
  app.use((err, req, res, next) => {
    if (res.headersSent) return next(err)
    const status = err.status ?? err.statusCode
    if (err.expose && status >= 400 && status < 500) {
      // body-parser: malformed JSON, unsupported charset or encoding (415), too large (413).
      return res.status(status === 415 ? 400 : status).json({ error: err.message })
    }
    console.error(err)
    res.status(500).json({ error: 'internal error' })
  })
  return app
}
