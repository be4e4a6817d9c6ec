// The micro workload as one Nest controller: GET /users/:id answers a fixed
// user with the id echoed as a string, POST /users answers 201 {"created": body}.
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common'

@Controller()
export class UsersController {
  @Get('health')
  health() {
    return { status: 'ok' }
  }

  @Get('users/:id')
  user(@Param('id') id: string) {
    return { id, name: 'Ada', email: 'ada@example.com', roles: ['admin', 'dev'] }
  }

  @Post('users')
  @HttpCode(201)
  create(@Body() body: unknown) {
    return { created: body }
  }
}
