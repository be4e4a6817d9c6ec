// Entry point of the Nest stacks: NestJS with its Fastify adapter, logger
// off, on $HOST:$PORT (HOST 127.0.0.1 when unset). The same compiled dist/ runs on Node and on Bun.
import 'reflect-metadata'
import { NestFactory } from '@nestjs/core'
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify'
import { AppModule } from './app.module.js'

if (!process.env.DATABASE_URL) {
  console.error('DATABASE_URL is not set: point it at a database with the saas-slice schema (stackbench passes it)')
  process.exit(1)
}
const port = Number(process.env.PORT || 3000)
const host = process.env.HOST || '127.0.0.1'

const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter({ logger: false }), {
  logger: false,
})
app.enableShutdownHooks()
await app.listen(port, host)
