// The SaaS-slice routes on Fastify 5: bodies validated by JSON schema,
// responses serialised from their schemas.
import Fastify from 'fastify'
import { verifier } from './auth.js'
import { hashChain } from './cpu.js'
import * as db from './db.js'
import * as params from './params.js'
import * as schemas from './schemas.js'

const notFound = { error: 'not found' }

// baseApp is a Fastify instance set up for an API in production: no logger,
// Ajv without type coercion (a JSON "30" is not the integer 30), a
// "__proto__" key dropped like any unknown key rather than refused, JSON
// 404s, and every client error answered as 400 or its own 4xx, never 5xx.
export function baseApp() {
  const app = Fastify({
    logger: false,
    ajv: { customOptions: { coerceTypes: false } },
    onProtoPoisoning: 'remove',
    // A malformed URL or a path parameter over 100 characters (which Fastify
    // would answer 414) is a bad id: 400.
    frameworkErrors: (err, req, reply) => reply.code(400).send({ error: err.message }),
  })
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(notFound)
  })
  app.setErrorHandler((err, req, reply) => {
    if (err.validation) return reply.code(400).send({ error: err.message })
    const status = err.statusCode
    if (status >= 400 && status < 500) {
      // Malformed JSON, an empty body (400), a body too large (413), a
      // content type other than JSON (415, answered as a validation error).
      return reply.code(status === 415 ? 400 : status).send({ error: err.message })
    }
    console.error(err)
    return reply.code(500).send({ error: 'internal error' })
  })
  return app
}

// saasApp returns the Fastify instance serving the seven contract routes over
// pool, authenticating GET /me with jwtSecret.
export function saasApp(pool, jwtSecret) {
  const app = baseApp()
  const userIdOf = verifier(jwtSecret)

  app.get('/health', { schema: schemas.health }, async () => ({ status: 'ok' }))

  // The response schema writes name, email, age and tags only, in that order.
  app.post('/echo', { schema: schemas.echo }, async (req) => req.body)

  app.get('/me', { schema: schemas.oneUser }, async (req, reply) => {
    const id = userIdOf(req.headers.authorization)
    if (id === undefined) return reply.code(401).send({ error: 'unauthorized' })
    return findUser(pool, reply, id)
  })

  app.get('/users/:id', { schema: schemas.oneUser }, async (req, reply) => {
    const id = params.decimalIn(req.params.id, 1, params.int32Max)
    if (id === undefined) return reply.code(400).send({ error: 'id must be an integer from 1 to 2147483647' })
    return findUser(pool, reply, id)
  })

  app.get('/users', { schema: schemas.userList }, async (req, reply) => {
    const p = params.paging(req.query)
    if (p.error) return reply.code(400).send({ error: p.error })
    // Past 2^53 (a BigInt) the page is far beyond any table.
    if (typeof p.page === 'bigint') return { page: p.page, limit: p.limit, items: [] }
    const { rows } = await pool.query({ ...db.usersPage, values: [p.limit, (p.page - 1) * p.limit] })
    return { page: p.page, limit: p.limit, items: rows.map(db.toUser) }
  })

  app.post('/orders', { schema: schemas.order }, async (req, reply) => {
    const { userId, amount, currency } = req.body
    if (userId > params.int32Max) return reply.code(404).send(notFound)
    let rows
    try {
      ({ rows } = await pool.query({ ...db.insertOrder, values: [userId, amount, currency] }))
    } catch (err) {
      if (err.code === db.foreignKeyViolation) return reply.code(404).send(notFound)
      if (err.code === db.numericOverflow) return reply.code(400).send({ error: 'amount rounds to 10^10 or more' })
      throw err
    }
    return reply.code(201).send(db.toOrder(rows[0]))
  })

  app.get('/cpu', { schema: schemas.cpu }, async (req, reply) => {
    const q = params.cpuRounds(req.query)
    if (q.error) return reply.code(400).send({ error: q.error })
    return { n: q.n, hash: hashChain(q.n) }
  })

  return app
}

// findUser answers the user object of id, or 404 when there is none.
async function findUser(pool, reply, id) {
  const { rows } = await pool.query({ ...db.userById, values: [id] })
  if (rows.length === 0) return reply.code(404).send(notFound)
  return db.toUser(rows[0])
}
