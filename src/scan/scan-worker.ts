// The body of one scan worker thread (scan-pool.ts): it takes page scan tasks one at a time and
// answers each (page-scan.ts answerTask). It holds nothing between tasks.

import { parentPort } from 'node:worker_threads';
import { answerTask, READY, type TaskMessage } from './page-scan.js';

if (parentPort === null) throw new Error('scan-worker runs as a worker thread');
const port = parentPort;
port.on('message', (message: TaskMessage) => void answerTask(message).then((result) => port.postMessage(result)));
port.postMessage(READY);
