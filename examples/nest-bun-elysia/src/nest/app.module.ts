import { Module, type OnApplicationShutdown } from '@nestjs/common'
import { Db } from '../contract/db.js'
import { JWT_SECRET, SaasController } from './saas.controller.js'

const defaultSecret = 'bench-secret-do-not-use-in-prod'

// DbLifecycle closes the pool when Nest shuts down.
class DbLifecycle extends Db implements OnApplicationShutdown {
  async onApplicationShutdown() {
    await this.close()
  }
}

@Module({
  controllers: [SaasController],
  providers: [
    { provide: Db, useFactory: () => new DbLifecycle(process.env.DATABASE_URL!) },
    { provide: JWT_SECRET, useValue: process.env.JWT_SECRET || defaultSecret },
  ],
})
export class AppModule {}
