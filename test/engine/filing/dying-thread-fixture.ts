// A filing-thread entry that keeps a journal of its lives in `workerData.data.journal` and whose
// first life dies (an uncaught error) right after it said it started; later lives behave.
import { appendFileSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { journal } = (workerData as { data: { journal: string } }).data;
appendFileSync(journal, 'spawn\n');
const life = readFileSync(journal, 'utf8').split('\n').filter((line) => line === 'spawn').length;
parentPort!.on('message', (message: { type: string }) => {
  appendFileSync(journal, `${message.type}\n`);
  if (message.type === 'start') {
    parentPort!.postMessage({ type: 'started' });
    if (life === 1) setTimeout(() => {
      throw new Error('the filing thread fails');
    }, 20);
  }
  if (message.type === 'stop') parentPort!.postMessage({ type: 'stopped' });
});
