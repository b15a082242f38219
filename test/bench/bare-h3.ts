/** The baseline of every throughput ratio: a bare H3 hello handler on node:http. Prints its URL. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';

const app = new H3().get('/hello', () => ({ hello: 'world' }));
const server = createServer(toNodeHandler(app));
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
