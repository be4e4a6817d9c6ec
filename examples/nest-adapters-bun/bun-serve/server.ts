// The baseline: the micro workload on Bun.serve alone, no framework. It
// answers what the Nest controller answers, with the same JSON.stringify.
const port = Number(process.env.PORT || 3000)
const hostname = process.env.HOST || '127.0.0.1'

const server = Bun.serve({
  port,
  hostname,
  routes: {
    '/health': { GET: () => Response.json({ status: 'ok' }) },
    '/users/:id': {
      GET: (req) => Response.json({ id: req.params.id, name: 'Ada', email: 'ada@example.com', roles: ['admin', 'dev'] }),
    },
    '/users': {
      POST: async (req) => {
        let body: unknown
        try {
          body = JSON.parse(await req.text())
        } catch {
          return Response.json({ error: 'body must be JSON' }, { status: 400 })
        }
        return Response.json({ created: body }, { status: 201 })
      },
    },
  },
  fetch: () => Response.json({ error: 'not found' }, { status: 404 }),
})

process.on('SIGTERM', () => {
  server.stop()
  process.exit(0)
})
