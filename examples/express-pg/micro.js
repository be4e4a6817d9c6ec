// The micro workload: two routes, no database; it measures the HTTP layer.
import express from 'express'
import { baseApp, finish } from './app.js'
import { burner } from './burn.js'

const ada = { name: 'Ada', email: 'ada@example.com', roles: ['admin', 'dev'] }

// microApp returns the Express application serving the micro workload;
// with BURN_US set, every route but /health first does that many
// microseconds of CPU work (burn.js).
export function microApp() {
  const app = baseApp()

  app.get('/health', (req, res) => {
    res.json({ status: 'ok' })
  })

  const burn = burner()
  if (burn) app.use(burn)

  app.get('/users/:id', (req, res) => {
    res.json({ id: req.params.id, ...ada })
  })

  app.post('/users', express.json(), (req, res) => {
    if (req.body === undefined) return res.status(400).json({ error: 'body must be JSON' })
    res.status(201).json({ created: req.body })
  })

  return finish(app)
}
