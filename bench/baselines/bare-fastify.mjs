// The HTTP floor: a bare Fastify route returning the same user object, no auth at all.
import Fastify from 'fastify';

const body = JSON.parse(process.argv[2]);
const app = Fastify();
app.get('/v1/users/:uid', async () => body);
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening on http://127.0.0.1:${app.server.address().port}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
