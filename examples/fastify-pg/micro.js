// The micro workload: two routes, no database; it measures the HTTP layer.
import { baseApp } from './app.js'
import * as schemas from './schemas.js'

// microApp returns the Fastify instance serving the micro workload.
export function microApp() {
  const app = baseApp()

  app.get('/health', { schema: schemas.health }, async () => ({ status: 'ok' }))

  app.get('/users/:id', { schema: schemas.microUser }, async (req) => ({
    id: req.params.id,
    name: 'Ada',
    email: 'ada@example.com',
    roles: ['admin', 'dev'],
  }))

  app.post('/users', async (req, reply) => reply.code(201).send({ created: req.body }))

  return app
}
