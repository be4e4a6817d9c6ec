// The SaaS slice on Elysia, on Bun, over Bun's built-in SQL client (or
// postgres.js with DB_DRIVER=postgres). Listens on $HOST:$PORT (HOST 127.0.0.1 when unset).
import { Elysia } from 'elysia'
import { verifier } from '../contract/auth.js'
import { hashChain } from '../contract/cpu.js'
import { AmountOverflow, Db } from '../contract/db.js'
import * as rules from '../contract/rules.js'

const defaultSecret = 'bench-secret-do-not-use-in-prod'
const notFound = { error: 'not found' }

if (!process.env.DATABASE_URL) {
  console.error('DATABASE_URL is not set: point it at a database with the saas-slice schema (stackbench passes it)')
  process.exit(1)
}
const port = Number(process.env.PORT || 3000)
const hostname = process.env.HOST || '127.0.0.1'
const db = new Db(process.env.DATABASE_URL)
const userIdOf = verifier(process.env.JWT_SECRET || defaultSecret)

async function user(id: number, status: (code: 404, body: unknown) => unknown) {
  const u = await db.userById(id)
  return u === undefined ? status(404, notFound) : u
}

const app = new Elysia()
  // Malformed JSON is a 400, an unknown route a JSON 404; anything else is
  // logged and a 500.
  .onError(({ code, error, set }) => {
    if (code === 'NOT_FOUND') {
      set.status = 404
      return notFound
    }
    if (code === 'PARSE' || code === 'VALIDATION' || code === 'INVALID_COOKIE_SIGNATURE') {
      set.status = 400
      return { error: String((error as Error)?.message ?? code) }
    }
    console.error(error)
    set.status = 500
    return { error: 'internal error' }
  })
  .get('/health', () => ({ status: 'ok' }))
  .post('/echo', ({ body, status }) => {
    const echo = rules.echoBody(body)
    return echo.error !== undefined ? status(400, { error: echo.error }) : echo.value
  })
  .get('/me', async ({ headers, status }) => {
    const id = await userIdOf(headers.authorization)
    return id === undefined ? status(401, { error: 'unauthorized' }) : user(id, status)
  })
  .get('/users/:id', ({ params, status }) => {
    const id = rules.decimalIn(params.id, 1, rules.int32Max)
    return id === undefined ? status(400, { error: 'id must be an integer from 1 to 2147483647' }) : user(id, status)
  })
  .get('/users', async ({ query, status, set }) => {
    const p = rules.paging(query)
    if (p.error !== undefined) return status(400, { error: p.error })
    const { page, limit } = p.value
    if (typeof page === 'bigint') {
      // Past 2^53 the page is far beyond any table, and JSON.stringify cannot write a BigInt.
      set.headers['content-type'] = 'application/json; charset=utf-8'
      return `{"page":${page},"limit":${limit},"items":[]}`
    }
    return { page, limit, items: await db.usersPage(limit, (page - 1) * limit) }
  })
  .post('/orders', async ({ body, status }) => {
    const o = rules.orderBody(body)
    if (o.error !== undefined) return status(400, { error: o.error })
    const { userId, amount, currency } = o.value
    if (userId > rules.int32Max) return status(404, notFound)
    try {
      const order = await db.insertOrder(userId, amount, currency)
      return order === undefined ? status(404, notFound) : status(201, order)
    } catch (err) {
      if (err instanceof AmountOverflow) return status(400, { error: err.message })
      throw err
    }
  })
  .get('/cpu', ({ query, status }) => {
    const n = rules.cpuRounds(query)
    return n.error !== undefined ? status(400, { error: n.error }) : { n: n.value, hash: hashChain(n.value) }
  })
  .listen({ port, hostname })

// shutdown stops accepting, closes the pool and exits.
async function shutdown() {
  setTimeout(() => process.exit(0), 2000).unref()
  await app.stop()
  await db.close()
  process.exit(0)
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
