// A scan worker that fails on cue, for the pool's tests: a page whose bytes are "crash" ends its
// thread with an uncaught error, "hang" never answers, "exit" exits the thread; any other page is
// answered by the real worker's code (answerTask).
import { parentPort } from 'node:worker_threads';
import { answerTask, READY, type TaskMessage } from '../../src/scan/page-scan.js';

const port = parentPort!;
port.on('message', (message: TaskMessage) => {
  const cue = new TextDecoder().decode(message.task.bytes);
  if (cue === 'crash') {
    setImmediate(() => {
      throw new Error('a bug in the scan');
    });
  } else if (cue === 'hang') {
    for (;;);
  } else if (cue === 'exit') {
    process.exit(3);
  } else {
    void answerTask(message).then((result) => port.postMessage(result));
  }
});
port.postMessage(READY);
