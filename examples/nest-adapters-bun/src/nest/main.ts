// Entry point of the Nest stacks: one controller, logger off, on
// $HOST:$PORT (HOST 127.0.0.1 when unset), over the HTTP adapter NEST_ADAPTER names (express or
// fastify). Built once with nest build (SWC) and started with Bun.
import 'reflect-metadata'
import { Module } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { ExpressAdapter } from '@nestjs/platform-express'
import { FastifyAdapter } from '@nestjs/platform-fastify'
import { UsersController } from './users.controller.js'

@Module({ controllers: [UsersController] })
class AppModule {}

const port = Number(process.env.PORT || 3000)
const host = process.env.HOST || '127.0.0.1'
const name = process.env.NEST_ADAPTER
let adapter
if (name === 'express') adapter = new ExpressAdapter()
else if (name === 'fastify') adapter = new FastifyAdapter({ logger: false })
else {
  console.error(`NEST_ADAPTER=${name ?? ''}: write express or fastify`)
  process.exit(1)
}

const app = await NestFactory.create(AppModule, adapter, { logger: false })
app.enableShutdownHooks()
await app.listen(port, host)
