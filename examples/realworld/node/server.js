// A slice of the RealWorld ("Conduit") API on node:http and node-postgres:
// register, login, current user, tags, the article list and one article,
// and creating an article, all under /api as the spec's servers: say.
// Listens on 127.0.0.1:$PORT; DATABASE_URL and JWT_SECRET come from the
// environment (stackbench sets them).
import http from 'node:http'
import crypto from 'node:crypto'
import jwt from 'jsonwebtoken'
import pg from 'pg'

const BASE = '/api'
const secret = process.env.JWT_SECRET || 'bench-secret-do-not-use-in-prod'
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL || 10) })

class HTTPError extends Error {
  constructor (status, errors) {
    super('http ' + status)
    this.status = status
    this.errors = errors
  }
}

const send = (res, status, body) => {
  const data = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(data) })
  res.end(data)
}

const readJSON = (req) => new Promise((resolve, reject) => {
  const chunks = []
  let size = 0
  req.on('data', (c) => {
    size += c.length
    if (size > 1 << 20) reject(new HTTPError(413, { body: ['too large'] }))
    chunks.push(c)
  })
  req.on('end', () => {
    try {
      resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'))
    } catch {
      reject(new HTTPError(422, { body: ['is not JSON'] }))
    }
  })
  req.on('error', reject)
})

// PBKDF2-SHA256, 10,000 rounds: the Go implementation uses the same, so
// that both spend alike on a login.
const hashPassword = (password, salt = crypto.randomBytes(16).toString('hex')) =>
  salt + '$' + crypto.pbkdf2Sync(password, salt, 10000, 32, 'sha256').toString('hex')

const checkPassword = (password, stored) => {
  const [salt] = stored.split('$')
  const a = Buffer.from(hashPassword(password, salt))
  const b = Buffer.from(stored)
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

const userJSON = (u) => ({
  user: { email: u.email, token: jwt.sign({ id: u.id, username: u.username }, secret, { expiresIn: '24h' }), username: u.username, bio: u.bio, image: u.image }
})

const authUser = async (req) => {
  const h = req.headers.authorization || ''
  const m = /^(?:Token|Bearer) (.+)$/.exec(h)
  if (!m) throw new HTTPError(401, { token: ['is missing'] })
  let claims
  try {
    claims = jwt.verify(m[1], secret, { algorithms: ['HS256'] })
  } catch {
    throw new HTTPError(401, { token: ['is invalid'] })
  }
  const { rows } = await pool.query('SELECT id, email, username, bio, image FROM users WHERE id = $1', [claims.id])
  if (rows.length === 0) throw new HTTPError(401, { token: ['names no user'] })
  return rows[0]
}

const articleSelect = `SELECT a.id, a.slug, a.title, a.description, a.body, a.created_at, a.updated_at,
  u.username, u.bio, u.image,
  coalesce((SELECT array_agg(t.name ORDER BY t.name) FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE at.article_id = a.id), '{}') AS tags
  FROM articles a JOIN users u ON u.id = a.author_id`

const articleJSON = (r, withBody) => {
  const a = {
    slug: r.slug,
    title: r.title,
    description: r.description,
    tagList: r.tags,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    favorited: false,
    favoritesCount: 0,
    author: { username: r.username, bio: r.bio, image: r.image, following: false }
  }
  if (withBody) a.body = r.body
  return a
}

const required = (obj, fields) => {
  const errors = {}
  for (const f of fields) {
    if (typeof obj?.[f] !== 'string' || obj[f].trim() === '') errors[f] = ["can't be blank"]
  }
  if (Object.keys(errors).length > 0) throw new HTTPError(422, errors)
}

const routes = {
  'POST /users': async (req) => {
    const { user } = await readJSON(req)
    required(user, ['username', 'email', 'password'])
    try {
      const { rows } = await pool.query('INSERT INTO users (email, username, password_hash) VALUES ($1, $2, $3) RETURNING id, email, username, bio, image',
        [user.email, user.username, hashPassword(user.password)])
      return [201, userJSON(rows[0])]
    } catch (e) {
      if (e.code === '23505') throw new HTTPError(422, { [e.constraint?.includes('email') ? 'email' : 'username']: ['has already been taken'] })
      throw e
    }
  },
  'POST /users/login': async (req) => {
    const { user } = await readJSON(req)
    required(user, ['email', 'password'])
    const { rows } = await pool.query('SELECT id, email, username, bio, image, password_hash FROM users WHERE email = $1', [user.email])
    if (rows.length === 0 || !checkPassword(user.password, rows[0].password_hash)) throw new HTTPError(401, { 'email or password': ['is invalid'] })
    return [200, userJSON(rows[0])]
  },
  'GET /user': async (req) => [200, userJSON(await authUser(req))],
  'GET /tags': async () => {
    const { rows } = await pool.query('SELECT name FROM tags ORDER BY name')
    return [200, { tags: rows.map((r) => r.name) }]
  },
  'GET /articles': async (req, url) => {
    const limit = Math.min(Math.max(Number.parseInt(url.searchParams.get('limit') ?? '20', 10) || 20, 1), 100)
    const offset = Math.max(Number.parseInt(url.searchParams.get('offset') ?? '0', 10) || 0, 0)
    const tag = url.searchParams.get('tag')
    const where = tag ? ' WHERE a.id IN (SELECT at.article_id FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE t.name = $3)' : ''
    const params = tag ? [limit, offset, tag] : [limit, offset]
    const [list, count] = await Promise.all([
      pool.query(articleSelect + where + ' ORDER BY a.created_at DESC, a.id DESC LIMIT $1 OFFSET $2', params),
      pool.query('SELECT count(*)::int AS n FROM articles a' + where.replace('$3', '$1'), tag ? [tag] : [])
    ])
    return [200, { articles: list.rows.map((r) => articleJSON(r, false)), articlesCount: count.rows[0].n }]
  },
  'POST /articles': async (req) => {
    const me = await authUser(req)
    const { article } = await readJSON(req)
    required(article, ['title', 'description', 'body'])
    const tags = Array.isArray(article.tagList) ? [...new Set(article.tagList.filter((t) => typeof t === 'string' && t !== ''))] : []
    const slug = article.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') + '-' + crypto.randomBytes(4).toString('hex')
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const { rows } = await client.query('INSERT INTO articles (slug, title, description, body, author_id) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [slug, article.title, article.description, article.body, me.id])
      if (tags.length > 0) {
        await client.query('INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING', [tags])
        await client.query('INSERT INTO article_tags (article_id, tag_id) SELECT $1, id FROM tags WHERE name = ANY($2)', [rows[0].id, tags])
      }
      await client.query('COMMIT')
    } catch (e) {
      await client.query('ROLLBACK')
      throw e
    } finally {
      client.release()
    }
    const { rows } = await pool.query(articleSelect + ' WHERE a.slug = $1', [slug])
    return [201, { article: articleJSON(rows[0], true) }]
  },
  'GET /health': async () => [200, { status: 'ok' }]
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost')
  try {
    if (!url.pathname.startsWith(BASE + '/')) throw new HTTPError(404, { path: ['not found'] })
    const path = url.pathname.slice(BASE.length)
    let handler = routes[req.method + ' ' + path]
    let params = {}
    const m = /^\/articles\/([^/]+)$/.exec(path)
    if (!handler && m && req.method === 'GET') {
      params = { slug: decodeURIComponent(m[1]) }
      handler = async () => {
        const { rows } = await pool.query(articleSelect + ' WHERE a.slug = $1', [params.slug])
        if (rows.length === 0) throw new HTTPError(404, { article: ['not found'] })
        return [200, { article: articleJSON(rows[0], true) }]
      }
    }
    if (!handler) throw new HTTPError(404, { path: ['not found'] })
    const [status, body] = await handler(req, url)
    send(res, status, body)
  } catch (e) {
    if (e instanceof HTTPError) {
      send(res, e.status, { errors: e.errors })
    } else {
      console.error(e)
      send(res, 500, { errors: { server: ['internal error'] } })
    }
  }
})

server.keepAliveTimeout = 65000
server.listen(Number(process.env.PORT || 3000), process.env.HOST || '127.0.0.1', () => {
  console.log(`listening on ${process.env.HOST || '127.0.0.1'}:${server.address().port}${BASE}`)
})
